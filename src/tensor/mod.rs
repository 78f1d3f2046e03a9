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

pub use ops::{RunningStats, TapTable};
pub use shape::{broadcast_shapes, numel};
pub use tape::{Gradients, Tape, Var};

use crate::backend::Backend;
use crate::backend::cpu::{Cpu, CpuBuf};
#[cfg(feature = "gpu")]
use crate::backend::gpu::{Gpu, GpuBuf, GpuError, GpuReading};
use rand::Rng;
use rand_distr::StandardNormal;

/// Where a tensor's data lives.
#[derive(Clone, Debug)]
pub enum Device {
    Cpu,
    /// The process's wgpu context (one per process, shared by every GPU tensor).
    #[cfg(feature = "gpu")]
    Gpu(Gpu),
}

crate::names::named_enum! {
    /// A device as people name it; [`DeviceChoice::open`] makes it a [`Device`].
    #[derive(Default, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum DeviceChoice {
        /// A hardware GPU if there is one, else the CPU.
        Auto = "auto" (default),
        /// The CPU backend.
        Cpu = "cpu",
        /// The GPU on the best adapter, software ones too.
        Gpu = "gpu",
    }
}

impl DeviceChoice {
    pub fn open(self) -> Result<Device, DeviceError> {
        match self {
            DeviceChoice::Auto => Ok(Device::auto()),
            DeviceChoice::Cpu => Ok(Device::Cpu),
            DeviceChoice::Gpu => Device::gpu(),
        }
    }
}

crate::names::named_enum! {
    /// How a device's matrix products compute.
    #[derive(Default, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Precision {
        /// f32 throughout.
        Strict = "strict" (default),
        /// f32 sums of f16 products on a GPU's tensor cores, or of bf16 products on a CPU's
        /// AMX tiles (inference); weights and activations stay f32.
        Mixed = "mixed",
    }
}

/// Why a device could not be had.
#[derive(Clone, Debug, thiserror::Error)]
pub enum DeviceError {
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[cfg(not(feature = "gpu"))]
    #[error("this build has no GPU backend: build with the `gpu` feature (on by default)")]
    NoGpuBackend,
    #[error(
        "precision=mixed on the CPU computes on AMX tiles (bf16 operands, f32 sums), which this \
         CPU or its operating system does not offer; strict computes in f32 everywhere"
    )]
    MixedOnCpu,
}

impl Device {
    pub fn name(&self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            #[cfg(feature = "gpu")]
            Device::Gpu(_) => "gpu",
        }
    }

    /// A hardware GPU if there is one, else the CPU. A software adapter (device type Cpu,
    /// e.g. Mesa lavapipe) is slower than the CPU backend, so it is used only when asked for.
    pub fn auto() -> Device {
        // Checked first: listing adapters is cheap, opening lavapipe is not.
        #[cfg(feature = "gpu")]
        if Gpu::hardware_available()
            && let Ok(gpu) = Gpu::shared()
        {
            return Device::Gpu(gpu);
        }
        Device::Cpu
    }

    /// The GPU on the best adapter there is, software ones included (to test the kernels
    /// where there is no hardware GPU).
    pub fn gpu() -> Result<Device, DeviceError> {
        #[cfg(feature = "gpu")]
        return Ok(Device::Gpu(Gpu::shared()?));
        #[cfg(not(feature = "gpu"))]
        Err(DeviceError::NoGpuBackend)
    }

    /// Whether its products run mixed (a GPU's tensor cores), so training scales its loss.
    pub fn mixed(&self) -> bool {
        match self {
            Device::Cpu => false,
            #[cfg(feature = "gpu")]
            Device::Gpu(g) => g.mixed(),
        }
    }

    /// Asks for a precision. Mixed is refused, saying why, on a CPU without AMX's bf16 tiles
    /// and on a GPU without cooperative matrices. One GPU context serves the process, so
    /// mixed, once asked for, holds for every GPU tensor in it (strict asks for nothing, so it
    /// does not undo it). On the CPU it changes nothing by itself: mixed is asked for where
    /// products are made (a network evaluator's precision, `NetEvaluator::at`, or the
    /// process's for evaluators, `cpu::amx::mix_evaluators`); training steps stay f32.
    pub fn set_precision(&self, precision: Precision) -> Result<(), DeviceError> {
        match (self, precision) {
            (_, Precision::Strict) => Ok(()),
            (Device::Cpu, Precision::Mixed) if crate::backend::cpu::amx::available() => Ok(()),
            (Device::Cpu, Precision::Mixed) => Err(DeviceError::MixedOnCpu),
            #[cfg(feature = "gpu")]
            (Device::Gpu(g), Precision::Mixed) => Ok(g.set_mixed(true)?),
        }
    }

    /// What computes on it: the CPU's SGEMM kernel (picked at run time by CPU features), or
    /// the GPU adapter.
    pub fn kernel(&self) -> String {
        match self {
            Device::Cpu => crate::backend::cpu::sgemm_kernel().to_string(),
            #[cfg(feature = "gpu")]
            Device::Gpu(g) => g.adapter_name(),
        }
    }

    /// What the device is, for logs: "cpu" and its SGEMM kernel, or "gpu: " and the adapter.
    pub fn describe(&self) -> String {
        match self {
            Device::Cpu if crate::backend::cpu::amx::evaluators_mixed() => format!(
                "cpu (SGEMM kernel {}, picked at run time; network evaluations in bf16 on AMX \
                 tiles)",
                self.kernel()
            ),
            Device::Cpu => format!("cpu (SGEMM kernel {}, picked at run time)", self.kernel()),
            #[cfg(feature = "gpu")]
            Device::Gpu(_) => format!("gpu: {}", self.kernel()),
        }
    }

    /// Starts all work recorded so far on the device without waiting for it (the GPU records
    /// ops and runs them at the next read-back; the CPU computes eagerly).
    pub fn flush(&self) {
        #[cfg(feature = "gpu")]
        if let Device::Gpu(g) = self {
            g.flush();
        }
    }

    /// Whether the device still works: a GPU that was lost, ran out of memory or refused a
    /// command since it was opened gives its fault (its results since are not to be trusted).
    /// The CPU always works.
    pub fn check(&self) -> Result<(), DeviceError> {
        #[cfg(feature = "gpu")]
        if let Device::Gpu(g) = self {
            g.check()?;
        }
        Ok(())
    }
}

