//! The GPU backend: WGSL compute kernels run through wgpu on any Vulkan, Metal or DX12
//! adapter, the software one (Mesa lavapipe) included.
//!
//! Kernels record into one pending command encoder and run at the next readback or flush
//! (`context`); buffers come from a pool by size class (`pool`); each kernel's pipeline is
//! compiled once (`pipelines`). The kernel families mirror `backend/cpu` and compute the same
//! results up to float rounding; the matrix products and convolutions share one tiled GEMM
//! (`gemm`, its tile shapes in `tile`). One context serves the whole process ([`Gpu::shared`]).

mod context;
mod conv;
mod counters;
mod elementwise;
mod epilogue;
mod fast_hash;
mod gemm;
mod layout;
mod loss;
mod matmul;
mod norm;
mod optim;
mod params;
mod pipelines;
mod pool;
mod profiler;
mod reduce;
mod taps;
mod tile;
mod winograd;

pub use context::{AdapterSummary, GpuError, SUBMIT_EVERY};
pub use counters::GpuCounters;
pub use profiler::KernelTime;
pub use tile::TileShape;
pub use winograd::WinogradChoice;

use super::{
    Activation, Backend, BinaryOp, ConvDims, LinearDims, MatmulDims, NormDims, OptimStep, Running,
    TapDims, UnaryOp,
};
use bytemuck::Pod;
use context::GpuContext;
use pipelines::{Kernel, WG};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A handle on the process's GPU context; cheap to clone.
#[derive(Clone)]
pub struct Gpu(Arc<Shared>);

struct Shared {
    context: GpuContext,
    /// Index tables uploaded once and kept (gathers and scatters use the same few tables on
    /// every call), by content. They hold the context alive, which is made once per process.
    tables: Mutex<HashMap<Vec<u32>, GpuBuf>>,
    /// Inference's Winograd filters, transformed once per weight buffer (winograd.rs).
    winograd_filters: winograd::KeptFilters,
    /// Which way each inference layer runs faster, where the adapter times them.
    winograd_timings: winograd::Timings,
}

/// Distinct index tables kept; past this the cache starts again (a caller making new tables
/// on every call should not grow it without bound).
const MAX_TABLES: usize = 256;

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({})", self.adapter_name())
    }
}

/// Buffers on their way to the host ([`Gpu::begin_read`]).
pub struct GpuReading {
    gpu: Gpu,
    read: context::PendingRead,
}

