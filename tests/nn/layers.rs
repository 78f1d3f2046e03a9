//! Layers against hand-worked values, and the forward context's bookkeeping.

use super::{assert_close, cpu, moved_batch_norm, rng, tensor};
use checkers_zero::nn::{
    BatchNorm2d, Conv2d, Ctx, Flatten, Linear, Module, Optimizer, Param, Relu, Reshape,
    ResidualBlock, Sequential,
};
use checkers_zero::tensor::{Tensor, Var};

#[test]
fn linear_is_x_w_transposed_plus_b() {
    let mut l = Linear::new(3, 2, true, &cpu(), &mut rng(0));
    let values = [
        tensor(&[1., 2., 3., -1., 0., 1.], &[2, 3]),
        tensor(&[0.5, -0.5], &[2]),
    ];
    let mut i = 0;
    l.params_mut(&mut |p| {
        p.set(values[i].clone());
        i += 1;
    });
    let x = Var::constant(tensor(&[1., 1., 1., 2., 0., -1.], &[2, 3]));
    // [1,1,1] . [1,2,3] + 0.5 = 6.5; [1,1,1] . [-1,0,1] - 0.5 = -0.5;
    // [2,0,-1] . [1,2,3] + 0.5 = -0.5; [2,0,-1] . [-1,0,1] - 0.5 = -3.5
    assert_eq!(
        l.forward(&Ctx::inference(), &x).value().to_vec(),
        [6.5, -0.5, -0.5, -3.5]
    );
}

#[test]
fn default_init_bounds() {
    // PyTorch: weights and biases U(-1/sqrt(fan_in), 1/sqrt(fan_in)); fan_in = 100 here.
    let l = Linear::new(100, 50, true, &cpu(), &mut rng(1));
    let mut all = Vec::new();
    l.params(&mut |p| all.extend(p.value().to_vec()));
    assert!(all.iter().all(|w| w.abs() <= 0.1));
    let spread = all.iter().map(|w| w * w).sum::<f32>() / all.len() as f32;
    assert!(
        (spread - 0.01 / 3.0).abs() < 0.0005,
        "variance of U(-0.1, 0.1) is 0.01/3, got {spread}"
    );
}

#[test]
fn batch_norm_follows_pytorch() {
    let mut bn = BatchNorm2d::new(1, &cpu());
    let x = Var::constant(tensor(&[1., 2., 3., 4.], &[4, 1, 1, 1]));
    // Batch mean 2.5, biased variance 1.25 (used to normalise), unbiased 5/3 (kept).
    let y = bn.forward(&Ctx::inference(), &x).into_value().to_vec();
    let s = (1.25f32 + 1e-5).sqrt();
    assert_close(
        &y,
        &[-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s],
        1e-6,
        1e-7,
        "training output",
    );
    let (mean, var) = bn.running_stats();
    // running = 0.9 running + 0.1 batch: mean 0 -> 0.25, variance 1 -> 0.9 + 0.1 * 5/3.
    assert_close(&mean.to_vec(), &[0.25], 1e-6, 0.0, "running mean");
    assert_close(
        &var.to_vec(),
        &[0.9 + 0.5 / 3.0],
        1e-6,
        0.0,
        "running variance",
    );
    bn.set_train(false);
    let y = bn.forward(&Ctx::inference(), &x).into_value().to_vec();
    let s = (0.9f32 + 0.5 / 3.0 + 1e-5).sqrt();
    assert_close(
        &y,
        &[0.75 / s, 1.75 / s, 2.75 / s, 3.75 / s],
        1e-6,
        1e-7,
        "evaluation output",
    );
    assert_close(
        &bn.running_stats().0.to_vec(),
        &[0.25],
        1e-6,
        0.0,
        "evaluation leaves the statistics alone",
    );
}

#[test]
fn sequential_visits_in_order_and_sets_modes() {
    let dev = cpu();
    let mut r = rng(2);
    let mut net = Sequential::new()
        .push(BatchNorm2d::new(2, &dev))
        .push(Relu)
        .push(Reshape::new(&[8]))
        .push(Flatten)
        .push(Linear::new(8, 3, false, &dev, &mut r));
    let mut shapes = Vec::new();
    net.params(&mut |p| shapes.push(p.shape().to_vec()));
    assert_eq!(shapes, [vec![2], vec![2], vec![3, 8]]);
    assert_eq!(net.num_params(), 28);
    let mut buffers = 0;
    net.buffers(&mut |_| buffers += 1);
    assert_eq!(buffers, 2);
    let x = Var::constant(tensor(
        &(0..16).map(|i| i as f32).collect::<Vec<_>>(),
        &[2, 2, 2, 2],
    ));
    assert_eq!(net.forward(&Ctx::inference(), &x).shape(), [2, 3]);
    // In evaluation mode a batch no longer moves the running statistics.
    net.set_train(false);
    let mut before = Vec::new();
    net.buffers(&mut |t| before.push(t.to_vec()));
    net.forward(&Ctx::inference(), &x);
    let mut after = Vec::new();
    net.buffers(&mut |t| after.push(t.to_vec()));
    assert_eq!(before, after);
}

#[test]
fn a_parameter_is_one_leaf_however_often_used() {
    let p = Param::new(tensor(&[2.0], &[1]));
    let ctx = Ctx::training();
    let a = ctx.param(&p);
    let nodes = ctx.tape().unwrap().len();
    let b = ctx.param(&p);
    assert_eq!(ctx.tape().unwrap().len(), nodes, "no second leaf");
    // d(p * p)/dp = 2p = 4, through both uses.
    let grads = a.mul(&b).sum_all().backward();
    assert_eq!(grads.get(&a).unwrap().to_vec(), [4.0]);
    assert_ne!(p.clone().id(), p.id(), "a clone is another parameter");
}

