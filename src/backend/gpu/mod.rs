//! The GPU backend: WGSL compute kernels run through wgpu on any Vulkan, Metal or DX12
//! adapter, the software one (Mesa lavapipe) included.
//!
//! Kernels record into one pending command encoder and run at the next readback or flush
//! (`context`); buffers come from a pool by size class (`pool`); each kernel's pipeline is
//! compiled once (`pipelines`). The kernel families mirror `backend/cpu` and compute the same
//! results up to float rounding; the matrix products and convolutions share one tiled GEMM
//! (`gemm`). One context serves the whole process ([`Gpu::shared`]).

mod context;
mod conv;
mod elementwise;
mod gemm;
mod layout;
mod matmul;
mod optim;
mod params;
mod pipelines;
mod pool;
mod reduce;

pub use context::GpuError;

use super::{Backend, BinaryOp, ConvDims, MatmulDims, OptimStep, UnaryOp};
use bytemuck::Pod;
use context::GpuContext;
use pipelines::{Kernel, WG};
use std::sync::{Arc, OnceLock};

/// A handle on the process's GPU context; cheap to clone.
#[derive(Clone)]
pub struct Gpu(Arc<GpuContext>);

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({})", self.adapter_name())
    }
}

static SHARED: OnceLock<Result<Gpu, GpuError>> = OnceLock::new();
static HARDWARE: OnceLock<bool> = OnceLock::new();

impl Gpu {
    /// The process-wide context on the best adapter: a hardware GPU when there is one, else
    /// a software one. Made on first use.
    pub fn shared() -> Result<Gpu, GpuError> {
        SHARED
            .get_or_init(|| {
                let best = context::adapters()
                    .into_iter()
                    .next()
                    .ok_or(GpuError::NoAdapter)?;
                Ok(Gpu(Arc::new(GpuContext::new(&best)?)))
            })
            .clone()
    }

    /// Whether a hardware GPU adapter exists (without opening it).
    pub fn hardware_available() -> bool {
        *HARDWARE.get_or_init(|| {
            context::adapters()
                .iter()
                .any(|a| a.get_info().device_type != wgpu::DeviceType::Cpu)
        })
    }

    /// The adapter's name, API and kind, e.g. "llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)".
    pub fn adapter_name(&self) -> String {
        self.0.adapter_name()
    }

    /// Submits all recorded work without waiting for it.
    pub fn flush(&self) {
        self.0.flush();
    }

    /// How many times work has been submitted to the device (for tests of batching).
    pub fn submit_count(&self) -> u64 {
        self.0.submit_count()
    }

    /// A buffer for a kernel to write `len` values into.
    fn alloc(&self, len: usize) -> GpuBuf {
        self.own(self.0.alloc(len as u64 * 4, false), len)
    }

    /// A buffer holding `data` (any 4-byte elements: f32 data or u32 indices).
    fn upload_words<T: Pod>(&self, data: &[T]) -> GpuBuf {
        const { assert!(size_of::<T>() == 4) };
        let buffer = self.0.alloc(data.len() as u64 * 4, true);
        self.0.write(&buffer, bytemuck::cast_slice(data));
        self.own(buffer, data.len())
    }

    fn own(&self, buffer: wgpu::Buffer, len: usize) -> GpuBuf {
        GpuBuf(Arc::new(Pooled {
            buffer,
            len,
            gpu: self.clone(),
        }))
    }

    /// Records `kernel` over `groups` workgroups with `params` at binding 0 and `buffers` at
    /// bindings 1.. (outputs first, then inputs, as each shader declares them).
    fn launch<P: Pod>(&self, kernel: Kernel, params: &P, buffers: &[&GpuBuf], groups: usize) {
        let groups = u32::try_from(groups)
            .unwrap_or_else(|_| panic!("a launch of {groups} workgroups is too large"));
        let storage: Vec<(&wgpu::Buffer, u64)> = buffers
            .iter()
            .map(|b| (&b.0.buffer, b.0.len as u64 * 4))
            .collect();
        self.0
            .record(kernel, bytemuck::bytes_of(params), &storage, groups);
    }
}

/// A size as the shaders' u32 (their indices are 32-bit).
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or_else(|_| panic!("{n} elements are too many for one GPU kernel"))
}

/// Workgroups of a one-dimensional kernel over `len` elements.
fn groups_1d(len: usize) -> usize {
    len.div_ceil(WG as usize)
}

/// What the kernels demand of an adapter.
struct Requirements {
    invocations: u32,
    workgroup_bytes: u32,
    storage_buffers: u32,
}

fn kernel_requirements() -> Requirements {
    let tiles = gemm::TileShape::ALL.map(gemm::TileShape::tile);
    let most = |f: fn(&gemm::Tile) -> u32| tiles.iter().map(f).max().unwrap_or(0);
    Requirements {
        invocations: WG.max(most(gemm::Tile::threads)),
        workgroup_bytes: (WG * 4).max(most(gemm::Tile::workgroup_bytes)),
        // Adam reads four buffers and writes three.
        storage_buffers: 7,
    }
}

