//! Optimizer steps against hand-worked updates.

use super::{assert_close, tensor};
use checkers_zero::nn::{Ctx, Module, Optimizer, Param};
use checkers_zero::tensor::{Tensor, Var};

/// Two free parameters: one that gets the test's gradients, one that never gets any.
struct Two([Param; 2]);

impl Module for Two {
    type Output = Var;
    fn forward(&self, _: &Ctx, x: &Var) -> Var {
        x.clone()
    }
    fn params(&self, f: &mut dyn FnMut(&Param)) {
        self.0.iter().for_each(f);
    }
    fn params_mut(&mut self, f: &mut dyn FnMut(&mut Param)) {
        self.0.iter_mut().for_each(f);
    }
}

fn model() -> Two {
    Two([
        Param::new(tensor(&[1.0, -2.0], &[2])),
        Param::new(tensor(&[3.0], &[1])),
    ])
}

const G1: [f32; 2] = [0.5, 0.25];
const G2: [f32; 2] = [-1.0, 0.5];

fn run(opt: &mut Optimizer, m: &mut Two) -> [Vec<f32>; 2] {
    let mut out = [vec![], vec![]];
    for (i, g) in [G1, G2].iter().enumerate() {
        opt.step(m, &[Some(tensor(g, &[2])), None::<Tensor>]);
        out[i] = m.0[0].value().to_vec();
    }
    assert_eq!(
        m.0[1].value().to_vec(),
        [3.0],
        "a parameter without a gradient is left alone"
    );
    out
}

#[test]
fn sgd_momentum_weight_decay() {
    let mut m = model();
    let mut opt = Optimizer::sgd(0.1, 0.9, 0.01, &m);
    let [w1, w2] = run(&mut opt, &mut m);
    // d = g + 0.01 w = [0.51, 0.23]; v = d; w1 = w - 0.1 v = [0.949, -2.023]
    assert_close(&w1, &[0.949, -2.023], 1e-6, 0.0, "sgd step 1");
    // d = [-1 + 0.00949, 0.5 - 0.02023] = [-0.99051, 0.47977]
    // v = 0.9 [0.51, 0.23] + d = [-0.53151, 0.68677]; w2 = w1 - 0.1 v = [1.002151, -2.091677]
    assert_close(&w2, &[1.002151, -2.091677], 1e-6, 0.0, "sgd step 2");
    assert_eq!(opt.steps(), 2);
}

#[test]
fn adam_with_l2() {
    let mut m = model();
    let mut opt = Optimizer::adam(0.1, 0.1, &m);
    let [w1, w2] = run(&mut opt, &mut m);
    // g' = g + 0.1 w = [0.6, 0.05]; the first bias-corrected step is lr g' / (|g'| + eps), i.e.
    // lr in the direction of the sign: w1 = [0.9, -2.1].
    assert_close(&w1, &[0.9, -2.1], 1e-6, 0.0, "adam step 1");
    // g' = [-1 + 0.09, 0.5 - 0.21] = [-0.91, 0.29]
    // m = 0.9 [0.06, 0.005] + 0.1 g' = [-0.037, 0.0335]
    // v = 0.999 [3.6e-4, 2.5e-6] + 0.001 g'^2 = [1.18774e-3, 8.65975e-5]
    // w2 = w1 - 0.1 (m / 0.19) / (sqrt(v / 0.001999) + 1e-8) = [0.92526352, -2.18471197]
    assert_close(&w2, &[0.925_263_5, -2.184_712], 2e-6, 0.0, "adam step 2");
}

#[test]
fn learning_rate_is_set_per_step() {
    let mut m = model();
    let mut opt = Optimizer::sgd(0.1, 0.0, 0.0, &m);
    opt.set_lr(0.5);
    opt.step(&mut m, &[Some(tensor(&G1, &[2])), None]);
    assert_close(
        &m.0[0].value().to_vec(),
        &[0.75, -2.125],
        1e-6,
        0.0,
        "w - 0.5 g",
    );
}
