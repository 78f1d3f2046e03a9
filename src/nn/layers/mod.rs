//! Layers: each a [`Module`](super::Module) holding its parameters, initialised like PyTorch's
//! defaults from a caller's seeded RNG.

mod activation;
mod batch_norm;
mod conv;
mod dark_conv;
mod fold;
mod linear;
mod residual;
mod sequential;

pub use activation::{Flatten, Relu, Reshape, Sigmoid, Tanh};
pub use batch_norm::BatchNorm2d;
pub use conv::Conv2d;
pub use dark_conv::{DarkConv, DarkInput, SQUARES, dark_cells};
pub use linear::Linear;
pub use residual::{BoardConv, ResidualBlock};
pub use sequential::Sequential;

use super::Param;
use crate::tensor::{Device, Tensor};
use rand::Rng;

/// PyTorch's default for linear and conv layers: kaiming-uniform with a = sqrt(5) for weights,
/// which is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and the same bound for biases.
fn uniform_fan_in(shape: &[usize], fan_in: usize, device: &Device, rng: &mut impl Rng) -> Param {
    Param::new(Tensor::uniform(
        shape,
        1.0 / (fan_in as f32).sqrt(),
        rng,
        device,
    ))
}
