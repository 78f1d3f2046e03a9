//! The neural-network library, built only on the tape's [`Tensor`](crate::tensor::Tensor) and
//! [`Var`](crate::tensor::Var) ops, so every model runs on whichever device holds its parameters.
//!
//! A training step:
//! ```
//! use checkers_zero::nn::{Ctx, Module, NetPreset, Optimizer, PolicyValueNet, Architecture, alphazero_loss};
//! use checkers_zero::tensor::{Device, Tensor, Var};
//! use rand::{SeedableRng, rngs::StdRng};
//!
//! let dev = Device::Cpu;
//! let mut rng = StdRng::seed_from_u64(0);
//! let mut net = PolicyValueNet::new(Architecture::preset(NetPreset::AzTiny), &dev, &mut rng);
//! let mut opt = Optimizer::sgd(0.01, 0.9, 1e-4, &net);
//! let x = Tensor::randn(&[4, 8, 8, 8], 1.0, &mut rng, &dev);
//! let pi = Tensor::full(&[4, 128], 1.0 / 128.0, &dev);
//! let z = Tensor::zeros(&[4], &dev);
//!
//! let ctx = Ctx::training();
//! let (logits, v) = net.forward(&ctx, &Var::constant(x));
//! let loss = alphazero_loss(&logits, &v, &pi, &z);
//! let grads = ctx.param_grads(&net, &loss.total.backward());
//! opt.step(&mut net, &grads);
//! println!("policy {} value {}", loss.policy.item(), loss.value.item());
//! ```

mod checkpoint;
mod layers;
mod loss;
mod loss_scale;
mod module;
mod onnx;
mod optim;
mod policy_value;
mod schedule;

/// For the tests of records that change layout between versions.
#[cfg(test)]
pub(crate) use checkpoint::decode_as_of;
pub use checkpoint::{
    Checkpoint, CheckpointError, CheckpointKind, FORMAT_VERSION, MAGIC, TensorData, checksum,
    declared_kind, read_header,
};
pub(crate) use checkpoint::{NO_AHEAD_VERSION, NO_AVERAGE_VERSION, decoding_version};
pub use layers::{
    BatchNorm2d, Conv2d, DarkConv, DarkInput, Flatten, Linear, Relu, Reshape, ResidualBlock,
    Sequential, Sigmoid, Tanh,
};
pub use loss::{AlphaZeroLoss, alphazero_loss, cross_entropy_soft, masked_mse, mse};
pub use loss_scale::{LossScale, step_reading};
/// For composite modules outside `nn` (the game networks of `crate::net`).
pub(crate) use module::visit_parts;
pub use module::{Ctx, Module, Param, ParamId, flat_params, set_flat_params};
pub use optim::{OptimConfig, Optimizer, OptimizerState};
pub use policy_value::{
    Architecture, Body, NetPreset, ONNX_INPUT, ONNX_POLICY, ONNX_VALUE, POLICY_SIZE, PolicyHead,
    PolicyValueNet, dark_square_index,
};
pub use schedule::LrSchedule;