/// A tensor's data on its device.
#[derive(Clone, Debug)]
pub enum Storage {
    Cpu(CpuBuf),
    #[cfg(feature = "gpu")]
    Gpu(GpuBuf),
}

/// Runs `$body` with `$be` bound to the backend of the first storage and each name bound to
/// that backend's buffer; `$wrap` wraps the body's result back into `Storage`
/// ([`wrap_one`], [`wrap_each`]). Mixing devices is a programming error and panics. Adding a
/// backend means adding an arm here.
macro_rules! dispatch_with {
    ($wrap:path; $first:expr $(, $rest:expr)* => |$be:ident, $f:ident $(, $r:ident)*| $body:expr) => {
        match $first {
            $crate::tensor::Storage::Cpu($f) => {
                let $be = &$crate::backend::cpu::Cpu;
                $(
                    // Irrefutable in a build with the CPU backend alone.
                    #[allow(irrefutable_let_patterns)]
                    let $crate::tensor::Storage::Cpu($r) = $rest else {
                        $crate::tensor::device_mismatch()
                    };
                )*
                $wrap($crate::tensor::Storage::Cpu, $body)
            }
            #[cfg(feature = "gpu")]
            $crate::tensor::Storage::Gpu($f) => {
                let $be = $f.gpu();
                $(
                    let $crate::tensor::Storage::Gpu($r) = $rest else {
                        $crate::tensor::device_mismatch()
                    };
                )*
                $wrap($crate::tensor::Storage::Gpu, $body)
            }
        }
    };
}
pub(crate) use dispatch_with;

/// [`dispatch_with!`] for kernels that return one buffer.
macro_rules! dispatch {
    ($($t:tt)*) => { $crate::tensor::dispatch_with!($crate::tensor::wrap_one; $($t)*) };
}
pub(crate) use dispatch;

/// [`dispatch_with!`] for kernels that return an array of buffers (an optimizer step, batch
/// norm).
macro_rules! dispatch_each {
    ($($t:tt)*) => { $crate::tensor::dispatch_with!($crate::tensor::wrap_each; $($t)*) };
}
pub(crate) use dispatch_each;

pub(crate) fn wrap_one<B>(storage: impl Fn(B) -> Storage, buf: B) -> Storage {
    storage(buf)
}

