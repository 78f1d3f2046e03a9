//! Every op's backward against central finite differences, on every device present (the
//! CPU, and the GPU where one opens: lavapipe on CI), each check written once.
//!
//! For an op f and inputs x, the checked scalar is L = sum(f(x) * R) for a fixed random R
//! (so every output element's gradient matters). The numeric gradient perturbs one input
//! element by +-H and evaluates L in f64 from the f32 outputs. Errors are norm-wise:
//! |g_num - g| / max(|g|, 1e-3) (see `check` for elements with a kink within the step).
//!
//! Tolerance 1e-2: with H = 1e-2 the central difference's truncation error is about
//! H^2/6 |f'''| ~ 2e-5 relative for these smooth inputs, and f32 rounding of the forward adds
//! about 1e-7 |L| / H ~ 1e-5 |L| per element; 1e-2 is far above both, and far below the
//! error of any wrong rule (a missing term or transposition gives O(1)).

use checkers_zero::backend::NO_CELL;
use checkers_zero::tensor::{Device, RunningStats, TapTable, Tape, Tensor, Var};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const H: f32 = 1e-2;
const TOL: f64 = 1e-2;
/// At most this many elements per input may need the smaller step, so the refinement cannot
/// hide a wrong rule.
const MAX_KINKS: usize = 2;

fn rand_t(shape: &[usize], lo: f32, hi: f32, rng: &mut StdRng) -> Tensor {
    let n = shape.iter().product();
    Tensor::from_vec(
        (0..n).map(|_| rng.random_range(lo..hi)).collect(),
        shape,
        &Device::Cpu,
    )
}

/// Values in [0.2, 1.5] with random sign: away from 0 so relu's kink and division are safe.
fn signed_away_from_zero(shape: &[usize], rng: &mut StdRng) -> Tensor {
    let n = shape.iter().product();
    let v = (0..n)
        .map(|_| rng.random_range(0.2..1.5f32) * if rng.random::<bool>() { 1.0 } else { -1.0 })
        .collect();
    Tensor::from_vec(v, shape, &Device::Cpu)
}

fn weighted_sum(y: &Tensor, r: &[f32]) -> f64 {
    y.to_vec()
        .iter()
        .zip(r)
        .map(|(&a, &b)| a as f64 * b as f64)
        .sum()
}

/// Checks the gradients of `f` with respect to every input, on every device: `f` gets the
/// device its own constants belong on.
fn check(name: &str, inputs: &[Tensor], f: impl Fn(&Device, &[Var]) -> Var) {
    crate::common::on_every_device(|dev| check_on(dev, name, inputs, &f));
}

fn check_on(dev: &Device, name: &str, inputs: &[Tensor], f: &dyn Fn(&Device, &[Var]) -> Var) {
    let name = format!("{name} on {}", dev.name());
    let inputs: Vec<Tensor> = inputs.iter().map(|t| t.to_device(dev)).collect();
    let mut rng = StdRng::seed_from_u64(99);
    let tape = Tape::new();
    let vars: Vec<Var> = inputs.iter().map(|t| tape.var(t.clone())).collect();
    let y = f(dev, &vars);
    let r = rand_t(y.shape(), -1.0, 1.0, &mut rng).to_device(dev);
    let grads = y.mul(&Var::constant(r.clone())).sum_all().backward();
    let r = r.to_vec();
    for (i, input) in inputs.iter().enumerate() {
        let analytic = grads
            .get(&vars[i])
            .map(|g| g.to_vec())
            .unwrap_or_else(|| vec![0.0; input.numel()]);
        let base = input.to_vec();
        let scale = analytic.iter().fold(1e-3f32, |m, g| m.max(g.abs())) as f64;
        let mut numeric = vec![0.0f64; base.len()];
        let mut refined = Vec::new();
        for (j, slot) in numeric.iter_mut().enumerate() {
            let central = |h: f32| {
                let eval = |delta: f32| {
                    let mut v = base.clone();
                    v[j] += delta;
                    let mut xs: Vec<Var> =
                        inputs.iter().map(|t| Var::constant(t.clone())).collect();
                    xs[i] = Var::constant(Tensor::from_vec(v, input.shape(), dev));
                    weighted_sum(f(dev, &xs).value(), &r)
                };
                (eval(h) - eval(-h)) / (2.0 * h as f64)
            };
            *slot = central(H);
            // A kink (relu at 0) within the step spoils the central difference there; such an
            // element is measured again with a step ten times smaller, which a wrong gradient
            // would not match either.
            let g = analytic[j] as f64;
            if (*slot - g).abs() > 0.01 * scale {
                let fine = central(H / 10.0);
                if (fine - g).abs() < (*slot - g).abs() {
                    *slot = fine;
                    refined.push(j);
                }
            }
        }
        if !refined.is_empty() {
            eprintln!(
                "{name}: input {i}: elements {refined:?} re-measured with step H/10 (kink within H)"
            );
        }
        assert!(
            refined.len() <= MAX_KINKS,
            "{name}: input {i}: {} elements needed the smaller step",
            refined.len()
        );
        let diff: f64 = numeric
            .iter()
            .zip(&analytic)
            .map(|(n, &a)| (n - a as f64).powi(2))
            .sum::<f64>()
            .sqrt();
        let norm: f64 = analytic
            .iter()
            .map(|&a| (a as f64).powi(2))
            .sum::<f64>()
            .sqrt();
        let err = diff / norm.max(1e-3);
        assert!(
            err <= TOL,
            "{name}: input {i} gradient error {err:.2e}\n analytic {analytic:?}\n numeric {numeric:?}"
        );
    }
}

