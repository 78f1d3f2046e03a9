//! Fused losses: one recorded op each, the loss and its gradient from one kernel
//! (`Backend::softmax_xent`, `Backend::squared_error`), so a training step's loss costs a
//! launch, a sum and, backwards, one product with the incoming gradient.

use super::super::{Tensor, Var, dispatch_each};
use crate::backend::Backend;

impl Tensor {
    /// [loss per row (rows), gradient (rows, classes)] of the softmax cross-entropy of
    /// logits (rows, classes) against soft targets of the same shape, both scaled by `scale`.
    fn softmax_xent(&self, target: &Tensor, scale: f32) -> [Tensor; 2] {
        let (rows, cols) = (self.shape()[0], self.shape()[1]);
        let [loss, grad] = dispatch_each!(self.storage(), target.storage() =>
            |be, z, t| be.softmax_xent(z, t, rows, cols, scale));
        [
            Tensor::from_storage(loss, vec![rows]),
            Tensor::from_storage(grad, self.shape().to_vec()),
        ]
    }

    /// [scale (p - t)^2, 2 scale (p - t)], elementwise, shaped like `self`.
    fn squared_error(&self, target: &Tensor, scale: f32) -> [Tensor; 2] {
        let [loss, grad] = dispatch_each!(self.storage(), target.storage() =>
            |be, p, t| be.squared_error(p, t, scale));
        [loss, grad].map(|s| Tensor::from_storage(s, self.shape().to_vec()))
    }
}

impl Var {
    /// Mean over the batch of the cross-entropy -sum_j t_j log softmax(z)_j, for logits z
    /// (batch, classes) and soft targets t of the same shape.
    /// d/dz = (softmax(z) sum_j t_j - t) / batch; d/dt = -log softmax(z) / batch.
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
        let z = self.value().clone();
        let [rows, dz] = z.softmax_xent(target.value(), 1.0 / batch);
        Var::record(&[self, target], rows.sum_all(), move |g, needs| {
            vec![
                needs[0].then(|| dz.mul(g)),
                // Targets are data in training: this rarely runs.
                needs[1].then(|| z.log_softmax(-1).mul(&g.mul_scalar(-1.0 / batch))),
            ]
        })
    }

    /// Mean of (p - t)^2 over all elements. d/dp = 2 (p - t) / count = -d/dt.
    pub fn mse(&self, target: &Var) -> Var {
        assert_eq!(self.shape(), target.shape(), "mse prediction and target");
        let count = self.value().numel() as f32;
        let [squares, dp] = self.value().squared_error(target.value(), 1.0 / count);
        Var::record(&[self, target], squares.sum_all(), move |g, needs| {
            let dp = dp.mul(g);
            let dt = needs[1].then(|| dp.neg());
            vec![needs[0].then_some(dp), dt]
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
