//! 2-D batch normalisation over (n, c, h, w): per channel, over the batch and the plane.
//!
//! Training mode is one recorded op, its forward and its closed-form backward each one backend
//! kernel (`Backend::batch_norm_train` and `batch_norm_train_grad`, where the formulas are):
//! the CPU makes two reading passes and one writing pass for each, where differentiating the
//! composition op by op would take about twenty.
//! Evaluation mode is a per-channel affine map of recorded ops.

use super::super::{Tensor, Var, dispatch_each};
use crate::backend::{Backend, NormDims};

/// The statistics of one training batch, per channel: mean and biased variance.
pub struct BatchStats {
    pub mean: Tensor,
    pub var: Tensor,
    /// Values per channel (n h w), for the unbiased correction of running averages.
    pub count: usize,
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
    /// returns (y, mean, var), the statistics of shape (c).
    fn batch_norm_train(&self, gamma: &Tensor, beta: &Tensor, eps: f32) -> [Tensor; 3] {
        let d = norm_dims(self.shape());
        for t in [gamma, beta] {
            assert_eq!(
                t.shape(),
                [d.c],
                "batch_norm2d gamma and beta are per channel"
            );
        }
        let [y, mean, var] = dispatch_each!(self.storage(), gamma.storage(), beta.storage() =>
            |be, x, g, b| be.batch_norm_train(x, g, b, d, eps));
        [
            Tensor::from_storage(y, self.shape().to_vec()),
            Tensor::from_storage(mean, vec![d.c]),
            Tensor::from_storage(var, vec![d.c]),
        ]
    }

    /// The backward of [`Tensor::batch_norm_train`] given its output gradient `self`:
    /// [dx, dgamma, dbeta].
    fn batch_norm_train_grad(
        &self,
        x: &Tensor,
        mean: &Tensor,
        var: &Tensor,
        gamma: &Tensor,
        eps: f32,
    ) -> [Tensor; 3] {
        let d = norm_dims(x.shape());
        let [dx, dgamma, dbeta] = dispatch_each!(x.storage(), self.storage(), mean.storage(), var.storage(), gamma.storage() =>
            |be, x, g, m, v, ga| be.batch_norm_train_grad(x, g, m, v, ga, d, eps));
        [
            Tensor::from_storage(dx, x.shape().to_vec()),
            Tensor::from_storage(dgamma, vec![d.c]),
            Tensor::from_storage(dbeta, vec![d.c]),
        ]
    }
}

impl Var {
    /// Training mode: normalise with this batch's statistics, then scale by `gamma` and shift
    /// by `beta` (both (c)). Returns the statistics for the running averages.
    pub fn batch_norm2d_train(&self, gamma: &Var, beta: &Var, eps: f32) -> (Var, BatchStats) {
        let x = self.value().clone();
        let [y, mean, var] = x.batch_norm_train(gamma.value(), beta.value(), eps);
        let d = norm_dims(x.shape());
        let stats = BatchStats {
            mean: mean.clone(),
            var: var.clone(),
            count: d.count(),
        };
        let gamma_now = gamma.value().clone();
        let out = Var::record(&[self, gamma, beta], y, move |g, needs| {
            let [dx, dgamma, dbeta] = g.batch_norm_train_grad(&x, &mean, &var, &gamma_now, eps);
            vec![
                needs[0].then_some(dx),
                needs[1].then_some(dgamma),
                needs[2].then_some(dbeta),
            ]
        });
        (out, stats)
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