impl GpuReading {
    /// Waits for the reading's submission and gives each buffer's values (zeros after a
    /// device fault, which [`Gpu::check`] reports).
    pub fn finish(self) -> Vec<Vec<f32>> {
        self.gpu.0.context.finish_download(self.read)
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
                if let Ok(name) = std::env::var(tile::TILE_VARIABLE)
                    && !name.is_empty()
                {
                    let tile =
                        TileShape::from_name(&name).ok_or_else(|| GpuError::Unsupported {
                            adapter: context::describe(&best.get_info()),
                            why: format!(
                                "{}={name}: expected wide, square or small",
                                tile::TILE_VARIABLE
                            ),
                        })?;
                    TileShape::force(Some(tile));
                }
                Gpu::open(&best)
            })
            .clone()
    }

    /// Makes every matrix product and convolution take `tile` instead of the one planned
    /// for its shape (None: the planned ones again), for tests and timings of each path.
    pub fn force_tile(&self, tile: Option<TileShape>) {
        TileShape::force(tile);
    }

    /// How the towers' 3x3 convolutions run: as Winograd's, as implicit GEMMs, or in
    /// inference as whichever was timed faster (winograd.rs).
    pub fn winograd(&self) -> WinogradChoice {
        self.0.context.winograd()
    }

    /// Sets how the towers' 3x3 convolutions run (`CHECKERS_ZERO_GPU_WINOGRAD` sets it when
    /// the context is made), for tests of each path.
    pub fn set_winograd(&self, choice: WinogradChoice) {
        self.0.context.set_winograd(choice);
    }

    /// Whether the matrix products and convolutions run on f16 cooperative matrices with f32
    /// sums (`precision=mixed`, the tensor tile) rather than in f32.
    pub fn mixed(&self) -> bool {
        self.0.context.mixed()
    }

    /// Puts the products on cooperative matrices (`precision=mixed`) or back on f32; mixed
    /// is refused, saying why, on an adapter that cannot run it (`CHECKERS_ZERO_GPU_PRECISION`
    /// sets it when the context is made).
    pub fn set_mixed(&self, on: bool) -> Result<(), GpuError> {
        self.0.context.set_mixed(on)
    }

    fn open(adapter: &wgpu::Adapter) -> Result<Gpu, GpuError> {
        Ok(Gpu(Arc::new(Shared {
            context: GpuContext::new(adapter)?,
            tables: Mutex::default(),
            winograd_filters: winograd::KeptFilters::default(),
            winograd_timings: winograd::Timings::default(),
        })))
    }

    /// Every adapter wgpu lists that runs compute shaders, the one [`Gpu::shared`] opens
    /// first.
    pub fn adapters() -> Vec<AdapterSummary> {
        context::adapters().iter().map(AdapterSummary::of).collect()
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
        self.0.context.adapter_name()
    }

    /// Whether the adapter is a software rasteriser on the CPU (lavapipe), which gets fewer,
    /// larger tiles than a hardware GPU.
    pub fn is_software(&self) -> bool {
        self.0.context.is_software()
    }

    /// Submits all recorded work and the copies of `bufs` to the host, without waiting:
    /// the device computes while the caller goes on, and [`GpuReading::finish`] then waits
    /// for this submission alone, not for work submitted after it.
    pub fn begin_read(&self, bufs: &[&GpuBuf]) -> GpuReading {
        let parts: Vec<(&wgpu::Buffer, u64, usize)> = bufs
            .iter()
            .map(|b| (&b.mem.buffer, b.offset, b.len))
            .collect();
        GpuReading {
            read: self.0.context.begin_download(&parts),
            gpu: self.clone(),
        }
    }

    /// Submits all recorded work without waiting for it.
    pub fn flush(&self) {
        self.0.context.flush();
    }

    /// What the context has done so far: dispatches, submits, waits, bytes each way.
    pub fn counters(&self) -> GpuCounters {
        self.0.context.counters()
    }

    /// The first fault of the device (lost, out of memory, a refused command), if any. After
    /// one, kernels are not run and readbacks give zeros: check this before trusting results.
    pub fn check(&self) -> Result<(), GpuError> {
        self.0.context.fault().map_or(Ok(()), Err)
    }

    /// Starts timing each dispatch with timestamp queries; an error where the adapter has none.
    pub fn start_profile(&self) -> Result<(), GpuError> {
        self.0.context.start_profile()
    }

    /// Stops timing; each kernel's device time, the most first.
    pub fn finish_profile(&self) -> Vec<KernelTime> {
        self.0.context.finish_profile()
    }

    /// A buffer for a kernel to write `len` values into.
    fn alloc(&self, len: usize) -> GpuBuf {
        self.own(self.0.context.alloc(len as u64 * 4, false), len)
    }

    /// A buffer holding `data` (any 4-byte elements: f32 data or u32 indices).
    fn upload_words<T: Pod>(&self, data: &[T]) -> GpuBuf {
        const { assert!(size_of::<T>() == 4) };
        let buffer = self.0.context.alloc(data.len() as u64 * 4, true);
        self.0.context.write(&buffer, bytemuck::cast_slice(data));
        self.own(buffer, data.len())
    }

    /// An index table on the device, uploaded on its first use only.
    fn table(&self, index: &[u32]) -> GpuBuf {
        let mut tables = self.0.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = tables.get(index) {
            return t.clone();
        }
        if tables.len() >= MAX_TABLES {
            tables.clear();
        }
        let t = self.upload_words(index);
        tables.insert(index.to_vec(), t.clone());
        t
    }

    fn own(&self, buffer: wgpu::Buffer, len: usize) -> GpuBuf {
        GpuBuf {
            mem: Arc::new(Pooled {
                buffer,
                gpu: self.clone(),
            }),
            offset: 0,
            len,
        }
    }

    /// Records copying all of `src` into `dst` from float `at` on.
    fn copy_into(&self, src: &GpuBuf, dst: &GpuBuf, at: usize) {
        assert!(at + src.len <= dst.len, "a copy past the end of its target");
        self.0.context.copy(
            (&src.mem.buffer, src.offset),
            (&dst.mem.buffer, dst.offset + at as u64 * 4),
            src.len as u64 * 4,
        );
    }

    /// Storage bindings start at multiples of this many floats.
    fn view_align(&self) -> usize {
        self.0.context.storage_offset_align() as usize / 4
    }

    /// Records `kernel` over `groups` workgroups with `params` at binding 0 and `buffers` at
    /// bindings 1.. (outputs first, then inputs, as each shader declares them). The matrix
    /// products record through `gemm::run` instead, which also gives the profiler their flops.
    fn launch<P: Pod>(&self, kernel: Kernel, params: &P, buffers: &[&GpuBuf], groups: usize) {
        let groups = u32::try_from(groups).unwrap_or(u32::MAX);
        let storage: Vec<(&wgpu::Buffer, u64, u64)> = buffers
            .iter()
            .map(|b| (&b.mem.buffer, b.offset, b.len as u64 * 4))
            .collect();
        self.0
            .context
            .record(kernel, bytemuck::bytes_of(params), &storage, groups, 0);
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
    // The tensor tile is asked only of adapters that offer mixed precision (context.rs).
    let most = |f: fn(tile::TileShape) -> u32| tile::TileShape::ALL.map(f).into_iter().max();
    Requirements {
        invocations: WG.max(most(tile::TileShape::threads).unwrap_or(0)),
        workgroup_bytes: (WG * 4).max(most(tile::TileShape::workgroup_bytes).unwrap_or(0)),
        // The batch norm's input gradient reads seven buffers and writes one.
        storage_buffers: 8,
    }
}

