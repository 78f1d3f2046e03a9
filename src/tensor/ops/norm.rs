//! 2-D batch normalisation over (n, c, h, w): per channel, over the batch and the plane.
//! Composed from recorded ops, so its backward is theirs.

use super::super::{Tensor, Var};

/// The statistics of one training batch, per channel: mean and biased variance.
pub struct BatchStats {
    pub mean: Tensor,
    pub var: Tensor,
    /// Values per channel (n h w), for the unbiased correction of running averages.
    pub count: usize,
}

/// Per-channel mean of (n, c, h, w) as (1, c, 1, 1).
fn channel_mean(x: &Var) -> Var {
    let [n, c, h, w] = *x.shape() else { panic!("batch_norm2d takes (n, c, h, w), got {:?}", x.shape()) };
    x.reshape(&[n, c, h * w]).sum_axis(2, true).sum_axis(0, true).reshape(&[1, c, 1, 1]).mul_scalar(1.0 / (n * h * w) as f32)
}

fn per_channel(t: &Var) -> Var {
    let c = t.value().numel();
    t.reshape(&[1, c, 1, 1])
}

impl Var {
    /// Training mode: normalise with this batch's statistics, then scale by `gamma` and shift
    /// by `beta` (both (c)). Returns the statistics for the running averages.
    pub fn batch_norm2d_train(&self, gamma: &Var, beta: &Var, eps: f32) -> (Var, BatchStats) {
        let [n, c, h, w] = *self.shape() else { panic!("batch_norm2d takes (n, c, h, w), got {:?}", self.shape()) };
        let mean = channel_mean(self);
        let centred = self.sub(&mean);
        let var = channel_mean(&centred.mul(&centred));
        let inv_std = var.add_scalar(eps).pow_scalar(-0.5);
        let y = centred.mul(&inv_std).mul(&per_channel(gamma)).add(&per_channel(beta));
        let stats = BatchStats { mean: mean.value().reshape(&[c]), var: var.value().reshape(&[c]), count: n * h * w };
        (y, stats)
    }

    /// Evaluation mode: normalise with given (running) statistics.
    pub fn batch_norm2d_eval(&self, gamma: &Var, beta: &Var, mean: &Tensor, var: &Tensor, eps: f32) -> Var {
        let inv_std = Var::constant(var.add_scalar(eps).pow_scalar(-0.5));
        let scale = per_channel(&gamma.mul(&inv_std));
        let shift = per_channel(&beta.sub(&Var::constant(mean.clone()).mul(&gamma.mul(&inv_std))));
        self.mul(&scale).add(&shift)
    }
}
