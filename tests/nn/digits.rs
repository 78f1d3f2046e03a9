//! A small conv net classifies the 8x8 handwritten digits (UCI, as in scikit-learn) with at
//! least 95% accuracy on a held-out fifth.

use super::{cpu, rng};
use checkers_zero::nn::{
    BatchNorm2d, Conv2d, Ctx, Flatten, Linear, Module, Optimizer, Relu, Sequential,
    cross_entropy_soft,
};
use checkers_zero::tensor::{Tensor, Var};
use rand::seq::SliceRandom;

const DATA: &str = include_str!("../../data/digits.csv");
const TRAIN: usize = 1437;

/// (pixels scaled to [0, 1], label) per image.
fn load() -> Vec<(Vec<f32>, usize)> {
    DATA.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let v: Vec<u32> = l
                .split(',')
                .map(|f| f.parse().expect("digits.csv holds integers"))
                .collect();
            assert_eq!(v.len(), 65, "label + 64 pixels");
            (
                v[1..].iter().map(|&p| p as f32 / 16.0).collect(),
                v[0] as usize,
            )
        })
        .collect()
}

/// Images (n, 1, 8, 8) and one-hot targets (n, 10).
fn batch(rows: &[&(Vec<f32>, usize)]) -> (Tensor, Tensor) {
    let x = rows.iter().flat_map(|(p, _)| p.iter().copied()).collect();
    let mut t = vec![0.0; rows.len() * 10];
    for (i, (_, label)) in rows.iter().enumerate() {
        t[i * 10 + label] = 1.0;
    }
    let dev = cpu();
    (
        Tensor::from_vec(x, &[rows.len(), 1, 8, 8], &dev),
        Tensor::from_vec(t, &[rows.len(), 10], &dev),
    )
}

#[test]
fn conv_net_classifies_digits() {
    let mut data = load();
    assert_eq!(data.len(), 1797);
    let mut r = rng(2024);
    data.shuffle(&mut r);
    let (train, test) = data.split_at(TRAIN);
    let dev = cpu();
    let mut net = Sequential::new()
        .push(Conv2d::new(1, 16, 3, 1, false, &dev, &mut r))
        .push(BatchNorm2d::new(16, &dev))
        .push(Relu)
        .push(Conv2d::new(16, 32, 3, 1, false, &dev, &mut r))
        .push(BatchNorm2d::new(32, &dev))
        .push(Relu)
        .push(Flatten)
        .push(Linear::new(32 * 64, 10, true, &dev, &mut r));
    let mut opt = Optimizer::adam(3e-3, 0.0, &net);
    let mut order: Vec<&(Vec<f32>, usize)> = train.iter().collect();
    for _epoch in 0..8 {
        order.shuffle(&mut r);
        for chunk in order.chunks(64) {
            let (x, t) = batch(chunk);
            let ctx = Ctx::training();
            let loss = cross_entropy_soft(&net.forward(&ctx, &Var::constant(x)), &t);
            let grads = ctx.param_grads(&net, &loss.backward());
            opt.step(&mut net, &grads);
        }
    }
    net.set_train(false);
    let (x, _) = batch(&test.iter().collect::<Vec<_>>());
    let logits = net
        .forward(&Ctx::inference(), &Var::constant(x))
        .into_value()
        .to_vec();
    let correct = test
        .iter()
        .zip(logits.chunks(10))
        .filter(|((_, label), row)| {
            row.iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(i, _)| i)
                == Some(*label)
        })
        .count();
    let accuracy = correct as f64 / test.len() as f64;
    eprintln!("digits: test accuracy {accuracy:.4}");
    assert!(
        accuracy >= 0.95,
        "test accuracy {accuracy:.3} ({correct}/{})",
        test.len()
    );
}