/// `len` f32 values on the device: a whole pooled buffer, or a view into one (an optimizer
/// keeps all parameters in one buffer). Shared, immutable once made; the buffer returns to
/// the pool when its last view is dropped.
#[derive(Clone)]
pub struct GpuBuf {
    mem: Arc<Pooled>,
    /// Bytes from the buffer's start (a multiple of the storage binding alignment).
    offset: u64,
    len: usize,
}

struct Pooled {
    buffer: wgpu::Buffer,
    gpu: Gpu,
}

impl Drop for Pooled {
    fn drop(&mut self) {
        self.gpu.0.context.recycle(self.buffer.clone());
    }
}

impl std::fmt::Debug for GpuBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuBuf(len {})", self.len)
    }
}

impl GpuBuf {
    /// The context this buffer lives in: the backend that computes on it.
    pub(crate) fn gpu(&self) -> &Gpu {
        &self.mem.gpu
    }

    /// Whether both are the same buffer (not merely equal contents).
    pub(crate) fn same(&self, other: &GpuBuf) -> bool {
        Arc::ptr_eq(&self.mem, &other.mem) && (self.offset, self.len) == (other.offset, other.len)
    }

    /// `len` values from float `at` on, without copying (`at` a multiple of `view_align`).
    fn view(&self, at: usize, len: usize) -> GpuBuf {
        assert!(at + len <= self.len, "a view past the end of its buffer");
        GpuBuf {
            mem: self.mem.clone(),
            offset: self.offset + at as u64 * 4,
            len,
        }
    }

    /// Whether this is the view `at` floats into `whole`'s memory.
    fn is_view_of(&self, whole: &GpuBuf, at: usize) -> bool {
        Arc::ptr_eq(&self.mem, &whole.mem) && self.offset == whole.offset + at as u64 * 4
    }
}

impl Backend for Gpu {
    type Buf = GpuBuf;

