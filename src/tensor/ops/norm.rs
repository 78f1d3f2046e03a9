//! 2-D batch normalisation over (n, c, h, w): per channel, over the batch and the plane.
//!
//! Training mode is one recorded op with the closed-form backward (about 7 passes over the
//! data instead of the ~20 that differentiating its composition op by op would take):
//! with m = n h w values per channel, x^ = (x - mean) / sqrt(var + eps) and y = gamma x^ + beta,
//!   dbeta = sum g,  dgamma = sum g x^,  dx = gamma / sqrt(var + eps) (g - dbeta/m - x^ dgamma/m).
//! Evaluation mode is a per-channel affine map of recorded ops.

use super::super::{Tensor, Var};

/// The statistics of one training batch, per channel: mean and biased variance.
pub struct BatchStats {
    pub mean: Tensor,
    pub var: Tensor,
    /// Values per channel (n h w), for the unbiased correction of running averages.
    pub count: usize,
}

fn dims(shape: &[usize]) -> [usize; 4] {
    let [n, c, h, w] = *shape else {
        panic!("batch_norm2d takes (n, c, h, w), got {shape:?}")
    };
    [n, c, h, w]
}

/// Per-channel sum of (n, c, h, w) as (1, c, 1, 1).
fn channel_sum(x: &Tensor) -> Tensor {
    let [n, c, h, w] = dims(x.shape());
    x.reshape(&[n, c, h * w])
        .sum_axis(2, false)
        .sum_axis(0, false)
        .reshape(&[1, c, 1, 1])
}

fn per_channel(t: &Var) -> Var {
    let c = t.value().numel();
    t.reshape(&[1, c, 1, 1])
}

impl Var {
    /// Training mode: normalise with this batch's statistics, then scale by `gamma` and shift
    /// by `beta` (both (c)). Returns the statistics for the running averages.
    pub fn batch_norm2d_train(&self, gamma: &Var, beta: &Var, eps: f32) -> (Var, BatchStats) {
        let [n, c, h, w] = dims(self.shape());
        let m = (n * h * w) as f32;
        let x = self.value();
        let mean = channel_sum(x).mul_scalar(1.0 / m);
        let centred = x.sub(&mean);
        let var = channel_sum(&centred.mul(&centred)).mul_scalar(1.0 / m);
        let inv_std = var.add_scalar(eps).pow_scalar(-0.5);
        let xhat = centred.mul(&inv_std);
        let g4 = gamma.value().reshape(&[1, c, 1, 1]);
        let y = xhat.mul(&g4).add(&beta.value().reshape(&[1, c, 1, 1]));
        let stats = BatchStats {
            mean: mean.reshape(&[c]),
            var: var.reshape(&[c]),
            count: n * h * w,
        };
        let out = Var::record(&[self, gamma, beta], y, move |g, needs| {
            let dbeta = channel_sum(g);
            let dgamma = channel_sum(&g.mul(&xhat));
            let dx = needs[0].then(|| {
                let centred_g = g
                    .sub(&dbeta.mul_scalar(1.0 / m))
                    .sub(&xhat.mul(&dgamma.mul_scalar(1.0 / m)));
                centred_g.mul(&g4.mul(&inv_std))
            });
            vec![
                dx,
                needs[1].then(|| dgamma.reshape(&[c])),
                needs[2].then(|| dbeta.reshape(&[c])),
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
