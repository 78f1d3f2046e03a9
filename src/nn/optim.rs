//! Optimizers: SGD with momentum and Adam, both with L2 weight decay added to the gradient (as
//! PyTorch's `weight_decay`). State lives beside each parameter on its device and a step updates
//! every parameter through one `Tensor::optim_step_all` (one kernel on a GPU), so nothing is
//! read back.

use super::Module;
use super::checkpoint::{CheckpointError, TensorData, upload_all};
use crate::backend::OptimStep;
use crate::tensor::Tensor;
use serde::{Deserialize, Serialize};

/// The optimizer and its hyperparameters other than the learning rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum OptimConfig {
    Sgd {
        momentum: f32,
        weight_decay: f32,
    },
    Adam {
        beta1: f32,
        beta2: f32,
        eps: f32,
        weight_decay: f32,
    },
}

impl OptimConfig {
    /// Adam with PyTorch's defaults (betas 0.9, 0.999; eps 1e-8).
    pub fn adam(weight_decay: f32) -> OptimConfig {
        OptimConfig::Adam {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay,
        }
    }
}

/// An optimizer for one module: its state is kept per parameter in the module's visit order.
pub struct Optimizer {
    config: OptimConfig,
    lr: f32,
    steps: u32,
    /// SGD's momentum buffers, or Adam's first moments.
    first: Vec<Tensor>,
    /// Adam's second moments; empty for SGD.
    second: Vec<Tensor>,
}

/// An optimizer's state on the host, for checkpoints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptimizerState {
    pub config: OptimConfig,
    pub lr: f32,
    pub steps: u32,
    pub first: Vec<TensorData>,
    pub second: Vec<TensorData>,
}

fn zeros_like_params<M: Module + ?Sized>(model: &M) -> Vec<Tensor> {
    let mut out = Vec::new();
    model.params(&mut |p| out.push(Tensor::zeros(p.shape(), &p.value().device())));
    out
}

impl Optimizer {
    pub fn new<M: Module + ?Sized>(config: OptimConfig, lr: f32, model: &M) -> Optimizer {
        let first = zeros_like_params(model);
        let second = match config {
            OptimConfig::Sgd { .. } => Vec::new(),
            OptimConfig::Adam { .. } => zeros_like_params(model),
        };
        Optimizer {
            config,
            lr,
            steps: 0,
            first,
            second,
        }
    }

    pub fn sgd<M: Module + ?Sized>(
        lr: f32,
        momentum: f32,
        weight_decay: f32,
        model: &M,
    ) -> Optimizer {
        Optimizer::new(
            OptimConfig::Sgd {
                momentum,
                weight_decay,
            },
            lr,
            model,
        )
    }

    pub fn adam<M: Module + ?Sized>(lr: f32, weight_decay: f32, model: &M) -> Optimizer {
        Optimizer::new(OptimConfig::adam(weight_decay), lr, model)
    }

    pub fn config(&self) -> OptimConfig {
        self.config
    }

    pub fn lr(&self) -> f32 {
        self.lr
    }

