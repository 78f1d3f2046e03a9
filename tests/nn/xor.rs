//! A two-layer perceptron learns XOR.

use super::{cpu, rng, tensor};
use checkers_zero::nn::{Ctx, Linear, Module, Optimizer, Sequential, Sigmoid, Tanh, mse};
use checkers_zero::tensor::Var;

#[test]
fn mlp_learns_xor() {
    let dev = cpu();
    let mut r = rng(3);
    let mut net = Sequential::new()
        .push(Linear::new(2, 8, true, &dev, &mut r))
        .push(Tanh)
        .push(Linear::new(8, 1, true, &dev, &mut r))
        .push(Sigmoid);
    let x = tensor(&[0., 0., 0., 1., 1., 0., 1., 1.], &[4, 2]);
    let y = tensor(&[0., 1., 1., 0.], &[4, 1]);
    let mut opt = Optimizer::adam(0.05, 0.0, &net);
    let mut loss = f32::INFINITY;
    for _ in 0..400 {
        let ctx = Ctx::training();
        let l = mse(&net.forward(&ctx, &Var::constant(x.clone())), &y);
        loss = l.value().item();
        let grads = ctx.param_grads(&net, &l.backward());
        opt.step(&mut net, &grads);
    }
    // A solved XOR has every output within 0.1 of its target, so the MSE is under 0.01.
    eprintln!("xor loss {loss}");
    assert!(loss < 0.01, "final loss {loss}");
    let out = net
        .forward(&Ctx::inference(), &Var::constant(x))
        .into_value()
        .to_vec();
    for (o, t) in out.iter().zip([0., 1., 1., 0.]) {
        assert_eq!((*o > 0.5) as u8 as f32, t, "outputs {out:?}");
    }
}
