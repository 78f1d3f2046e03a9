//! Optimizer updates as kernels: the parameters and their state never leave the device.

use super::super::{Storage, Tensor};
use crate::backend::{Backend, OptimStep, cpu::Cpu};

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
        let [new] = Tensor::optim_step_all(step, &[[self, grad, s1, s2]])
            .try_into()
            .expect("one parameter in, one out");
        new
    }

    /// [`Tensor::optim_step`] on many parameters at once, each [w, grad, s1, s2]: one kernel
    /// for all of them on a GPU. All on one device.
    pub fn optim_step_all(step: OptimStep, params: &[[&Tensor; 4]]) -> Vec<[Tensor; 3]> {
        for [w, rest @ ..] in params {
            for t in rest {
                assert_eq!(
                    t.shape(),
                    w.shape(),
                    "optimizer state and gradient must match the parameter"
                );
            }
        }
        let Some(first) = params.first() else {
            return Vec::new();
        };
        let storages: Vec<[Storage; 3]> = match first[0].storage() {
            Storage::Cpu(_) => {
                let bufs: Vec<[_; 4]> = params
                    .iter()
                    .map(|p| {
                        p.map(|t| match t.storage() {
                            Storage::Cpu(b) => b,
                            #[cfg(feature = "gpu")]
                            Storage::Gpu(_) => super::super::device_mismatch(),
                        })
                    })
                    .collect();
                (Cpu.optim_step_all(step, &bufs).into_iter())
                    .map(|new| new.map(Storage::Cpu))
                    .collect()
            }
            #[cfg(feature = "gpu")]
            Storage::Gpu(g) => {
                let bufs: Vec<[_; 4]> = params
                    .iter()
                    .map(|p| {
                        p.map(|t| match t.storage() {
                            Storage::Gpu(b) => b,
                            Storage::Cpu(_) => super::super::device_mismatch(),
                        })
                    })
                    .collect();
                (g.gpu().optim_step_all(step, &bufs).into_iter())
                    .map(|new| new.map(Storage::Gpu))
                    .collect()
            }
        };
        params
            .iter()
            .zip(storages)
            .map(|(p, new)| new.map(|s| Tensor::from_storage(s, p[0].shape().to_vec())))
            .collect()
    }
}