/// A device buffer of `len` f32 values: shared, immutable once made, returned to the pool
/// when the last clone is dropped.
#[derive(Clone)]
pub struct GpuBuf(Arc<Pooled>);

struct Pooled {
    buffer: wgpu::Buffer,
    len: usize,
    gpu: Gpu,
}

impl Drop for Pooled {
    fn drop(&mut self) {
        self.gpu.0.recycle(self.buffer.clone());
    }
}

impl std::fmt::Debug for GpuBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuBuf(len {})", self.0.len)
    }
}

impl GpuBuf {
    /// The context this buffer lives in: the backend that computes on it.
    pub(crate) fn gpu(&self) -> &Gpu {
        &self.0.gpu
    }

    /// Whether both are the same buffer (not merely equal contents).
    pub(crate) fn same(&self, other: &GpuBuf) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Backend for Gpu {
    type Buf = GpuBuf;

    fn upload(&self, data: &[f32]) -> GpuBuf {
        self.upload_words(data)
    }
    fn download(&self, buf: &GpuBuf) -> Vec<f32> {
        self.0.download(&buf.0.buffer, buf.0.len)
    }
    fn filled(&self, len: usize, value: f32) -> GpuBuf {
        elementwise::fill(self, len, value)
    }
    fn len(&self, buf: &GpuBuf) -> usize {
        buf.0.len
    }
    fn unary(&self, op: UnaryOp, x: &GpuBuf) -> GpuBuf {
        elementwise::unary(self, op, x)
    }
    fn binary(
        &self,
        op: BinaryOp,
        a: &GpuBuf,
        a_shape: &[usize],
        b: &GpuBuf,
        b_shape: &[usize],
        out: &[usize],
    ) -> GpuBuf {
        elementwise::binary(self, op, a, a_shape, b, b_shape, out)
    }
    fn sum_axis(&self, x: &GpuBuf, outer: usize, n: usize, inner: usize) -> GpuBuf {
        reduce::sum_axis(self, x, outer, n, inner)
    }
    fn softmax(&self, x: &GpuBuf, rows: usize, cols: usize, log: bool) -> GpuBuf {
        reduce::softmax(self, x, rows, cols, log)
    }
    fn matmul(&self, a: &GpuBuf, b: &GpuBuf, dims: MatmulDims) -> GpuBuf {
        matmul::matmul(self, a, b, dims)
    }
    fn permute(&self, x: &GpuBuf, shape: &[usize], perm: &[usize]) -> GpuBuf {
        layout::permute(self, x, shape, perm)
    }
    fn pad2d(
        &self,
        x: &GpuBuf,
        planes: usize,
        h: usize,
        w: usize,
        pads: [i32; 4],
        value: f32,
    ) -> GpuBuf {
        layout::pad2d(self, x, planes, h, w, pads, value)
    }
    fn gather_cols(&self, x: &GpuBuf, rows: usize, cols: usize, index: &[u32]) -> GpuBuf {
        layout::gather_cols(self, x, rows, cols, index)
    }
    fn scatter_cols(&self, g: &GpuBuf, rows: usize, cols: usize, index: &[u32]) -> GpuBuf {
        layout::scatter_cols(self, g, rows, cols, index)
    }
    fn conv2d(&self, x: &GpuBuf, w: &GpuBuf, bias: Option<&GpuBuf>, d: ConvDims) -> GpuBuf {
        conv::forward(
            self,
            x,
            w,
            d,
            conv::Epilogue {
                bias,
                ..Default::default()
            },
        )
    }
    fn conv2d_add_relu(
        &self,
        x: &GpuBuf,
        w: &GpuBuf,
        bias: &GpuBuf,
        residual: Option<&GpuBuf>,
        relu: bool,
        d: ConvDims,
    ) -> GpuBuf {
        conv::forward(
            self,
            x,
            w,
            d,
            conv::Epilogue {
                bias: Some(bias),
                residual,
                relu,
            },
        )
    }
    fn conv2d_grad_input(&self, g: &GpuBuf, w: &GpuBuf, d: ConvDims) -> GpuBuf {
        conv::grad_input(self, g, w, d)
    }
    fn conv2d_grad_weight(&self, x: &GpuBuf, g: &GpuBuf, d: ConvDims) -> GpuBuf {
        conv::grad_weight(self, x, g, d)
    }
    fn optim_step(
        &self,
        step: OptimStep,
        w: &GpuBuf,
        g: &GpuBuf,
        s1: &GpuBuf,
        s2: &GpuBuf,
    ) -> [GpuBuf; 3] {
        optim::step(self, step, w, g, s1, s2)
    }
}