pub(crate) fn wrap_each<B, const N: usize>(
    storage: impl Fn(B) -> Storage,
    bufs: [B; N],
) -> [Storage; N] {
    bufs.map(storage)
}

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
        assert!(
            shape.len() <= 4,
            "tensors have at most 4 dimensions, got shape {shape:?}"
        );
        Tensor { shape, storage }
    }

    /// A tensor from row-major data.
    pub fn from_vec(data: Vec<f32>, shape: &[usize], device: &Device) -> Tensor {
        assert_eq!(
            data.len(),
            numel(shape),
            "data length {} does not fill shape {shape:?}",
            data.len()
        );
        let storage = match device {
            Device::Cpu => Storage::Cpu(CpuBuf::new(data)),
            #[cfg(feature = "gpu")]
            Device::Gpu(g) => Storage::Gpu(g.upload(&data)),
        };
        Tensor::from_storage(storage, shape.to_vec())
    }

    pub fn full(shape: &[usize], value: f32, device: &Device) -> Tensor {
        let storage = match device {
            Device::Cpu => Storage::Cpu(Cpu.filled(numel(shape), value)),
            #[cfg(feature = "gpu")]
            Device::Gpu(g) => Storage::Gpu(g.filled(numel(shape), value)),
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
        let data = (0..numel(shape))
            .map(|_| std * rng.sample::<f32, _>(StandardNormal))
            .collect();
        Tensor::from_vec(data, shape, device)
    }

    /// Uniform samples in [-bound, bound).
    pub fn uniform(shape: &[usize], bound: f32, rng: &mut impl Rng, device: &Device) -> Tensor {
        let data = (0..numel(shape))
            .map(|_| rng.random_range(-bound..bound))
            .collect();
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

    /// Whether both are the very same data: one buffer (a clone of the other, or both clones
    /// of one tensor) and one shape. Buffers are immutable once made, and a tensor kept alive
    /// keeps its buffer, so a held tensor that is the same as another has its values; a
    /// tensor with equal values in another buffer is not the same.
    pub fn same_data(&self, other: &Tensor) -> bool {
        self.shape == other.shape
            && match (&self.storage, &other.storage) {
                (Storage::Cpu(a), Storage::Cpu(b)) => a.same(b),
                #[cfg(feature = "gpu")]
                (Storage::Gpu(a), Storage::Gpu(b)) => a.same(b),
                #[cfg(feature = "gpu")]
                _ => false,
            }
    }

    pub(crate) fn storage(&self) -> &Storage {
        &self.storage
    }

    pub fn device(&self) -> Device {
        match &self.storage {
            Storage::Cpu(_) => Device::Cpu,
            #[cfg(feature = "gpu")]
            Storage::Gpu(b) => Device::Gpu(b.gpu().clone()),
        }
    }

    /// Copies the data to the host (waits for pending GPU work).
    pub fn to_vec(&self) -> Vec<f32> {
        match &self.storage {
            Storage::Cpu(b) => Cpu.download(b),
            #[cfg(feature = "gpu")]
            Storage::Gpu(b) => b.gpu().download(b),
        }
    }

    /// Several tensors' data at once: one wait for all of those on a GPU (each GPU tensor's
    /// device is the process's one context).
    pub fn to_vecs(tensors: &[&Tensor]) -> Vec<Vec<f32>> {
        Tensor::read_later(tensors).wait()
    }

    /// Starts bringing several tensors' data to the host: on a GPU the work so far and the
    /// copies are submitted and nothing is waited for until [`Reading::wait`], which waits
    /// for this reading alone (work submitted later, say the next batch, runs on meanwhile).
    pub fn read_later(tensors: &[&Tensor]) -> Reading {
        #[cfg(feature = "gpu")]
        {
            let on_gpu: Vec<&GpuBuf> = tensors
                .iter()
                .filter_map(|t| match &t.storage {
                    Storage::Gpu(b) => Some(b),
                    Storage::Cpu(_) => None,
                })
                .collect();
            if let Some(first) = on_gpu.first() {
                let ready = tensors
                    .iter()
                    .map(|t| match &t.storage {
                        Storage::Gpu(_) => None,
                        Storage::Cpu(b) => Some(Cpu.download(b)),
                    })
                    .collect();
                return Reading {
                    ready,
                    gpu: Some(first.gpu().begin_read(&on_gpu)),
                };
            }
        }
        Reading {
            ready: tensors.iter().map(|t| Some(t.to_vec())).collect(),
            #[cfg(feature = "gpu")]
            gpu: None,
        }
    }

    /// The single value of a one-element tensor.
    pub fn item(&self) -> f32 {
        assert_eq!(
            self.numel(),
            1,
            "item() of a tensor with shape {:?}",
            self.shape
        );
        self.to_vec()[0]
    }

    /// This tensor on `device`: itself when already there, else a copy (a GPU-to-CPU copy
    /// waits for pending GPU work).
    pub fn to_device(&self, device: &Device) -> Tensor {
        match (&self.storage, device) {
            (Storage::Cpu(_), Device::Cpu) => self.clone(),
            // There is one GPU context per process, so a GPU tensor is already on any GPU device.
            #[cfg(feature = "gpu")]
            (Storage::Gpu(_), Device::Gpu(_)) => self.clone(),
            #[cfg(feature = "gpu")]
            (Storage::Cpu(b), Device::Gpu(g)) => {
                Tensor::from_storage(Storage::Gpu(g.upload(b.as_slice())), self.shape.clone())
            }
            #[cfg(feature = "gpu")]
            (Storage::Gpu(_), Device::Cpu) => {
                Tensor::from_storage(Storage::Cpu(CpuBuf::new(self.to_vec())), self.shape.clone())
            }
        }
    }
}

/// Tensors' data on its way to the host ([`Tensor::read_later`]).
pub struct Reading {
    /// Each tensor's values where they are already on the host (CPU tensors).
    ready: Vec<Option<Vec<f32>>>,
    /// The GPU tensors' readback, in the order they appear.
    #[cfg(feature = "gpu")]
    gpu: Option<GpuReading>,
}

impl Reading {
    /// Each tensor's values, in the order given.
    pub fn wait(self) -> Vec<Vec<f32>> {
        #[cfg(feature = "gpu")]
        if let Some(gpu) = self.gpu {
            let mut read = gpu.finish().into_iter();
            return self
                .ready
                .into_iter()
                .map(|r| r.unwrap_or_else(|| read.next().unwrap_or_default()))
                .collect();
        }
        self.ready
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect()
    }
}
