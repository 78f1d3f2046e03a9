//! Optimizer updates as kernels: the parameters and their state never leave the device.

use super::super::{Device, Storage, Tensor, device_mismatch};
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
        stepped(step, params, None).0
    }

    /// [`Tensor::optim_step_all`] on gradients scaled by a loss scale: each is multiplied by
    /// `unscale` (the scale's inverse), and the step is taken only where every gradient entry
    /// is finite (else the parameters and states come back as they were), decided on the
    /// device. Also returns the check: the sum of the scaled gradients, one value, finite
    /// exactly when the step was taken.
    pub fn optim_step_all_scaled(
        step: OptimStep,
        params: &[[&Tensor; 4]],
        unscale: f32,
    ) -> (Vec<[Tensor; 3]>, Tensor) {
        let (new, check) = stepped(step, params, Some(unscale));
        // Without parameters nothing was scaled, so nothing overflowed.
        (
            new,
            check.unwrap_or_else(|| Tensor::zeros(&[1], &Device::Cpu)),
        )
    }
}

/// The step on `params`, on gradients scaled by the inverse of `unscale` where given: the new
/// [w, s1, s2] of each, and the check of a scaled step (None without parameters).
fn stepped(
    step: OptimStep,
    params: &[[&Tensor; 4]],
    unscale: Option<f32>,
) -> (Vec<[Tensor; 3]>, Option<Tensor>) {
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
        return (Vec::new(), None);
    };
    let (storages, check) = match first[0].storage() {
        Storage::Cpu(_) => step_all_on(&Cpu, step, params, unscale, Storage::Cpu, |s| match s {
            Storage::Cpu(b) => Some(b),
            #[cfg(feature = "gpu")]
            Storage::Gpu(_) => None,
        }),
        #[cfg(feature = "gpu")]
        Storage::Gpu(g) => step_all_on(g.gpu(), step, params, unscale, Storage::Gpu, |s| match s {
            Storage::Gpu(b) => Some(b),
            Storage::Cpu(_) => None,
        }),
    };
    let new = params
        .iter()
        .zip(storages)
        .map(|(p, new)| new.map(|s| Tensor::from_storage(s, p[0].shape().to_vec())))
        .collect();
    (new, check.map(|c| Tensor::from_storage(c, vec![1])))
}

/// `stepped` on one backend: `buf` finds each tensor's buffer there (none: a tensor on
/// another device), `wrap` makes the results storages again.
fn step_all_on<B: Backend>(
    be: &B,
    step: OptimStep,
    params: &[[&Tensor; 4]],
    unscale: Option<f32>,
    wrap: impl Fn(B::Buf) -> Storage,
    buf: impl Fn(&Storage) -> Option<&B::Buf>,
) -> (Vec<[Storage; 3]>, Option<Storage>) {
    let bufs: Vec<[&B::Buf; 4]> = params
        .iter()
        .map(|p| p.map(|t| buf(t.storage()).unwrap_or_else(|| device_mismatch())))
        .collect();
    let (new, check) = match unscale {
        None => (be.optim_step_all(step, &bufs), None),
        Some(unscale) => {
            let (new, check) = be.optim_step_all_scaled(step, &bufs, unscale);
            (new, Some(check))
        }
    };
    let new = new.into_iter().map(|new| new.map(&wrap)).collect();
    (new, check.map(wrap))
}
