//! Optimizer updates as kernels: the parameters and their state never leave the device.

use super::super::{Storage, Tensor, device_mismatch};
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
        let storages = match first[0].storage() {
            Storage::Cpu(_) => step_all_on(&Cpu, step, params, Storage::Cpu, |s| match s {
                Storage::Cpu(b) => Some(b),
                #[cfg(feature = "gpu")]
                Storage::Gpu(_) => None,
            }),
            #[cfg(feature = "gpu")]
            Storage::Gpu(g) => step_all_on(g.gpu(), step, params, Storage::Gpu, |s| match s {
                Storage::Gpu(b) => Some(b),
                Storage::Cpu(_) => None,
            }),
        };
        params
            .iter()
            .zip(storages)
            .map(|(p, new)| new.map(|s| Tensor::from_storage(s, p[0].shape().to_vec())))
            .collect()
    }
}

/// `optim_step_all` on one backend: `buf` finds each tensor's buffer there (none: a tensor on
/// another device), `wrap` makes the results storages again.
fn step_all_on<B: Backend>(
    be: &B,
    step: OptimStep,
    params: &[[&Tensor; 4]],
    wrap: impl Fn(B::Buf) -> Storage,
    buf: impl Fn(&Storage) -> Option<&B::Buf>,
) -> Vec<[Storage; 3]> {
    let bufs: Vec<[&B::Buf; 4]> = params
        .iter()
        .map(|p| p.map(|t| buf(t.storage()).unwrap_or_else(|| device_mismatch())))
        .collect();
    (be.optim_step_all(step, &bufs).into_iter())
        .map(|new| new.map(&wrap))
        .collect()
}
