//! 2-D batch normalisation over (n, c, h, w): per channel, over the batch and the plane.
//!
//! Training mode is one recorded op, its forward and its closed-form backward each one backend
//! call (`Backend::batch_norm_train` and `batch_norm_train_grad`, where the formulas are): the
//! CPU makes two reading passes and one writing pass for each and the GPU two kernels, where
//! differentiating the composition op by op would take about twenty. The forward also moves
//! the running averages, so they cost no launches of their own.
//! Evaluation mode is a per-channel affine map of recorded ops.
//! A batch norm of a convolution's output records the same two ops, their forwards one
//! backend call (`Backend::conv2d_batch_norm_train`).

use super::super::{Storage, Tensor, Var, dispatch_each};
use super::conv::conv_dims;
use crate::backend::{Backend, NormDims, Running};

/// A batch norm's running averages, per channel, and how far each training batch moves them:
/// new = (1 - momentum) old + momentum batch, the batch variance unbiased.
#[derive(Clone, Debug)]
pub struct RunningStats {
    pub mean: Tensor,
    pub var: Tensor,
    pub momentum: f32,
}

fn norm_dims(shape: &[usize]) -> NormDims {
    let [n, c, h, w] = *shape else {
        panic!("batch_norm2d takes (n, c, h, w), got {shape:?}")
    };
    NormDims { n, c, plane: h * w }
}

fn per_channel(t: &Var) -> Var {
    let c = t.value().numel();
    t.reshape(&[1, c, 1, 1])
}

fn check_per_channel(d: NormDims, gamma: &Tensor, beta: &Tensor, running: &RunningStats) {
    for t in [gamma, beta, &running.mean, &running.var] {
        assert_eq!(
            t.shape(),
            [d.c],
            "batch_norm2d's gamma, beta and running averages are per channel"
        );
    }
}

/// A training forward's results: y, and per channel the batch mean and variance and the
/// running averages moved.
struct Trained {
    y: Tensor,
    mean: Tensor,
    var: Tensor,
    running: RunningStats,
}

impl Trained {
    fn new(shape: &[usize], d: NormDims, momentum: f32, stats: [Storage; 5]) -> Trained {
        let [y, mean, var, run_mean, run_var] = stats;
        let channels = |s| Tensor::from_storage(s, vec![d.c]);
        Trained {
            y: Tensor::from_storage(y, shape.to_vec()),
            mean: channels(mean),
            var: channels(var),
            running: RunningStats {
                mean: channels(run_mean),
                var: channels(run_var),
                momentum,
            },
        }
    }
}

impl Tensor {
    /// Training-mode batch norm of (n, c, h, w) with per-channel `gamma` and `beta` (c), y
    /// through a ReLU with `relu`.
    fn batch_norm_train(
        &self,
        gamma: &Tensor,
        beta: &Tensor,
        running: &RunningStats,
        relu: bool,
        eps: f32,
    ) -> Trained {
        let d = norm_dims(self.shape());
        check_per_channel(d, gamma, beta, running);
        let momentum = running.momentum;
        let stats = dispatch_each!(self.storage(), gamma.storage(), beta.storage(), running.mean.storage(), running.var.storage() =>
            |be, x, g, b, rm, rv| be.batch_norm_train(x, g, b, Running { mean: rm, var: rv, momentum }, relu, d, eps));
        Trained::new(self.shape(), d, momentum, stats)
    }

    /// `conv2d(self, weight)` (no bias) and the training-mode batch norm of it: (the
    /// convolution's output, the batch norm's results).
    #[allow(clippy::too_many_arguments)]
    fn conv2d_batch_norm_train(
        &self,
        weight: &Tensor,
        padding: (usize, usize),
        stride: (usize, usize),
        gamma: &Tensor,
        beta: &Tensor,
        running: &RunningStats,
        relu: bool,
        eps: f32,
    ) -> (Tensor, Trained) {
        let cd = conv_dims(self.shape(), weight.shape(), padding, stride);
        let d = cd.output();
        check_per_channel(d, gamma, beta, running);
        let momentum = running.momentum;
        let [conv, stats @ ..] = dispatch_each!(self.storage(), weight.storage(), gamma.storage(), beta.storage(), running.mean.storage(), running.var.storage() =>
            |be, x, w, g, b, rm, rv| be.conv2d_batch_norm_train(x, w, g, b, Running { mean: rm, var: rv, momentum }, relu, cd, eps));
        let shape = [cd.n, cd.c_out, cd.out_h(), cd.out_w()];
        let conv = Tensor::from_storage(conv, shape.to_vec());
        (conv, Trained::new(&shape, d, momentum, stats))
    }

