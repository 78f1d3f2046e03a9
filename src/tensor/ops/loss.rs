//! Fused losses: one recorded op each, with the gradient in closed form.

use super::super::{Tensor, Var};

impl Var {
    /// Mean over the batch of the cross-entropy -sum_j t_j log softmax(z)_j, for logits z
    /// (batch, classes) and soft targets t of the same shape.
    /// d/dz = (softmax(z) sum_j t_j - t) / batch.
    pub fn cross_entropy_soft(&self, target: &Var) -> Var {
        assert_eq!(
            self.shape(),
            target.shape(),
            "cross-entropy logits and targets"
        );
        assert_eq!(
            self.value().rank(),
            2,
            "cross-entropy takes (batch, classes)"
        );
        let batch = self.shape()[0] as f32;
        let (z, t) = (self.value().clone(), target.value().clone());
        let log_p = z.log_softmax(-1);
        let loss = t.mul(&log_p).sum_all().mul_scalar(-1.0 / batch);
        Var::record(&[self, target], loss, move |g, needs| {
            let scale = g.mul_scalar(1.0 / batch);
            vec![
                needs[0].then(|| log_p.exp().mul(&t.sum_axis(-1, true)).sub(&t).mul(&scale)),
                needs[1].then(|| log_p.mul(&scale).neg()),
            ]
        })
    }

    /// Mean of (p - t)^2 over all elements. d/dp = 2 (p - t) / count.
    pub fn mse(&self, target: &Var) -> Var {
        assert_eq!(self.shape(), target.shape(), "mse prediction and target");
        let diff = self.value().sub(target.value());
        let count = diff.numel() as f32;
        let loss = diff.mul(&diff).mean_all();
        Var::record(&[self, target], loss, move |g, needs| {
            let dp = diff.mul(&g.mul_scalar(2.0 / count));
            vec![needs[0].then(|| dp.clone()), needs[1].then(|| dp.neg())]
        })
    }
}

/// The same losses on plain tensors (evaluation, no tape).
impl Tensor {
    pub fn cross_entropy_soft(&self, target: &Tensor) -> Tensor {
        Var::constant(self.clone())
            .cross_entropy_soft(&Var::constant(target.clone()))
            .into_value()
    }

    pub fn mse(&self, target: &Tensor) -> Tensor {
        Var::constant(self.clone())
            .mse(&Var::constant(target.clone()))
            .into_value()
    }
}
