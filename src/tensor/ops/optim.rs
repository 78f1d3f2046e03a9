//! Optimizer updates as kernels: the parameter and its state never leave the device.

use super::super::{Tensor, dispatch_each};
use crate::backend::{Backend, OptimStep};

impl Tensor {
    /// One optimizer step on this parameter given its gradient and state tensors (`s1`: SGD
    /// momentum or Adam's first moment; `s2`: Adam's second moment). Returns the new parameter
    /// and states, all shaped like the parameter.
    pub fn optim_step(
        &self,
        step: OptimStep,
        grad: &Tensor,
        s1: &Tensor,
        s2: &Tensor,
    ) -> [Tensor; 3] {
        for t in [grad, s1, s2] {
            assert_eq!(
                t.shape(),
                self.shape(),
                "optimizer state and gradient must match the parameter"
            );
        }
        let shape = self.shape().to_vec();
        let storages = dispatch_each!(self.storage(), grad.storage(), s1.storage(), s2.storage() =>
            |be, w, g, a, b| be.optim_step(step, w, g, a, b));
        storages.map(|s| Tensor::from_storage(s, shape.clone()))
    }
}