    /// Sets the learning rate of the following steps (from an `LrSchedule`).
    pub fn set_lr(&mut self, lr: f32) {
        self.lr = lr;
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// Updates each parameter that has a gradient (`grads` in visit order, as
    /// [`Ctx::param_grads`](super::Ctx::param_grads) returns them); the others are left alone.
    pub fn step<M: Module + ?Sized>(&mut self, model: &mut M, grads: &[Option<Tensor>]) {
        self.step_with(model, grads, None);
    }

    /// [`Optimizer::step`] on gradients of a loss scaled by a loss scale: each gradient is
    /// multiplied by `unscale` (the scale's inverse) as the step reads it, and the step is
    /// taken on the device only where every entry is finite. Returns the check, one value,
    /// finite exactly when it was taken; where it was not, [`Optimizer::not_taken`] must say
    /// so before the next step (the parameters and state are as they were, but the step was
    /// counted).
    pub fn step_scaled<M: Module + ?Sized>(
        &mut self,
        model: &mut M,
        grads: &[Option<Tensor>],
        unscale: f32,
    ) -> Tensor {
        self.step_with(model, grads, Some(unscale))
            .expect("a scaled step has a check")
    }

    /// A scaled step's check was not finite: the device left everything as it was, so the
    /// step does not count (Adam's bias corrections follow the steps taken).
    pub fn not_taken(&mut self) {
        self.steps = self.steps.saturating_sub(1);
    }

    fn step_with<M: Module + ?Sized>(
        &mut self,
        model: &mut M,
        grads: &[Option<Tensor>],
        unscale: Option<f32>,
    ) -> Option<Tensor> {
        assert_eq!(
            grads.len(),
            self.first.len(),
            "gradients for {} parameters, the optimizer has {}",
            grads.len(),
            self.first.len()
        );
        self.steps += 1;
        let lr = self.lr;
        let step = match self.config {
            OptimConfig::Sgd {
                momentum,
                weight_decay,
            } => OptimStep::Sgd {
                lr,
                momentum,
                weight_decay,
            },
            OptimConfig::Adam {
                beta1,
                beta2,
                eps,
                weight_decay,
            } => OptimStep::Adam {
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                t: self.steps,
            },
        };
        let mut values = Vec::new();
        model.params(&mut |p| values.push(p.value().clone()));
        let stepped: Vec<usize> = (0..grads.len()).filter(|&i| grads[i].is_some()).collect();
        let operands: Vec<[&Tensor; 4]> = stepped
            .iter()
            .filter_map(|&i| {
                let s1 = &self.first[i];
                // SGD has no second state; the kernel hands its s2 back untouched.
                let s2 = self.second.get(i).unwrap_or(s1);
                Some([&values[i], grads[i].as_ref()?, s1, s2])
            })
            .collect();
        let (results, check) = match unscale {
            None => (Tensor::optim_step_all(step, &operands), None),
            Some(unscale) => {
                let (results, check) = Tensor::optim_step_all_scaled(step, &operands, unscale);
                (results, Some(check))
            }
        };
        // The old values go as each parameter is replaced, not all at the end.
        drop(operands);
        drop(values);
        let mut new = stepped.iter().zip(results).peekable();
        let mut i = 0;
        model.params_mut(&mut |p| {
            if let Some((_, [w, n1, n2])) = new.next_if(|(j, _)| **j == i) {
                p.set(w);
                self.first[i] = n1;
                if !self.second.is_empty() {
                    self.second[i] = n2;
                }
            }
            i += 1;
        });
        check
    }

    /// Downloads the state.
    pub fn state(&self) -> OptimizerState {
        OptimizerState {
            config: self.config,
            lr: self.lr,
            steps: self.steps,
            first: self.first.iter().map(TensorData::from_tensor).collect(),
            second: self.second.iter().map(TensorData::from_tensor).collect(),
        }
    }

    /// Rebuilds an optimizer for `model` from a saved state, each tensor on its parameter's
    /// device; the state must match the model's parameters one for one.
    pub fn from_state<M: Module + ?Sized>(
        state: &OptimizerState,
        model: &M,
    ) -> Result<Optimizer, CheckpointError> {
        let mut want = Vec::new();
        model.params(&mut |p| want.push((p.shape().to_vec(), p.value().device())));
        let second = match state.config {
            OptimConfig::Sgd { .. } => upload_all(&state.second, &[], "SGD second moment")?,
            OptimConfig::Adam { .. } => upload_all(&state.second, &want, "Adam second moment")?,
        };
        let first = upload_all(&state.first, &want, "optimizer state")?;
        Ok(Optimizer {
            config: state.config,
            lr: state.lr,
            steps: state.steps,
            first,
            second,
        })
    }
}