    /// The backward of [`Tensor::batch_norm_train`] given its output gradient `self`:
    /// [dx, dgamma, dbeta]. `relu_out`: the forward's output, where it applied a ReLU.
    fn batch_norm_train_grad(
        &self,
        x: &Tensor,
        relu_out: Option<&Tensor>,
        mean: &Tensor,
        var: &Tensor,
        gamma: &Tensor,
        eps: f32,
    ) -> [Tensor; 3] {
        let d = norm_dims(x.shape());
        let relu = relu_out.is_some();
        // Without a ReLU the gradient stands in for the mask, which is then not read.
        let mask = relu_out.unwrap_or(self);
        let [dx, dgamma, dbeta] = dispatch_each!(x.storage(), self.storage(), mask.storage(), mean.storage(), var.storage(), gamma.storage() =>
            |be, x, g, y, m, v, ga| be.batch_norm_train_grad(x, g, relu.then_some(y), m, v, ga, d, eps));
        [
            Tensor::from_storage(dx, x.shape().to_vec()),
            Tensor::from_storage(dgamma, vec![d.c]),
            Tensor::from_storage(dbeta, vec![d.c]),
        ]
    }
}

impl Var {
    /// Training mode: normalise with this batch's statistics, then scale by `gamma` and shift
    /// by `beta` (both (c)), then a ReLU with `relu` (fused: no pass of its own either way).
    /// Returns the running averages moved towards this batch's.
    pub fn batch_norm2d_train(
        &self,
        gamma: &Var,
        beta: &Var,
        running: &RunningStats,
        relu: bool,
        eps: f32,
    ) -> (Var, RunningStats) {
        let trained =
            self.value()
                .batch_norm_train(gamma.value(), beta.value(), running, relu, eps);
        self.record_batch_norm(gamma, beta, relu, eps, trained)
    }

    /// `conv2d(self, weight)` (no bias) then [`Var::batch_norm2d_train`] of it: the same two
    /// recorded ops, their forwards one backend call.
    #[allow(clippy::too_many_arguments)]
    pub fn conv2d_batch_norm2d_train(
        &self,
        weight: &Var,
        padding: (usize, usize),
        stride: (usize, usize),
        gamma: &Var,
        beta: &Var,
        running: &RunningStats,
        relu: bool,
        eps: f32,
    ) -> (Var, RunningStats) {
        let (conv, trained) = self.value().conv2d_batch_norm_train(
            weight.value(),
            padding,
            stride,
            gamma.value(),
            beta.value(),
            running,
            relu,
            eps,
        );
        let conv = self.record_conv2d(weight, None, padding, stride, conv);
        conv.record_batch_norm(gamma, beta, relu, eps, trained)
    }

    /// Records `trained.y`, computed as the training batch norm of `self`, with its backward.
    fn record_batch_norm(
        &self,
        gamma: &Var,
        beta: &Var,
        relu: bool,
        eps: f32,
        trained: Trained,
    ) -> (Var, RunningStats) {
        let Trained {
            y,
            mean,
            var,
            running,
        } = trained;
        let x = self.value().clone();
        let relu_out = relu.then(|| y.clone());
        let gamma_now = gamma.value().clone();
        let out = Var::record(&[self, gamma, beta], y, move |g, needs| {
            let [dx, dgamma, dbeta] =
                g.batch_norm_train_grad(&x, relu_out.as_ref(), &mean, &var, &gamma_now, eps);
            vec![
                needs[0].then_some(dx),
                needs[1].then_some(dgamma),
                needs[2].then_some(dbeta),
            ]
        });
        (out, running)
    }

    /// Evaluation mode: normalise with given (running) statistics.
    pub fn batch_norm2d_eval(
        &self,
        gamma: &Var,
        beta: &Var,
        mean: &Tensor,
        var: &Tensor,
        eps: f32,
    ) -> Var {
        let inv_std = Var::constant(var.add_scalar(eps).pow_scalar(-0.5));
        let scale = per_channel(&gamma.mul(&inv_std));
        let shift = per_channel(&beta.sub(&Var::constant(mean.clone()).mul(&gamma.mul(&inv_std))));
        self.mul(&scale).add(&shift)
    }
}