    fn upload(&self, data: &[f32]) -> GpuBuf {
        self.upload_words(data)
    }
    fn download(&self, buf: &GpuBuf) -> Vec<f32> {
        self.download_all(&[buf]).pop().unwrap_or_default()
    }
    fn download_all(&self, bufs: &[&GpuBuf]) -> Vec<Vec<f32>> {
        self.begin_read(bufs).finish()
    }
    fn filled(&self, len: usize, value: f32) -> GpuBuf {
        elementwise::fill(self, len, value)
    }
    fn len(&self, buf: &GpuBuf) -> usize {
        buf.len
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
    fn softmax_xent(
        &self,
        z: &GpuBuf,
        t: &GpuBuf,
        rows: usize,
        cols: usize,
        scale: f32,
    ) -> [GpuBuf; 2] {
        loss::softmax_xent(self, z, t, rows, cols, scale)
    }
    fn squared_error(&self, p: &GpuBuf, t: &GpuBuf, scale: f32) -> [GpuBuf; 2] {
        loss::squared_error(self, p, t, scale)
    }
    fn matmul(&self, a: &GpuBuf, b: &GpuBuf, dims: MatmulDims) -> GpuBuf {
        matmul::matmul(self, a, b, dims)
    }
    fn linear(
        &self,
        x: &GpuBuf,
        w: &GpuBuf,
        bias: Option<&GpuBuf>,
        act: Option<Activation>,
        d: LinearDims,
    ) -> GpuBuf {
        matmul::linear(self, x, w, bias, act, d)
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
            epilogue::Epilogue {
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
        conv::forward_inference(
            self,
            x,
            w,
            d,
            epilogue::Epilogue {
                bias: Some(bias),
                residual,
                relu,
            },
        )
    }
    fn batch_norm_train(
        &self,
        x: &GpuBuf,
        gamma: &GpuBuf,
        beta: &GpuBuf,
        running: Running<'_, GpuBuf>,
        relu: bool,
        d: NormDims,
        eps: f32,
    ) -> [GpuBuf; 5] {
        norm::train(
            self,
            x,
            norm::Source::Input,
            gamma,
            beta,
            running,
            relu,
            d,
            eps,
        )
    }
    fn conv2d_batch_norm_train(
        &self,
        x: &GpuBuf,
        w: &GpuBuf,
        gamma: &GpuBuf,
        beta: &GpuBuf,
        running: Running<'_, GpuBuf>,
        relu: bool,
        d: ConvDims,
        eps: f32,
    ) -> [GpuBuf; 6] {
        if self.0.context.baseline() {
            return crate::backend::conv_then_batch_norm(
                self, x, w, gamma, beta, running, relu, d, eps,
            );
        }
        let (conv, moments, parts) = conv::forward_moments(self, x, w, d);
        let source = norm::Source::Moments(&moments, parts);
        let [y, mean, var, run_mean, run_var] = norm::train(
            self,
            &conv,
            source,
            gamma,
            beta,
            running,
            relu,
            d.output(),
            eps,
        );
        [conv, y, mean, var, run_mean, run_var]
    }
    fn channel_sum(&self, x: &GpuBuf, d: NormDims) -> GpuBuf {
        norm::channel_sum(self, x, d)
    }
    fn batch_norm_train_grad(
        &self,
        x: &GpuBuf,
        g: &GpuBuf,
        relu_out: Option<&GpuBuf>,
        mean: &GpuBuf,
        var: &GpuBuf,
        gamma: &GpuBuf,
        d: NormDims,
        eps: f32,
    ) -> [GpuBuf; 3] {
        norm::train_grad(self, x, g, relu_out, mean, var, gamma, d, eps)
    }
    fn conv2d_grad_input(&self, g: &GpuBuf, w: &GpuBuf, d: ConvDims) -> GpuBuf {
        conv::grad_input(self, g, w, d)
    }
    fn conv2d_grad_weight(&self, x: &GpuBuf, g: &GpuBuf, d: ConvDims) -> GpuBuf {
        conv::grad_weight(self, x, g, d)
    }
    fn tap_conv(
        &self,
        x: &GpuBuf,
        w: &GpuBuf,
        bias: Option<&GpuBuf>,
        residual: Option<&GpuBuf>,
        relu: bool,
        d: TapDims,
        table: &[u32],
    ) -> GpuBuf {
        let epilogue = epilogue::Epilogue {
            bias,
            residual,
            relu,
        };
        taps::forward(self, x, w, d, table, epilogue)
    }
    fn tap_conv_grad_weight(&self, x: &GpuBuf, g: &GpuBuf, d: TapDims, table: &[u32]) -> GpuBuf {
        taps::grad_weight(self, x, g, d, table)
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
    fn optim_step_all(&self, step: OptimStep, params: &[[&GpuBuf; 4]]) -> Vec<[GpuBuf; 3]> {
        optim::step_all(self, step, params, None).0
    }
    fn optim_step_all_scaled(
        &self,
        step: OptimStep,
        params: &[[&GpuBuf; 4]],
        unscale: f32,
    ) -> (Vec<[GpuBuf; 3]>, GpuBuf) {
        let (new, check) = optim::step_all(self, step, params, Some(unscale));
        (new, check.expect("a scaled step sums its gradients"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_skip::skip;

    /// A context of its own (not the process's), so a test may break it.
    fn private_context() -> Option<Gpu> {
        match context::adapters().first().map(Gpu::open) {
            Some(Ok(g)) => Some(g),
            Some(Err(e)) => {
                skip(&format!("no GPU device could be opened: {e}"));
                None
            }
            None => {
                skip("no GPU adapter");
                None
            }
        }
    }

    #[test]
    fn a_lost_device_is_an_error_not_a_panic() {
        let Some(gpu) = private_context() else { return };
        let x = gpu.upload(&[1.0, -2.0, 3.0]);
        assert_eq!(gpu.download(&gpu.unary(UnaryOp::Relu, &x)), [1.0, 0.0, 3.0]);
        assert!(gpu.check().is_ok());
        gpu.0.context.destroy();
        // Work after the loss records nothing and reads back zeros; nothing panics.
        let y = gpu.unary(UnaryOp::Exp, &gpu.upload(&[1.0, 2.0]));
        let z = gpu.binary(BinaryOp::Add, &y, &[2], &x, &[1], &[2]);
        assert_eq!(gpu.download_all(&[&y, &z]), [vec![0.0; 2], vec![0.0; 2]]);
        let err = gpu.check().expect_err("the device is gone");
        assert!(matches!(err, GpuError::Lost { .. }), "{err}");
        assert!(err.to_string().contains("was lost"), "{err}");
    }

    #[test]
    fn a_kernel_that_does_not_compile_fails_its_first_call_with_the_error() {
        let Some(gpu) = private_context() else { return };
        let x = gpu.upload(&[1.0]);
        let kernel = Kernel {
            shader: pipelines::Shader::Broken,
            entry: "main",
        };
        let call = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            gpu.launch(kernel, &0u32, &[&x], 1);
        }));
        let err = call.expect_err("the call fails");
        let message = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(message.contains("does not compile"), "{message}");
        // naga's own words for the type error, not zeros.
        assert!(message.to_lowercase().contains("u32"), "{message}");
    }

    #[test]
    fn a_full_pool_lets_go_of_the_sizes_used_longest_ago() {
        let Some(gpu) = private_context() else { return };
        let device = gpu.0.context.device();
        let make = |bytes| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        };
        let mut pool = pool::Pool::with_floor(4096);
        // Four of 1 KiB lent at once and given back fill it.
        let small: Vec<_> = (0..4).map(|_| pool.take(1024, false)).collect();
        assert!(
            small.iter().all(Option::is_none),
            "an empty pool has nothing"
        );
        for _ in 0..4 {
            assert!(pool.give(make(1024), false).is_empty());
        }
        // A 2 KiB buffer given back is kept, the 1 KiB ones, used longer ago, let go.
        assert!(pool.take(2048, false).is_none());
        let dropped = pool.give(make(2048), false);
        assert_eq!(
            dropped.iter().map(|b| b.size()).collect::<Vec<_>>(),
            [1024; 4]
        );
        assert!(pool.take(2048, false).is_some(), "the newer size is kept");
        assert!(pool.take(1024, false).is_none(), "the older one is gone");
        // A working set above the floor is kept whole: four of 2 KiB lent at once.
        let _ = pool.give(make(1024), false);
        let lent: Vec<_> = (0..3).map(|_| pool.take(2048, false)).collect();
        assert!(lent.iter().all(Option::is_none));
        for _ in 0..4 {
            let dropped = pool.give(make(2048), false);
            assert!(dropped.iter().all(|b| b.size() == 1024), "{dropped:?}");
        }
        assert!((0..4).all(|_| pool.take(2048, false).is_some()));
    }

    #[test]
    fn a_tensor_beyond_the_device_limit_is_out_of_memory() {
        let Some(gpu) = private_context() else { return };
        let limits = &gpu.0.context.limits();
        let too_many = (limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
            / 4
            + 1024) as usize;
        let huge = gpu.filled(too_many, 1.0);
        let err = gpu.check().expect_err("the allocation cannot be made");
        assert!(matches!(err, GpuError::OutOfMemory { .. }), "{err}");
        // Reading it back after the fault gives zeros of the length asked for, without
        // touching the device.
        assert_eq!(gpu.download_all(&[&gpu.upload(&[5.0])]), [vec![0.0]]);
        drop(huge);
    }
}