#[test]
fn elementwise_binary_with_broadcasting() {
    let mut rng = StdRng::seed_from_u64(1);
    let a = signed_away_from_zero(&[3, 4], &mut rng);
    let b = signed_away_from_zero(&[4], &mut rng);
    let c = signed_away_from_zero(&[3, 1], &mut rng);
    check("add", &[a.clone(), b.clone()], |_, v| v[0].add(&v[1]));
    check("sub", &[a.clone(), c.clone()], |_, v| v[0].sub(&v[1]));
    check("mul", &[a.clone(), b.clone()], |_, v| v[0].mul(&v[1]));
    check("div", &[a.clone(), c.clone()], |_, v| v[0].div(&v[1]));
    check("mul outer", &[c.clone(), b.clone()], |_, v| v[0].mul(&v[1]));
    let pos = rand_t(&[2, 3], 0.5, 2.0, &mut rng);
    let exp = rand_t(&[2, 3], -1.5, 1.5, &mut rng);
    check("pow tensor exponent", &[pos.clone(), exp], |_, v| {
        v[0].pow(&v[1])
    });
    check(
        "pow broadcast exponent",
        &[pos, rand_t(&[3], -1.0, 2.0, &mut rng)],
        |_, v| v[0].pow(&v[1]),
    );
}

#[test]
fn elementwise_unary() {
    let mut rng = StdRng::seed_from_u64(2);
    let x = signed_away_from_zero(&[2, 3, 4], &mut rng);
    let pos = rand_t(&[5, 3], 0.3, 2.0, &mut rng);
    check("neg", std::slice::from_ref(&x), |_, v| v[0].neg());
    check("exp", std::slice::from_ref(&x), |_, v| v[0].exp());
    check("log", std::slice::from_ref(&pos), |_, v| v[0].log());
    check("relu", std::slice::from_ref(&x), |_, v| v[0].relu());
    check("tanh", std::slice::from_ref(&x), |_, v| v[0].tanh());
    check("sigmoid", std::slice::from_ref(&x), |_, v| v[0].sigmoid());
    check("add_scalar", std::slice::from_ref(&x), |_, v| {
        v[0].add_scalar(0.7)
    });
    check("mul_scalar", std::slice::from_ref(&x), |_, v| {
        v[0].mul_scalar(-1.3)
    });
    check("pow_scalar", std::slice::from_ref(&pos), |_, v| {
        v[0].pow_scalar(2.5)
    });
    check("pow_scalar negative", &[pos], |_, v| v[0].pow_scalar(-0.5));
}

#[test]
fn reductions() {
    let mut rng = StdRng::seed_from_u64(3);
    let x = rand_t(&[2, 3, 4, 5], -1.0, 1.0, &mut rng);
    for axis in [0isize, 1, 2, 3, -1] {
        for keep in [false, true] {
            check(
                &format!("sum_axis {axis} keep {keep}"),
                std::slice::from_ref(&x),
                |_, v| v[0].sum_axis(axis, keep),
            );
            check(
                &format!("mean_axis {axis} keep {keep}"),
                std::slice::from_ref(&x),
                |_, v| v[0].mean_axis(axis, keep),
            );
        }
    }
    check("sum_all", std::slice::from_ref(&x), |_, v| v[0].sum_all());
    check("mean_all", &[x], |_, v| v[0].mean_all());
}

