//! 2-D batch normalisation over (n, c, h, w): per channel, over the batch and the plane.
//!
//! Training mode is one recorded op, its forward and its closed-form backward each one backend
//! call (`Backend::batch_norm_train` and `batch_norm_train_grad`, where the formulas are): the
//! CPU makes two reading passes and one writing pass for each and the GPU two kernels, where
//! differentiating the composition op by op would take about twenty. The forward also moves
//! the running averages, so they cost no launches of their own.
//! Evaluation mode is a per-channel affine map of recorded ops.

use super::super::{Tensor, Var, dispatch_each};
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

impl Tensor {
    /// Training-mode batch norm of (n, c, h, w) with per-channel `gamma` and `beta` (c):
    /// returns (y, mean, var, running mean, running var), all but y of shape (c); y through a
    /// ReLU with `relu`.
    fn batch_norm_train(
        &self,
        gamma: &Tensor,
        beta: &Tensor,
        running: &RunningStats,
        relu: bool,
        eps: f32,
    ) -> [Tensor; 5] {
        let d = norm_dims(self.shape());
        for t in [gamma, beta, &running.mean, &running.var] {
            assert_eq!(
                t.shape(),
                [d.c],
                "batch_norm2d's gamma, beta and running averages are per channel"
            );
        }
        let momentum = running.momentum;
        let [y, mean, var, run_mean, run_var] = dispatch_each!(self.storage(), gamma.storage(), beta.storage(), running.mean.storage(), running.var.storage() =>
            |be, x, g, b, rm, rv| be.batch_norm_train(x, g, b, Running { mean: rm, var: rv, momentum }, relu, d, eps));
        let channels = |s| Tensor::from_storage(s, vec![d.c]);
        [
            Tensor::from_storage(y, self.shape().to_vec()),
            channels(mean),
            channels(var),
            channels(run_mean),
            channels(run_var),
        ]
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
        let x = self.value().clone();
        let [y, mean, var, run_mean, run_var] =
            x.batch_norm_train(gamma.value(), beta.value(), running, relu, eps);
        let relu_out = relu.then(|| y.clone());
        let moved = RunningStats {
            mean: run_mean,
            var: run_var,
            momentum: running.momentum,
        };
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
        (out, moved)
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
