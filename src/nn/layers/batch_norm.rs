//! Batch normalisation over (n, c, h, w) with PyTorch's semantics: training mode normalises with
//! the batch's statistics and folds them into running averages (momentum 0.1, the variance
//! unbiased); evaluation mode normalises with the running averages.

use crate::nn::{Ctx, Module, Param};
use crate::tensor::{Device, RunningStats, Tensor, Var};
use std::sync::{Mutex, MutexGuard, PoisonError};

pub struct BatchNorm2d {
    gamma: Param,
    beta: Param,
    /// Updated by a training forward, which takes `&self`.
    running: Mutex<Running>,
    training: bool,
}

#[derive(Clone)]
struct Running {
    mean: Tensor,
    var: Tensor,
}

/// What an evaluation-mode batch norm computes with:
/// y = (x - mean) / sqrt(var + eps) * gamma + beta, per channel.
pub(crate) struct EvalState<'a> {
    pub gamma: &'a Tensor,
    pub beta: &'a Tensor,
    pub mean: &'a Tensor,
    pub var: &'a Tensor,
}

impl EvalState<'_> {
    /// The per-channel map as (scale, shift) of shape (c): y = x scale + shift.
    pub fn affine(&self) -> (Tensor, Tensor) {
        let scale = self.gamma.mul(&self.var.add_scalar(EPS).pow_scalar(-0.5));
        let shift = self.beta.sub(&self.mean.mul(&scale));
        (scale, shift)
    }
}

const MOMENTUM: f32 = 0.1;
const EPS: f32 = 1e-5;

impl BatchNorm2d {
    pub fn new(channels: usize, device: &Device) -> BatchNorm2d {
        BatchNorm2d {
            gamma: Param::new(Tensor::ones(&[channels], device)),
            beta: Param::new(Tensor::zeros(&[channels], device)),
            running: Mutex::new(Running {
                mean: Tensor::zeros(&[channels], device),
                var: Tensor::ones(&[channels], device),
            }),
            training: true,
        }
    }

    /// The running mean and variance.
    pub fn running_stats(&self) -> (Tensor, Tensor) {
        let r = self.running();
        (r.mean.clone(), r.var.clone())
    }

    /// In evaluation mode, `f` of the tensors the layer normalises with (borrowed, the running
    /// statistics under their lock); `None` in training mode.
    pub(crate) fn with_eval_state<R>(&self, f: impl FnOnce(EvalState<'_>) -> R) -> Option<R> {
        if self.training {
            return None;
        }
        let r = self.running();
        Some(f(EvalState {
            gamma: self.gamma.value(),
            beta: self.beta.value(),
            mean: &r.mean,
            var: &r.var,
        }))
    }

    fn running(&self) -> MutexGuard<'_, Running> {
        // The guarded tensors are replaced whole, so a panic elsewhere cannot leave them torn.
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn running_mut(&mut self) -> &mut Running {
        self.running
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Clone for BatchNorm2d {
    fn clone(&self) -> BatchNorm2d {
        BatchNorm2d {
            gamma: self.gamma.clone(),
            beta: self.beta.clone(),
            running: Mutex::new(self.running().clone()),
            training: self.training,
        }
    }
}

impl std::fmt::Debug for BatchNorm2d {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "BatchNorm2d({}, training: {})",
            self.gamma.shape()[0],
            self.training
        )
    }
}

impl BatchNorm2d {
    /// The layer, then a ReLU when `relu` (in training mode fused into the batch norm's own
    /// passes).
    pub fn forward_relu(&self, ctx: &Ctx, x: &Var, relu: bool) -> Var {
        if !self.training {
            let (gamma, beta) = (ctx.param(&self.gamma), ctx.param(&self.beta));
            let r = self.running().clone();
            let y = x.batch_norm2d_eval(&gamma, &beta, &r.mean, &r.var, EPS);
            return if relu { y.relu() } else { y };
        }
        self.train_with(ctx, |gamma, beta, running, eps| {
            x.batch_norm2d_train(gamma, beta, running, relu, eps)
        })
    }

    /// A training forward made by `f` from gamma, beta and the running averages (returning
    /// the output and the averages moved), which become the layer's: the batch norm itself, or
    /// one fused with the convolution before it.
    pub(crate) fn train_with(
        &self,
        ctx: &Ctx,
        f: impl FnOnce(&Var, &Var, &RunningStats, f32) -> (Var, RunningStats),
    ) -> Var {
        let (gamma, beta) = (ctx.param(&self.gamma), ctx.param(&self.beta));
        let mut r = self.running();
        let running = RunningStats {
            mean: r.mean.clone(),
            var: r.var.clone(),
            momentum: MOMENTUM,
        };
        let (y, moved) = f(&gamma, &beta, &running, EPS);
        (r.mean, r.var) = (moved.mean, moved.var);
        y
    }

    pub(crate) fn is_training(&self) -> bool {
        self.training
    }
}

impl Module for BatchNorm2d {
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        self.forward_relu(ctx, x, false)
    }

    fn params(&self, f: &mut dyn FnMut(&Param)) {
        f(&self.gamma);
        f(&self.beta);
    }

    fn params_mut(&mut self, f: &mut dyn FnMut(&mut Param)) {
        f(&mut self.gamma);
        f(&mut self.beta);
    }

    fn buffers(&self, f: &mut dyn FnMut(&Tensor)) {
        let r = self.running();
        f(&r.mean);
        f(&r.var);
    }

    fn buffers_mut(&mut self, f: &mut dyn FnMut(&mut Tensor)) {
        let r = self.running_mut();
        f(&mut r.mean);
        f(&mut r.var);
    }

    fn set_train(&mut self, train: bool) {
        self.training = train;
    }
}