#[test]
fn matmul_plain_batched_and_broadcast() {
    let mut rng = StdRng::seed_from_u64(4);
    let a = rand_t(&[3, 5], -1.0, 1.0, &mut rng);
    let b = rand_t(&[5, 4], -1.0, 1.0, &mut rng);
    check("matmul 2-D", &[a.clone(), b.clone()], |_, v| {
        v[0].matmul(&v[1])
    });
    let ba = rand_t(&[2, 3, 5], -1.0, 1.0, &mut rng);
    let bb = rand_t(&[2, 5, 4], -1.0, 1.0, &mut rng);
    check("matmul batched", &[ba.clone(), bb.clone()], |_, v| {
        v[0].matmul(&v[1])
    });
    check("matmul batch x 2-D", &[ba, b], |_, v| v[0].matmul(&v[1]));
    check("matmul 2-D x batch", &[a, bb], |_, v| v[0].matmul(&v[1]));
    let at = rand_t(&[5, 3], -1.0, 1.0, &mut rng);
    let bt = rand_t(&[4, 5], -1.0, 1.0, &mut rng);
    check("matmul A^T B^T", &[at.clone(), bt.clone()], |_, v| {
        v[0].matmul_t(&v[1], true, true)
    });
    check(
        "matmul A^T B",
        &[at, rand_t(&[5, 4], -1.0, 1.0, &mut rng)],
        |_, v| v[0].matmul_t(&v[1], true, false),
    );
    check(
        "matmul A B^T batched",
        &[rand_t(&[2, 3, 5], -1.0, 1.0, &mut rng), bt],
        |_, v| v[0].matmul_t(&v[1], false, true),
    );
}

#[test]
fn layout_ops() {
    let mut rng = StdRng::seed_from_u64(5);
    let x = rand_t(&[2, 3, 4, 5], -1.0, 1.0, &mut rng);
    check("reshape", std::slice::from_ref(&x), |_, v| {
        v[0].reshape(&[6, 20])
    });
    check("flatten", std::slice::from_ref(&x), |_, v| v[0].flatten());
    check("permute", std::slice::from_ref(&x), |_, v| {
        v[0].permute(&[2, 0, 3, 1])
    });
    check("transpose", std::slice::from_ref(&x), |_, v| {
        v[0].transpose(1, 3)
    });
    check("pad2d", std::slice::from_ref(&x), |_, v| {
        v[0].pad2d([1, 2, 0, 3], 0.5)
    });
    check("pad2d crop", std::slice::from_ref(&x), |_, v| {
        v[0].pad2d([-1, 0, -2, 1], 0.0)
    });
    let m = rand_t(&[3, 7], -1.0, 1.0, &mut rng);
    check("gather_cols", &[m], |_, v| {
        v[0].gather_cols(&[6, 0, 3, 3, 1])
    });
    // Parts of different lengths along the first, a middle and the last axis.
    let parts = |sizes: [[usize; 3]; 3], rng: &mut StdRng| -> Vec<Tensor> {
        sizes.map(|s| rand_t(&s, -1.0, 1.0, rng)).into()
    };
    for (axis, sizes) in [
        (0, [[1, 3, 2], [4, 3, 2], [2, 3, 2]]),
        (1, [[2, 1, 3], [2, 4, 3], [2, 2, 3]]),
        (-1, [[3, 2, 2], [3, 2, 1], [3, 2, 5]]),
    ] {
        check(
            &format!("concat {axis}"),
            &parts(sizes, &mut rng),
            |_, v| Var::concat(&[&v[0], &v[1], &v[2]], axis),
        );
    }
}

#[test]
fn convolution() {
    let mut rng = StdRng::seed_from_u64(6);
    let x = rand_t(&[2, 3, 5, 4], -1.0, 1.0, &mut rng);
    for (k, pad, stride) in [
        ((3, 3), (1, 1), (1, 1)),
        ((3, 2), (0, 1), (1, 1)),
        ((1, 1), (0, 0), (1, 1)),
        ((2, 3), (2, 0), (1, 1)),
        // Strides: both axes, one axis, a 1x1 kernel subsampling, and steps that leave the
        // last rows or columns unread (their gradient is zero).
        ((3, 3), (1, 1), (2, 2)),
        ((2, 3), (0, 1), (1, 2)),
        ((1, 1), (0, 0), (2, 3)),
        ((2, 2), (0, 0), (3, 2)),
    ] {
        let w = rand_t(&[4, 3, k.0, k.1], -1.0, 1.0, &mut rng);
        let b = rand_t(&[4], -1.0, 1.0, &mut rng);
        check(
            &format!("conv2d {k:?} pad {pad:?} stride {stride:?}"),
            &[x.clone(), w.clone(), b],
            |_, v| v[0].conv2d(&v[1], Some(&v[2]), pad, stride),
        );
        check(
            &format!("conv2d no bias {k:?} stride {stride:?}"),
            &[x.clone(), w],
            |_, v| v[0].conv2d(&v[1], None, pad, stride),
        );
    }
}

#[test]
fn tap_convolution() {
    let mut rng = StdRng::seed_from_u64(8);
    // Cell 3 is read by no tap (its gradient is zero), one entry reads nothing.
    let table = TapTable::new(5, 3, vec![0, 1, NO_CELL, 1, 2, 0, 2, 4, 1, 4, 0, 2]);
    let x = rand_t(&[2, 3, 5], -1.0, 1.0, &mut rng);
    let w = rand_t(&[4, 9], -1.0, 1.0, &mut rng);
    let b = rand_t(&[4], -1.0, 1.0, &mut rng);
    check("tap_conv", &[x.clone(), w.clone(), b], |_, v| {
        v[0].tap_conv(&v[1], Some(&v[2]), &table)
    });
    check("tap_conv no bias", &[x, w], |_, v| {
        v[0].tap_conv(&v[1], None, &table)
    });
}

