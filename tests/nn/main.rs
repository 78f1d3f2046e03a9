//! Tests of the tensors, the autograd and the NN library (src/tensor, src/nn): gradients by
//! hand and against finite differences, the GPU kernels against the CPU, small learning
//! problems, optimizer updates, checkpoints, the policy-value network, its ONNX export run
//! in ONNX Runtime, and the Othello tower value network.

mod autograd_fd;
mod autograd_hand;
mod checkpoint;
#[path = "../common/mod.rs"]
mod common;
#[cfg(feature = "gpu")]
mod device;
mod digits;
#[cfg(feature = "gpu")]
mod gpu_budget;
#[cfg(feature = "gpu")]
mod gpu_mixed;
#[cfg(feature = "gpu")]
mod gpu_parity;
#[cfg(feature = "gpu")]
mod gpu_winograd;
mod gradcheck;
mod layers;
mod onnx;
mod optim;
mod othello_value;
mod policy_value;
mod taps;
mod xor;

use checkers_zero::nn::{BatchNorm2d, Ctx, Module, Param};
use checkers_zero::tensor::{Device, Tensor, Var};
use rand::SeedableRng;
use rand::rngs::StdRng;

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

pub fn cpu() -> Device {
    Device::Cpu
}

pub fn tensor(data: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(data.to_vec(), shape, &Device::Cpu)
}

/// |a - b| <= max(rtol * max(|a|, |b|), atol), elementwise.
pub fn assert_close(got: &[f32], want: &[f32], rtol: f32, atol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
        let tol = (rtol * a.abs().max(b.abs())).max(atol);
        assert!(
            (a - b).abs() <= tol,
            "{what}[{i}]: {a} vs {b} (tolerance {tol})"
        );
    }
}

/// The parameters' current values, in visit order.
pub fn param_values<M: Module + ?Sized>(m: &M) -> Vec<Vec<f32>> {
    let mut out = Vec::new();
    m.params(&mut |p: &Param| out.push(p.value().to_vec()));
    out
}

/// A batch norm of `channels` far from the identity (which a fold that went wrong, or none,
/// would pass): training forwards of `output(seed)` for three seeds move its running
/// statistics, then gamma and beta are drawn at random; left in evaluation mode.
pub fn moved_batch_norm(channels: usize, output: impl Fn(u64) -> Var) -> BatchNorm2d {
    let dev = cpu();
    let mut bn = BatchNorm2d::new(channels, &dev);
    for seed in 0..3 {
        bn.forward(&Ctx::inference(), &output(seed));
    }
    let mut seed = 10;
    bn.params_mut(&mut |p| {
        p.set(Tensor::randn(p.shape(), 1.0, &mut rng(seed), &dev));
        seed += 1;
    });
    bn.set_train(false);
    bn
}