#[test]
fn models_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<checkers_zero::nn::PolicyValueNet>();
    check::<Sequential>();
    check::<BatchNorm2d>();
}

#[test]
fn fused_conv_batch_norm_inference_matches_the_layers() {
    // Inference folds evaluation-mode batch norm into the conv and fuses the residual add and
    // ReLU; a recording context runs the layers one by one. They differ only by rounding:
    // the folded weights round once more and the sums run in another order.
    let dev = cpu();
    let mut r = rng(7);
    for (kernel, pad, conv_bias) in [(3, 1, false), (3, 1, true), (1, 0, true)] {
        let conv = Conv2d::new(5, 6, kernel, pad, conv_bias, &dev, &mut r);
        let bn = moved_batch_norm(6, |seed| {
            let x = Var::constant(Tensor::randn(&[4, 5, 8, 8], 2.0, &mut rng(seed), &dev));
            conv.forward(&Ctx::inference(), &x)
        });
        let x = Var::constant(Tensor::randn(&[3, 5, 8, 8], 1.0, &mut rng(20), &dev));
        let res = Var::constant(Tensor::randn(&[3, 6, 8, 8], 1.0, &mut rng(21), &dev));
        for (residual, relu) in [(None, false), (None, true), (Some(&res), true)] {
            let fused = conv.forward_bn(&Ctx::inference(), &bn, &x, residual, relu);
            let layers = conv.forward_bn(&Ctx::training(), &bn, &x, residual, relu);
            assert_close(
                &fused.value().to_vec(),
                &layers.value().to_vec(),
                1e-5,
                1e-5,
                &format!(
                    "kernel {kernel}, conv bias {conv_bias}, residual {}, relu {relu}",
                    residual.is_some()
                ),
            );
        }
    }
}

#[test]
fn cached_folded_weights_follow_every_change_of_the_layers() {
    // Inference caches the batch norm folded into each conv; after an optimizer step, new
    // parameters, new running statistics or a training forward it must fold again. Each
    // check compares the fused inference with the layers run one by one (a recording
    // context), which never folds, and with the previous output, so a stale fold shows.
    let dev = cpu();
    let mut block = ResidualBlock::new(4, true, &dev, &mut rng(30));
    let x = Var::constant(Tensor::randn(&[2, 4, 8, 8], 1.0, &mut rng(31), &dev));
    // Train-mode forwards move the running statistics away from (0, 1).
    for _ in 0..2 {
        block.forward(&Ctx::inference(), &x);
    }
    block.set_train(false);
    let mut previous: Option<Vec<f32>> = None;
    let check = |block: &ResidualBlock, previous: &mut Option<Vec<f32>>, what: &str| {
        let fused = block.forward(&Ctx::inference(), &x).value().to_vec();
        // A second call is served from the cache: the same values.
        let again = block.forward(&Ctx::inference(), &x).value().to_vec();
        assert_eq!(fused, again, "{what}: the cached fold");
        let layers = block.forward(&Ctx::training(), &x).value().to_vec();
        assert_close(&fused, &layers, 1e-5, 1e-5, what);
        if let Some(p) = &previous {
            let moved = p.iter().zip(&fused).any(|(a, b)| (a - b).abs() > 1e-3);
            assert!(moved, "{what}: the output changed");
        }
        *previous = Some(fused);
    };
    check(&block, &mut previous, "first fold");

    // Optimizer steps on a loss through the evaluation-mode block change the conv weights
    // and the batch norms' gamma and beta, not their running statistics. A small step: at
    // 0.1 the outputs grew to ~1e5 within two steps, and an output near 8 among them carried
    // the rounding errors of the large terms it sums (1e-4, ten times the tolerance), whichever
    // path computed it.
    let mut opt = Optimizer::sgd(0.01, 0.9, 0.0, &block);
    let target = Tensor::randn(&[2, 4, 8, 8], 1.0, &mut rng(32), &dev);
    for step in 0..2 {
        let ctx = Ctx::training();
        let y = block.forward(&ctx, &x);
        let loss = y.mul(&Var::constant(target.clone())).sum_all();
        let grads = ctx.param_grads(&block, &loss.backward());
        opt.step(&mut block, &grads);
        check(
            &block,
            &mut previous,
            &format!("after optimizer step {step}"),
        );
    }

    let mut seed = 40;
    block.params_mut(&mut |p| {
        p.set(Tensor::randn(p.shape(), 0.5, &mut rng(seed), &dev));
        seed += 1;
    });
    check(&block, &mut previous, "after setting the parameters");

    block.buffers_mut(&mut |t| {
        *t = Tensor::uniform(t.shape(), 1.0, &mut rng(seed), &dev).add_scalar(1.5);
        seed += 1;
    });
    check(
        &block,
        &mut previous,
        "after setting the running statistics",
    );

    block.set_train(true);
    let x2 = Var::constant(Tensor::randn(&[2, 4, 8, 8], 3.0, &mut rng(50), &dev));
    block.forward(&Ctx::inference(), &x2);
    block.set_train(false);
    check(&block, &mut previous, "after a training-mode forward");

    // A clone folds for itself, and stays right when the original changes.
    let copy = block.clone();
    block.params_mut(&mut |p| p.set(p.value().mul_scalar(0.5)));
    let from_copy = copy.forward(&Ctx::inference(), &x).value().to_vec();
    assert_eq!(Some(from_copy), previous, "the clone keeps its values");
    check(
        &block,
        &mut previous,
        "after scaling the original's parameters",
    );
}