#[test]
fn softmax_family() {
    let mut rng = StdRng::seed_from_u64(7);
    let x = rand_t(&[3, 4, 5], -2.0, 2.0, &mut rng);
    for axis in [0isize, 1, -1] {
        check(
            &format!("softmax {axis}"),
            std::slice::from_ref(&x),
            |_, v| v[0].softmax(axis),
        );
        check(
            &format!("log_softmax {axis}"),
            std::slice::from_ref(&x),
            |_, v| v[0].log_softmax(axis),
        );
    }
}

#[test]
fn fused_losses() {
    let mut rng = StdRng::seed_from_u64(8);
    let z = rand_t(&[4, 6], -2.0, 2.0, &mut rng);
    let t = Tensor::from_vec(
        rand_t(&[4, 6], 0.0, 1.0, &mut rng).softmax(-1).to_vec(),
        &[4, 6],
        &Device::Cpu,
    );
    check("cross_entropy_soft", &[z.clone(), t.clone()], |_, v| {
        v[0].cross_entropy_soft(&v[1])
    });
    // Targets that do not sum to one exercise the sum_j t_j term of the logits gradient.
    let t2 = rand_t(&[4, 6], 0.0, 1.0, &mut rng);
    check(
        "cross_entropy_soft unnormalised",
        &[z.clone(), t2],
        |_, v| v[0].cross_entropy_soft(&v[1]),
    );
    let p = rand_t(&[5, 3], -1.0, 1.0, &mut rng);
    let q = rand_t(&[5, 3], -1.0, 1.0, &mut rng);
    check("mse", &[p, q], |_, v| v[0].mse(&v[1]));
}

/// Running averages as a new batch norm starts them (they do not enter the gradients).
fn fresh_running(c: usize, dev: &Device) -> RunningStats {
    RunningStats {
        mean: Tensor::zeros(&[c], dev),
        var: Tensor::full(&[c], 1.0, dev),
        momentum: 0.1,
    }
}

#[test]
fn batch_norm() {
    let mut rng = StdRng::seed_from_u64(9);
    let x = rand_t(&[3, 2, 3, 2], -1.0, 1.0, &mut rng);
    let gamma = rand_t(&[2], 0.5, 1.5, &mut rng);
    let beta = rand_t(&[2], -0.5, 0.5, &mut rng);
    check(
        "batch_norm2d train",
        &[x.clone(), gamma.clone(), beta.clone()],
        |d, v| {
            v[0].batch_norm2d_train(&v[1], &v[2], &fresh_running(2, d), false, 1e-5)
                .0
        },
    );
    let mean = rand_t(&[2], -0.2, 0.2, &mut rng);
    let var = rand_t(&[2], 0.5, 1.5, &mut rng);
    check("batch_norm2d eval", &[x, gamma, beta], |d, v| {
        let (mean, var) = (mean.to_device(d), var.to_device(d));
        v[0].batch_norm2d_eval(&v[1], &v[2], &mean, &var, 1e-5)
    });
}

#[test]
fn small_network_end_to_end() {
    // conv -> batchnorm -> relu -> residual add -> flatten -> linear -> log_softmax + tanh value
    let mut rng = StdRng::seed_from_u64(10);
    let x = rand_t(&[2, 2, 4, 4], -1.0, 1.0, &mut rng);
    let w1 = rand_t(&[2, 2, 3, 3], -0.5, 0.5, &mut rng);
    let g = rand_t(&[2], 0.5, 1.5, &mut rng);
    let b = rand_t(&[2], -0.2, 0.2, &mut rng);
    let lin = rand_t(&[32, 5], -0.3, 0.3, &mut rng);
    let target = Tensor::from_vec(
        rand_t(&[2, 5], 0.0, 1.0, &mut rng).softmax(-1).to_vec(),
        &[2, 5],
        &Device::Cpu,
    );
    check("network", &[x, w1, g, b, lin], |d, v| {
        let h = v[0]
            .conv2d(&v[1], None, (1, 1), (1, 1))
            .batch_norm2d_train(&v[2], &v[3], &fresh_running(2, d), true, 1e-5)
            .0;
        let h = h.add(&v[0]).flatten();
        let logits = h.matmul(&v[4]);
        let value = logits.sum_axis(-1, false).tanh();
        logits
            .cross_entropy_soft(&Var::constant(target.to_device(d)))
            .add(&value.mse(&Var::constant(Tensor::zeros(&[2], d))))
    });
}
