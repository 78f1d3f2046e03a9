//! Tensors, the tape, and the ops.
//!
//! A [`Tensor`] is an immutable, contiguous f32 array of up to 4 dimensions (NCHW for images)
//! on one device; ops on tensors compute and record nothing. A [`Var`] is a tensor that may be
//! tracked by a [`Tape`]: ops on tracked vars record how to send gradients back, and
//! [`Var::backward`] does so in reverse order. Each op's shape rule, forward and backward sit
//! together in one file under `ops/`; its kernels are in `backend/cpu/` and `shaders/`.

pub mod ops;
mod shape;
mod tape;

pub use shape::{broadcast_shapes, numel};
pub use tape::{Gradients, Tape, Var};

use crate::backend::Backend;
use crate::backend::cpu::{Cpu, CpuBuf};
use rand::Rng;
use rand_distr::StandardNormal;

/// Where a tensor's data lives.
#[derive(Clone, Debug)]
pub enum Device {
    Cpu,
}

impl Device {
    pub fn name(&self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
        }
    }
}

/// A tensor's data on its device.
#[derive(Clone, Debug)]
pub enum Storage {
    Cpu(CpuBuf),
}

/// Runs `$body` with `$be` bound to the backend of the first storage and each name bound to
/// that backend's buffer; the body's buffer result is wrapped back into a `Storage`. Mixing
/// devices is a programming error and panics. Adding a backend means adding an arm here.
macro_rules! dispatch {
    ($first:expr $(, $rest:expr)* => |$be:ident, $f:ident $(, $r:ident)*| $body:expr) => {
        match $first {
            $crate::tensor::Storage::Cpu($f) => {
                let $be = &$crate::backend::cpu::Cpu;
                $(
                    #[allow(irrefutable_let_patterns)]
                    let $crate::tensor::Storage::Cpu($r) = $rest else {
                        $crate::tensor::device_mismatch()
                    };
                )*
                $crate::tensor::Storage::Cpu($body)
            }
        }
    };
}
pub(crate) use dispatch;

#[cold]
pub(crate) fn device_mismatch() -> ! {
    panic!("tensors on different devices were combined; move them with Tensor::to_device first")
}

#[derive(Clone)]
pub struct Tensor {
    shape: Vec<usize>,
    storage: Storage,
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tensor{:?} on {}", self.shape, self.device().name())
    }
}

impl Tensor {
    pub(crate) fn from_storage(storage: Storage, shape: Vec<usize>) -> Tensor {
        assert!(shape.len() <= 4, "tensors have at most 4 dimensions, got shape {shape:?}");
        Tensor { shape, storage }
    }

    /// A tensor from row-major data.
    pub fn from_vec(data: Vec<f32>, shape: &[usize], device: &Device) -> Tensor {
        assert_eq!(data.len(), numel(shape), "data length {} does not fill shape {shape:?}", data.len());
        let storage = match device {
            Device::Cpu => Storage::Cpu(CpuBuf::new(data)),
        };
        Tensor::from_storage(storage, shape.to_vec())
    }

    pub fn full(shape: &[usize], value: f32, device: &Device) -> Tensor {
        let storage = match device {
            Device::Cpu => Storage::Cpu(Cpu.filled(numel(shape), value)),
        };
        Tensor::from_storage(storage, shape.to_vec())
    }

    pub fn zeros(shape: &[usize], device: &Device) -> Tensor {
        Tensor::full(shape, 0.0, device)
    }

    pub fn ones(shape: &[usize], device: &Device) -> Tensor {
        Tensor::full(shape, 1.0, device)
    }

    pub fn scalar(value: f32, device: &Device) -> Tensor {
        Tensor::full(&[], value, device)
    }

    /// Normal samples with mean 0 and standard deviation `std`.
    pub fn randn(shape: &[usize], std: f32, rng: &mut impl Rng, device: &Device) -> Tensor {
        let data = (0..numel(shape)).map(|_| std * rng.sample::<f32, _>(StandardNormal)).collect();
        Tensor::from_vec(data, shape, device)
    }

    /// Uniform samples in [-bound, bound).
    pub fn uniform(shape: &[usize], bound: f32, rng: &mut impl Rng, device: &Device) -> Tensor {
        let data = (0..numel(shape)).map(|_| rng.random_range(-bound..bound)).collect();
        Tensor::from_vec(data, shape, device)
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    pub fn numel(&self) -> usize {
        numel(&self.shape)
    }

    pub(crate) fn storage(&self) -> &Storage {
        &self.storage
    }

    pub fn device(&self) -> Device {
        match &self.storage {
            Storage::Cpu(_) => Device::Cpu,
        }
    }

    /// Copies the data to the host (waits for pending GPU work).
    pub fn to_vec(&self) -> Vec<f32> {
        match &self.storage {
            Storage::Cpu(b) => Cpu.download(b),
        }
    }

    /// The single value of a one-element tensor.
    pub fn item(&self) -> f32 {
        assert_eq!(self.numel(), 1, "item() of a tensor with shape {:?}", self.shape);
        self.to_vec()[0]
    }

    pub fn to_device(&self, device: &Device) -> Tensor {
        match (&self.storage, device) {
            (Storage::Cpu(_), Device::Cpu) => self.clone(),
        }
    }
}
