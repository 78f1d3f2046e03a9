//! The wgpu device and queue, the pending command encoder, readback, and device faults.
//!
//! Lazy recording: every kernel records one compute pass into the pending encoder, and the
//! encoder is submitted every `SUBMIT_EVERY` dispatches, so the device starts on a step while
//! the host records the rest of it; a readback (`begin_download`) or an explicit `flush`
//! submits what is left. A readback of several buffers copies them into one staging buffer
//! and waits once, for its own submission only (`finish_download`): work submitted after it,
//! such as the next inference batch, runs on meanwhile.
//!
//! The write rule: `queue.write_buffer` executes at the next submit *before* the pending
//! encoder's commands. So nothing is written that way into a buffer that pending commands
//! still read: uploads take only buffers freed while nothing was pending (`pool`), and each
//! dispatch's parameters get their own arena slot, written just before its submit (`params`).
//!
//! Faults: wgpu reports a lost device, an allocation it cannot make, or a command it refuses
//! through callbacks, not return values. The context keeps the first such fault, stops
//! recording, answers readbacks with zeros, and hands the fault to whoever asks (`fault`),
//! so a trainer can stop cleanly instead of the process panicking.

use super::counters::{Count, Counters, GpuCounters};
use super::fast_hash::FastMap;
use super::gemm::Occupancy;
use super::params::{ParamArena, Slot};
use super::pipelines::{Kernel, Pipeline, PipelineCache};
use super::pool::{Pool, size_class};
use super::profiler::{self, KernelTime, Profiler};
use super::tile::TileShape;
use super::winograd::WinogradChoice;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, mpsc};

/// Recorded dispatches after which the encoder is submitted: enough that a submit's cost is
/// spread thin, few enough that the device starts early on a long step.
pub const SUBMIT_EVERY: usize = 32;

/// Why no GPU context could be made, or why the one in use stopped.
#[derive(Clone, Debug, thiserror::Error)]
pub enum GpuError {
    #[error(
        "no GPU adapter found: wgpu sees no Vulkan, Metal or DX12 device that runs compute shaders (WGPU_BACKEND can name others)"
    )]
    NoAdapter,
    #[error("GPU adapter {adapter} cannot run these kernels: {why}")]
    Unsupported { adapter: String, why: String },
    #[error("could not open GPU adapter {adapter}: {why}")]
    RequestDevice { adapter: String, why: String },
    #[error("the GPU ({adapter}) was lost: {why}")]
    Lost { adapter: String, why: String },
    #[error("the GPU ({adapter}) is out of memory: {why}")]
    OutOfMemory { adapter: String, why: String },
    #[error("the GPU ({adapter}) refused a command: {why}")]
    Failed { adapter: String, why: String },
}

/// The first fault of a context, shared with wgpu's callbacks.
#[derive(Clone, Default)]
struct Fault(Arc<(AtomicBool, Mutex<Option<GpuError>>)>);

impl Fault {
    fn set(&self, error: GpuError) {
        let mut first = self.0.1.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert(error);
        self.0.0.store(true, Ordering::Release);
    }

    /// Every recorded dispatch asks: the flag answers without the lock until a fault.
    fn get(&self) -> Option<GpuError> {
        if !self.0.0.load(Ordering::Acquire) {
            return None;
        }
        self.0.1.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

pub(crate) struct GpuContext {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    pipelines: PipelineCache,
    /// The later fusions off (`BASELINE_VARIABLE`).
    baseline: bool,
    /// How the towers' 3x3 convolutions run (`winograd_by_default`, `WINOGRAD_VARIABLE`, or a
    /// test's choice), as `WinogradChoice as u8`.
    winograd: AtomicU8,
    /// Why the adapter cannot run the products on cooperative matrices, if it cannot.
    tensor: Result<(), String>,
    /// The products on cooperative matrices (`precision=mixed`; `PRECISION_VARIABLE`).
    mixed: AtomicBool,
    state: Mutex<State>,
    counters: Counters,
    fault: Fault,
}

/// Set to 1, the forward convolution is never split over k and a training batch norm reads
/// its input for its statistics instead of the convolution's moments: the GPU path before
/// those two were added, to time them against it on a card.
pub(super) const BASELINE_VARIABLE: &str = "CHECKERS_ZERO_GPU_BASELINE";

/// Set to 0, every 3x3 convolution runs as an implicit GEMM (conv.rs) instead of Winograd's
/// F(4x4, 3x3) (winograd.rs); set to 1, the towers' layers run as Winograd's where they suit
/// it; set to `timed`, inference times the two ways (`WinogradChoice::Timed`); unset,
/// `winograd_by_default` decides.
pub(super) const WINOGRAD_VARIABLE: &str = "CHECKERS_ZERO_GPU_WINOGRAD";

/// Winograd's convolutions pay where arithmetic is dear beside memory traffic: on a software
/// adapter (lavapipe: az-small at 256 boards, inference 2.66x and the training step 1.22x of
/// the implicit GEMM), which runs them always. On an NVIDIA H200 its transforms, then
/// memory-bound, cost more than the products saved (inference at 1024 boards 0.92x, the
/// training step at 256 0.59x), so a hardware GPU trains on the implicit GEMM and in
/// inference times the two once per layer shape and batch size and runs the faster.
fn winograd_by_default(info: &wgpu::AdapterInfo, set: Option<WinogradChoice>) -> WinogradChoice {
    set.unwrap_or(if info.device_type == wgpu::DeviceType::Cpu {
        WinogradChoice::On
    } else {
        WinogradChoice::Timed
    })
}

/// Set to `mixed`, every product runs on f16 cooperative matrices with f32 sums (the tensor
/// tile) from the start, as `precision=mixed` asks; `strict` (f32 throughout) is the default.
pub(super) const PRECISION_VARIABLE: &str = "CHECKERS_ZERO_GPU_PRECISION";

/// A cooperative matrix shape as `MxNxK A->C`, e.g. `16x16x16 F16->F32`.
fn coop_name(p: &wgpu::CooperativeMatrixProperties) -> String {
    let (m, n, k) = (p.m_size, p.n_size, p.k_size);
    format!("{m}x{n}x{k} {:?}->{:?}", p.ab_type, p.cr_type)
}

/// The cooperative matrix shape the tensor tile multiplies in: 16x16x16, f16 in, f32 sums.
fn tensor_shape(p: &wgpu::CooperativeMatrixProperties) -> bool {
    use wgpu::CooperativeScalarType::{F16, F32};
    (p.m_size, p.n_size, p.k_size) == (16, 16, 16) && p.ab_type == F16 && p.cr_type == F32
}

/// The features the tensor tile needs, or why this adapter cannot run it.
fn tensor_features(adapter: &wgpu::Adapter) -> Result<wgpu::Features, String> {
    use wgpu::Features as F;
    let (have, info, limits) = (adapter.features(), adapter.get_info(), adapter.limits());
    let need = [
        (F::SHADER_F16, "f16 in shaders (SHADER_F16)"),
        (F::SUBGROUP, "subgroups (SUBGROUP)"),
        (
            F::EXPERIMENTAL_COOPERATIVE_MATRIX,
            "cooperative matrices (EXPERIMENTAL_COOPERATIVE_MATRIX)",
        ),
    ];
    for (feature, what) in need {
        if !have.contains(feature) {
            return Err(format!("it offers no {what}"));
        }
    }
    let shapes = adapter.cooperative_matrix_properties();
    if !shapes.iter().any(tensor_shape) {
        let listed: Vec<String> = shapes.iter().map(coop_name).collect();
        return Err(format!(
            "its cooperative matrices ({}) have no 16x16x16 F16->F32 shape",
            listed.join(", ")
        ));
    }
    if info.subgroup_max_size > 32 {
        return Err(format!(
            "its subgroups may be {} wide, and the tensor tile is four subgroups of at most 32",
            info.subgroup_max_size
        ));
    }
    let tile = TileShape::Tensor;
    if limits.max_compute_workgroup_storage_size < tile.workgroup_bytes()
        || limits.max_compute_invocations_per_workgroup < tile.threads()
    {
        return Err(format!(
            "the tensor tile needs {} bytes of workgroup memory and {} invocations",
            tile.workgroup_bytes(),
            tile.threads()
        ));
    }
    Ok(need.iter().fold(F::empty(), |all, (f, _)| all | *f))
}

/// A setting from the environment, one of `values` (its name, its meaning): None where it is
/// unset or empty (a script may pass it empty to leave the choice to the default), or why it
/// is none of them.
fn setting<T: Copy>(variable: &str, values: &[(&str, T)]) -> Result<Option<T>, String> {
    let value = match std::env::var(variable) {
        Err(std::env::VarError::NotPresent) => return Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => v.to_string_lossy().into_owned(),
        Ok(v) if v.is_empty() => return Ok(None),
        Ok(v) => v,
    };
    match values.iter().find(|(name, _)| *name == value) {
        Some(&(_, meaning)) => Ok(Some(meaning)),
        None => {
            let names: Vec<&str> = values.iter().map(|(name, _)| *name).collect();
            let (last, rest) = names.split_last().expect("a setting has values");
            let list = if rest.is_empty() {
                last.to_string()
            } else {
                format!("{} or {last}", rest.join(", "))
            };
            Err(format!("{variable}={value}: expected {list}"))
        }
    }
}

/// A bind group's kernel and its buffers (the parameters' slot first), each with its offset
/// and size in bytes.
#[derive(Clone, PartialEq, Eq, Hash)]
struct BindKey {
    kernel: Kernel,
    buffers: Vec<(wgpu::Buffer, u64, u64)>,
}

impl BindKey {
    /// Whether this key binds `storage` after the parameters' `slot` for `kernel`: compared
    /// in place, so a replayed dispatch makes no key.
    fn is(&self, kernel: Kernel, slot: &Slot, storage: &[(&wgpu::Buffer, u64, u64)]) -> bool {
        let Some(((params, offset, size), rest)) = self.buffers.split_first() else {
            return false;
        };
        self.kernel == kernel
            && (params, *offset, *size) == (&slot.buffer, slot.offset, slot.size)
            && rest.len() == storage.len()
            && rest
                .iter()
                .zip(storage)
                .all(|((b, o, n), (b2, o2, n2))| (b, o, n) == (*b2, o2, n2))
    }
}

/// Bind groups kept for reuse; past this many they are all dropped (each holds its buffers).
const BIND_GROUPS_KEPT: usize = 4096;

/// A dispatch of the last call, kept at its position in the call.
struct Replayed {
    key: BindKey,
    pipeline: Arc<Pipeline>,
    bind_group: wgpu::BindGroup,
}

struct State {
    /// Bind groups made so far, by what they bind.
    bind_groups: FastMap<BindKey, wgpu::BindGroup>,
    /// Each dispatch since the last readback began, by its position: a call repeated (the
    /// same network and batch: the same kernels on the same pooled buffers and parameter
    /// slots) finds its pipelines and bind groups there by comparison, without a hash or
    /// the pipeline cache's lock (the spirit of a recorded plan replayed).
    replay: Vec<Replayed>,
    /// Dispatches recorded since the last readback began: the next one's position.
    position: usize,
    /// The compute pass open on `encoder`: one for all the dispatches between two of its other
    /// commands (copies, a submit), ended before those (and, being declared first, dropped
    /// before the encoder). Under the profiler each dispatch has a pass of its own.
    pass: Option<wgpu::ComputePass<'static>>,
    /// The pipeline last set on `pass`: consecutive dispatches of one kernel (a tower's
    /// layers) set it once.
    bound: Option<Arc<Pipeline>>,
    encoder: Option<wgpu::CommandEncoder>,
    dispatches: usize,
    params: ParamArena,
    pool: Pool,
    staging: Pool,
    /// True from the first command or buffer write recorded after a submit until the next.
    pending: bool,
    /// Command buffers submitted so far: a submission's number is the count after it.
    submitted: u64,
    profiler: Option<Profiler>,
}

/// A readback under way (`begin_download`): the length of each part, and the copies (none
/// where there was nothing to read or the device had failed). Dropped unread, its staging
/// buffer is simply freed.
pub(super) struct PendingRead {
    lens: Vec<usize>,
    copies: Option<Copies>,
}

/// A readback's staging buffer, the submission that fills it, and its mapping's outcome.
struct Copies {
    staging: wgpu::Buffer,
    bytes: u64,
    /// This context's number for the submission (see `State::submitted`).
    number: u64,
    /// wgpu's index of it.
    index: Option<wgpu::SubmissionIndex>,
    mapped: mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>,
}

fn binding(
    binding: u32,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset,
            // Empty tensors still bind one element (every pooled buffer has room).
            size: wgpu::BufferSize::new(size.max(4)),
        }),
    }
}
/// The adapters wgpu can see, best first: hardware before software, discrete before
/// integrated. Vulkan, Metal and DX12 only, unless WGPU_BACKEND names others (GL's compute
/// support is thin, and probing it on a headless machine prints errors).
pub(super) fn adapters() -> Vec<wgpu::Adapter> {
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
    });
    let mut found: Vec<wgpu::Adapter> = pollster::block_on(instance.enumerate_adapters(backends))
        .into_iter()
        .filter(|a| {
            a.get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        })
        .collect();
    found.sort_by_key(|a| {
        let info = a.get_info();
        let kind = match info.device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Other => 3,
            wgpu::DeviceType::Cpu => 4,
        };
        (
            info.device_type == wgpu::DeviceType::Cpu,
            info.backend == wgpu::Backend::Gl,
            kind,
        )
    });
    found
}

/// What one adapter is, as `bench adapter` prints it: the hardware check's gate reads
/// `software` to refuse a CPU adapter (wgpu happily picks lavapipe or llvmpipe).
#[derive(Clone, Debug, serde::Serialize)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    /// A software rasteriser on the CPU (device type Cpu), not a GPU.
    pub software: bool,
    pub driver: String,
    pub driver_info: String,
    pub vendor: u32,
    pub device: u32,
    pub timestamps: bool,
    pub max_workgroup_bytes: u32,
    pub max_invocations: u32,
    /// Whether shaders may compute in f16 (`Features::SHADER_F16`).
    pub shader_f16: bool,
    /// The cooperative matrix (tensor core) shapes the adapter offers, `MxNxK A->C` as
    /// `16x16x16 F16->F32`: none where it lacks the feature.
    pub cooperative_matrices: Vec<String>,
}

impl AdapterSummary {
    pub(super) fn of(adapter: &wgpu::Adapter) -> AdapterSummary {
        let (info, limits) = (adapter.get_info(), adapter.limits());
        AdapterSummary {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            software: info.device_type == wgpu::DeviceType::Cpu,
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            vendor: info.vendor,
            device: info.device,
            timestamps: adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY),
            max_workgroup_bytes: limits.max_compute_workgroup_storage_size,
            max_invocations: limits.max_compute_invocations_per_workgroup,
            shader_f16: adapter.features().contains(wgpu::Features::SHADER_F16),
            cooperative_matrices: if adapter
                .features()
                .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
            {
                adapter
                    .cooperative_matrix_properties()
                    .iter()
                    .map(coop_name)
                    .collect()
            } else {
                Vec::new()
            },
        }
    }
}

/// Checks the adapter can run every kernel (the GEMM tile and Adam's seven storage buffers
/// are the largest demands).
fn check_limits(limits: &wgpu::Limits) -> Result<(), String> {
    let need = super::kernel_requirements();
    let checks = [
        (
            "invocations per workgroup",
            limits.max_compute_invocations_per_workgroup,
            need.invocations,
        ),
        (
            "workgroup size x",
            limits.max_compute_workgroup_size_x,
            need.invocations,
        ),
        (
            "workgroup memory bytes",
            limits.max_compute_workgroup_storage_size,
            need.workgroup_bytes,
        ),
        (
            "storage buffers per stage",
            limits.max_storage_buffers_per_shader_stage,
            need.storage_buffers,
        ),
    ];
    for (what, have, want) in checks {
        if have < want {
            return Err(format!("it allows {have} {what}, the kernels need {want}"));
        }
    }
    Ok(())
}

/// An adapter's name, API and kind, e.g. "llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)".
pub(super) fn describe(info: &wgpu::AdapterInfo) -> String {
    format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
}

/// A wgpu error as a fault of this context.
fn classify(adapter: &str, error: wgpu::Error) -> GpuError {
    let (adapter, why) = (adapter.to_string(), error.to_string());
    match error {
        wgpu::Error::OutOfMemory { .. } => GpuError::OutOfMemory { adapter, why },
        _ => GpuError::Failed { adapter, why },
    }
}

impl GpuContext {
    pub(super) fn new(adapter: &wgpu::Adapter) -> Result<GpuContext, GpuError> {
        let info = adapter.get_info();
        let name = describe(&info);
        // Ask for everything the adapter offers: the defaults cap buffers far below it.
        let limits = adapter.limits();
        check_limits(&limits).map_err(|why| GpuError::Unsupported {
            adapter: name.clone(),
            why,
        })?;
        let tensor_features = tensor_features(adapter);
        let unsupported = |why| GpuError::Unsupported {
            adapter: name.clone(),
            why,
        };
        let on_off = [("0", false), ("1", true)];
        let checks = setting(super::pipelines::CHECKS_VARIABLE, &on_off).map_err(unsupported)?;
        let baseline = setting(BASELINE_VARIABLE, &on_off).map_err(unsupported)?;
        let choices = [
            ("0", WinogradChoice::Off),
            ("1", WinogradChoice::On),
            ("timed", WinogradChoice::Timed),
        ];
        let winograd = setting(WINOGRAD_VARIABLE, &choices).map_err(unsupported)?;
        let precisions = [("strict", false), ("mixed", true)];
        let mixed = setting(PRECISION_VARIABLE, &precisions)
            .map_err(unsupported)?
            .unwrap_or(false);
        if let (true, Err(why)) = (mixed, &tensor_features) {
            return Err(GpuError::Unsupported {
                adapter: name,
                why: format!("{PRECISION_VARIABLE}=mixed: {why}"),
            });
        }
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("checkers-zero"),
            // Timestamps where the adapter has them, for the profiler; the tensor tile's
            // features where it can run.
            required_features: (adapter.features() & wgpu::Features::TIMESTAMP_QUERY)
                | tensor_features.clone().unwrap_or_default(),
            required_limits: limits.clone(),
            // SAFETY: cooperative matrices are wgpu's only experimental feature asked for,
            // and only the tensor tile (gemm_tensor.wgsl) uses them, under `precision=mixed`.
            experimental_features: if tensor_features.is_ok() {
                unsafe { wgpu::ExperimentalFeatures::enabled() }
            } else {
                wgpu::ExperimentalFeatures::disabled()
            },
            ..Default::default()
        }))
        .map_err(|e| GpuError::RequestDevice {
            adapter: name.clone(),
            why: e.to_string(),
        })?;
        let fault = Fault::default();
        let (first, adapter_name) = (fault.clone(), name.clone());
        device.on_uncaptured_error(Arc::new(move |e| first.set(classify(&adapter_name, e))));
        let (first, adapter) = (fault.clone(), name);
        device.set_device_lost_callback(move |_, why| {
            first.set(GpuError::Lost {
                adapter: adapter.clone(),
                why,
            })
        });
        let state = State {
            bind_groups: FastMap::default(),
            replay: Vec::new(),
            position: 0,
            pass: None,
            bound: None,
            encoder: None,
            dispatches: 0,
            params: ParamArena::new(limits.min_uniform_buffer_offset_alignment),
            pool: Pool::default(),
            staging: Pool::default(),
            pending: false,
            submitted: 0,
            profiler: None,
        };
        let winograd = AtomicU8::new(winograd_by_default(&info, winograd) as u8);
        Ok(GpuContext {
            device,
            queue,
            info,
            limits,
            pipelines: PipelineCache::new(checks.unwrap_or(false)),
            baseline: baseline.unwrap_or(false),
            winograd,
            tensor: tensor_features.map(|_| ()),
            mixed: AtomicBool::new(mixed),
            state: Mutex::new(state),
            counters: Counters::default(),
            fault,
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while recording leaves the state consistent enough to go on.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The first fault since the context was made, if any.
    pub(super) fn fault(&self) -> Option<GpuError> {
        self.fault.get()
    }

    fn fail(&self, make: fn(String, String) -> GpuError, why: String) {
        self.fault.set(make(self.adapter_name(), why));
    }

    /// The pending command encoder, begun if there is none.
    fn pending<'a>(
        &self,
        encoder: &'a mut Option<wgpu::CommandEncoder>,
    ) -> &'a mut wgpu::CommandEncoder {
        encoder.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor::default())
        })
    }

    /// A storage buffer of at least `bytes`. `for_queue_write`: see `Pool::take`. A request
    /// beyond the device's limit is a fault (out of memory); the caller gets a small buffer
    /// that nothing will run on.
    pub(super) fn alloc(&self, bytes: u64, for_queue_write: bool) -> wgpu::Buffer {
        let limit = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size);
        let class = if bytes <= limit {
            size_class(bytes).min(limit)
        } else {
            self.fail(
                |adapter, why| GpuError::OutOfMemory { adapter, why },
                format!("a tensor of {bytes} bytes exceeds its buffer limit of {limit} bytes"),
            );
            size_class(0)
        };
        if let Some(b) = self.lock().pool.take(class, for_queue_write) {
            return b;
        }
        self.counters.add(Count::BufferMade(class));
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: class,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Returns a buffer no tensor uses any more to the pool.
    pub(super) fn recycle(&self, buffer: wgpu::Buffer) {
        let mut st = self.lock();
        let pending = st.pending;
        let dropped = st.pool.give(buffer, pending);
        // A kept bind group would hold a dropped buffer's memory.
        if !dropped.is_empty() {
            st.bind_groups
                .retain(|key, _| !key.buffers.iter().any(|(b, ..)| dropped.contains(b)));
            st.replay.clear();
        }
    }

    /// Writes `data` into a buffer from `alloc(_, true)`; it lands at the next submit.
    pub(super) fn write(&self, buffer: &wgpu::Buffer, data: &[u8]) {
        let _host = self.counters.host_time();
        if data.is_empty() || self.fault().is_some() || data.len() as u64 > buffer.size() {
            return;
        }
        let mut st = self.lock();
        self.queue.write_buffer(buffer, 0, data);
        self.counters.add(Count::BytesUp(data.len() as u64));
        st.pending = true;
    }

    /// Records one dispatch of `groups` workgroups: binding 0 holds `params`, bindings 1..
    /// the given storage buffers with their offsets and used sizes in bytes. `flops`: the arithmetic it
    /// does, where known, for the profiler.
    pub(super) fn record(
        &self,
        kernel: Kernel,
        params: &[u8],
        storage: &[(&wgpu::Buffer, u64, u64)],
        groups: u32,
        flops: u64,
    ) {
        let _host = self.counters.host_time();
        if self.fault().is_some() {
            return;
        }
        let Some((x, y)) = self.grid(groups) else {
            return;
        };
        let mut st = self.lock();
        if st.profiler.as_ref().is_some_and(Profiler::full) {
            self.submit(&mut st);
        }
        let slot = st.params.push(&self.device, params);
        let position = st.position;
        let replayed = st
            .replay
            .get(position)
            .filter(|r| r.key.is(kernel, &slot, storage))
            .map(|r| (r.pipeline.clone(), r.bind_group.clone()));
        let (pipeline, bind_group) = match replayed {
            Some(found) => found,
            None => {
                let Some(pipeline) = self.pipeline(kernel) else {
                    return;
                };
                let (key, bind_group) = self.bind_group(&mut st, kernel, &pipeline, &slot, storage);
                let replayed = Replayed {
                    key,
                    pipeline: pipeline.clone(),
                    bind_group: bind_group.clone(),
                };
                st.replay.truncate(position);
                st.replay.push(replayed);
                (pipeline, bind_group)
            }
        };
        st.position += 1;
        {
            let State {
                pass,
                bound,
                encoder,
                profiler,
                ..
            } = &mut *st;
            let mut own = None;
            let alone = profiler.is_some();
            let pass = match profiler {
                // Timestamps are written at a pass's ends: a pass for this dispatch alone.
                Some(profiler) => {
                    *pass = None;
                    *bound = None;
                    let bytes = storage.iter().map(|&(_, _, b)| b).sum();
                    let timestamp_writes = Some(profiler.time(kernel.name(), flops, bytes));
                    let descriptor = wgpu::ComputePassDescriptor {
                        label: None,
                        timestamp_writes,
                    };
                    own.insert(
                        self.pending(encoder)
                            .begin_compute_pass(&descriptor)
                            .forget_lifetime(),
                    )
                }
                None => {
                    if pass.is_none() {
                        *bound = None;
                    }
                    pass.get_or_insert_with(|| {
                        self.pending(encoder)
                            .begin_compute_pass(&wgpu::ComputePassDescriptor::default())
                            .forget_lifetime()
                    })
                }
            };
            if !bound.as_ref().is_some_and(|b| Arc::ptr_eq(b, &pipeline)) {
                pass.set_pipeline(&pipeline.pipeline);
            }
            *bound = (!alone).then(|| pipeline.clone());
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        self.counters.add(Count::Dispatch);
        st.pending = true;
        st.dispatches += 1;
        if st.dispatches >= SUBMIT_EVERY {
            self.submit(&mut st);
        }
    }

    /// The compiled `kernel`; `None` on a faulted device.
    fn pipeline(&self, kernel: Kernel) -> Option<Arc<Pipeline>> {
        let compiled = self.pipelines.compiled(kernel);
        if compiled.is_none() {
            // A lost device makes invalid pipelines without an error (so says WebGPU), and
            // asking one for its layout panics: let a loss report itself before compiling.
            let _ = self.device.poll(wgpu::PollType::Poll);
            if self.fault().is_some() {
                return None;
            }
        }
        match compiled.map_or_else(|| self.pipelines.get(&self.device, kernel), Ok) {
            Ok(p) => Some(p),
            // A kernel that does not compile on a working device is a bug in the program (or
            // the driver), not a fault of the device: said at once, rather than as the zeros
            // a faulted context reads back.
            Err(e @ wgpu::Error::Validation { .. }) => panic!(
                "the GPU kernel {} does not compile on {}: {e}",
                kernel.name(),
                self.adapter_name()
            ),
            Err(e) => {
                self.fault.set(classify(&self.adapter_name(), e));
                None
            }
        }
    }

    /// The bind group of `kernel` binding the parameters' `slot` and `storage`, made or found
    /// again by what it binds, with its key.
    fn bind_group(
        &self,
        st: &mut State,
        kernel: Kernel,
        pipeline: &Pipeline,
        slot: &Slot,
        storage: &[(&wgpu::Buffer, u64, u64)],
    ) -> (BindKey, wgpu::BindGroup) {
        // Found again when a call is repeated at other positions (the same buffers from the
        // pool, its parameters in the same slots: the arena starts afresh at each submit).
        let key = BindKey {
            kernel,
            buffers: std::iter::once((&slot.buffer, slot.offset, slot.size))
                .chain(storage.iter().copied())
                .map(|(buffer, offset, bytes)| (buffer.clone(), offset, bytes))
                .collect(),
        };
        if st.bind_groups.len() >= BIND_GROUPS_KEPT && !st.bind_groups.contains_key(&key) {
            st.bind_groups.clear();
            st.replay.clear();
        }
        let bind_group = st
            .bind_groups
            .entry(key.clone())
            .or_insert_with_key(|key| {
                let entries: Vec<_> = key
                    .buffers
                    .iter()
                    .zip(0..)
                    .map(|((buffer, offset, bytes), i)| binding(i, buffer, *offset, *bytes))
                    .collect();
                self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &pipeline.layout,
                    entries: &entries,
                })
            })
            .clone();
        (key, bind_group)
    }

    /// Splits a launch over x and y when it is wider than the adapter allows per dimension;
    /// a launch too large even so is a fault.
    fn grid(&self, groups: u32) -> Option<(u32, u32)> {
        let max = self.limits.max_compute_workgroups_per_dimension;
        let x = groups.clamp(1, max);
        let y = groups.div_ceil(x);
        if y > max {
            self.fail(
                |adapter, why| GpuError::Failed { adapter, why },
                format!("a launch of {groups} workgroups exceeds its {max} x {max} grid"),
            );
            return None;
        }
        Some((x, y))
    }

    /// Submits the pending encoder; its wgpu index, or None where nothing was pending.
    fn submit(&self, st: &mut State) -> Option<wgpu::SubmissionIndex> {
        if !st.pending {
            return None;
        }
        let written = st.params.write(&self.queue);
        self.counters.add(Count::BytesUp(written));
        st.pass = None;
        let mut encoder = st.encoder.take();
        if let (Some(p), Some(e)) = (&st.profiler, encoder.as_mut()) {
            p.resolve(e);
        }
        let finished = encoder.map(wgpu::CommandEncoder::finish);
        let since = std::time::Instant::now();
        let index = self.queue.submit(finished);
        self.counters.submitted_since(since);
        self.counters.add(Count::Submit);
        st.submitted += 1;
        st.params.recycle();
        st.pool.settle();
        st.pending = false;
        st.dispatches = 0;
        if let Some(p) = &mut st.profiler {
            // A failed device has reported its fault through the callbacks already.
            p.collect(&self.device);
        }
        Some(index)
    }

    /// Submits everything recorded so far (without waiting for it).
    pub(super) fn flush(&self) {
        let _host = self.counters.host_time();
        self.submit(&mut self.lock());
    }

    /// Records a copy of `bytes` between two buffers (buffer, byte offset), in command order.
    pub(super) fn copy(&self, src: (&wgpu::Buffer, u64), dst: (&wgpu::Buffer, u64), bytes: u64) {
        let _host = self.counters.host_time();
        if bytes == 0 || self.fault().is_some() {
            return;
        }
        let mut st = self.lock();
        st.pass = None;
        self.pending(&mut st.encoder)
            .copy_buffer_to_buffer(src.0, src.1, dst.0, dst.1, bytes);
        st.pending = true;
    }

    /// Storage bindings start at multiples of this many bytes: the adapter's demand, and at
    /// least 16 so the GEMM's vec4 reads of a view stay aligned.
    pub(super) fn storage_offset_align(&self) -> u64 {
        u64::from(self.limits.min_storage_buffer_offset_alignment).max(16)
    }

    /// Records the copies of `len` floats of each (buffer, byte offset, len) into one staging
    /// buffer after the pending work, submits them, and asks for the staging buffer's
    /// mapping, without waiting: the device computes while the host goes
    /// on, and [`GpuContext::finish_download`] then waits for this submission alone (not for
    /// work submitted after it).
    pub(super) fn begin_download(&self, parts: &[(&wgpu::Buffer, u64, usize)]) -> PendingRead {
        let _host = self.counters.host_time();
        let lens: Vec<usize> = parts.iter().map(|&(_, _, len)| len).collect();
        let bytes: u64 = lens.iter().map(|&len| len as u64 * 4).sum();
        if bytes == 0 || self.fault().is_some() {
            return PendingRead { lens, copies: None };
        }
        let class = size_class(bytes);
        let staging = self.lock().staging.take(class, false).unwrap_or_else(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: class,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        let (number, index) = {
            let mut st = self.lock();
            st.pass = None;
            let encoder = self.pending(&mut st.encoder);
            let mut at = 0;
            for &(buffer, offset, len) in parts {
                let part = len as u64 * 4;
                if part > 0 {
                    encoder.copy_buffer_to_buffer(buffer, offset, &staging, at, part);
                }
                at += part;
            }
            st.pending = true;
            // A readback ends a call: the next dispatch is the first of the next call.
            st.position = 0;
            let index = self.submit(&mut st);
            (st.submitted, index)
        };
        let (tx, mapped) = mpsc::channel();
        staging
            .slice(..bytes)
            .map_async(wgpu::MapMode::Read, move |r| {
                // The reading may have been dropped unread: nobody to tell then.
                let _ = tx.send(r);
            });
        let copies = Copies {
            staging,
            bytes,
            number,
            index,
            mapped,
        };
        PendingRead {
            lens,
            copies: Some(copies),
        }
    }

    /// Waits for a readback's own submission (one wait) and reads it; every part zeros after
    /// a fault.
    pub(super) fn finish_download(&self, read: PendingRead) -> Vec<Vec<f32>> {
        let data = read.copies.and_then(|copies| {
            let data = self.read_mapped(&copies);
            self.lock().staging.give(copies.staging, false);
            data
        });
        let Some(data) = data else {
            return read.lens.iter().map(|&len| vec![0.0; len]).collect();
        };
        let mut rest = data.as_slice();
        read.lens
            .iter()
            .map(|&len| {
                let (part, after) = rest.split_at(len);
                rest = after;
                part.to_vec()
            })
            .collect()
    }

    /// Waits until the copies' submission is done, then reads them from the staging buffer;
    /// None (and a fault) when the device failed.
    fn read_mapped(&self, copies: &Copies) -> Option<Vec<f32>> {
        self.counters.add(Count::Wait);
        let lost = |adapter, why| GpuError::Lost { adapter, why };
        let wait = wgpu::PollType::Wait {
            submission_index: copies.index.clone(),
            timeout: None,
        };
        if let Err(e) = self.device.poll(wait) {
            self.fail(lost, format!("waiting for it failed: {e}"));
            return None;
        }
        self.counters.waited_for(copies.number);
        match copies.mapped.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                self.fail(lost, format!("reading its memory back failed: {e}"));
                return None;
            }
            Err(_) => {
                self.fail(lost, "the readback's callback was dropped".into());
                return None;
            }
        }
        let slice = copies.staging.slice(..copies.bytes);
        let data = match slice.get_mapped_range() {
            Ok(view) => bytemuck::pod_collect_to_vec(&view),
            Err(e) => {
                self.fail(lost, format!("reading its memory back failed: {e}"));
                return None;
            }
        };
        copies.staging.unmap();
        self.counters.add(Count::BytesDown(copies.bytes));
        Some(data)
    }

    /// Starts timing every dispatch (work recorded before is submitted untimed).
    pub(super) fn start_profile(&self) -> Result<(), GpuError> {
        if !self
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
        {
            return Err(GpuError::Unsupported {
                adapter: self.adapter_name(),
                why: "it has no timestamp queries (TIMESTAMP_QUERY), which the profiler needs"
                    .into(),
            });
        }
        let mut st = self.lock();
        self.submit(&mut st);
        st.profiler = Some(Profiler::new(&self.device, &self.queue));
        Ok(())
    }

    /// Stops timing and returns each kernel's device time, the most first.
    pub(super) fn finish_profile(&self) -> Vec<KernelTime> {
        let mut st = self.lock();
        self.submit(&mut st);
        st.profiler.take().map(Profiler::report).unwrap_or_default()
    }

    /// How the towers' 3x3 convolutions run.
    pub(super) fn winograd(&self) -> WinogradChoice {
        WinogradChoice::from_u8(self.winograd.load(Ordering::Relaxed))
    }

    pub(super) fn set_winograd(&self, choice: WinogradChoice) {
        self.winograd.store(choice as u8, Ordering::Relaxed);
    }

    /// The wall time until the device has done the work `record` records, with earlier work
    /// submitted and waited for first, so that it does not count: for choosing between two
    /// ways of running a layer (winograd.rs, `Timings`), not for reporting.
    pub(super) fn time(&self, record: impl FnOnce()) -> std::time::Duration {
        self.wait_idle();
        let start = std::time::Instant::now();
        record();
        self.wait_idle();
        start.elapsed()
    }

    /// Submits what is recorded and waits until the device has done everything submitted.
    fn wait_idle(&self) {
        self.submit(&mut self.lock());
        self.counters.add(Count::Wait);
        // A failed device has reported its fault through the callbacks already.
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
    }

    /// Whether `CHECKERS_ZERO_GPU_BASELINE` turned the later fusions off.
    pub(super) fn baseline(&self) -> bool {
        self.baseline
    }

    /// How many workgroups the products should have here, and whether on the tensor tile
    /// (gemm.rs).
    pub(super) fn occupancy(&self) -> Occupancy {
        let base = if self.is_software() {
            Occupancy::SOFTWARE
        } else {
            Occupancy::HARDWARE
        };
        Occupancy {
            tensor: self.mixed(),
            ..base
        }
    }

    /// Whether the products run on cooperative matrices (`precision=mixed`).
    pub(super) fn mixed(&self) -> bool {
        self.mixed.load(Ordering::Relaxed)
    }

    /// Puts the products on cooperative matrices (or back on f32); mixed is refused, with
    /// the reason, where the adapter cannot run it.
    pub(super) fn set_mixed(&self, on: bool) -> Result<(), GpuError> {
        if let (true, Err(why)) = (on, &self.tensor) {
            return Err(GpuError::Unsupported {
                adapter: self.adapter_name(),
                why: format!("precision=mixed: {why}; strict f32 is the only precision here"),
            });
        }
        self.mixed.store(on, Ordering::Relaxed);
        Ok(())
    }

    pub(super) fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    pub(super) fn adapter_name(&self) -> String {
        describe(&self.info)
    }

    /// Counts an event of a kernel family's own (a Winograd layer).
    pub(super) fn count(&self, event: Count) {
        self.counters.add(event);
    }

    pub(super) fn counters(&self) -> GpuCounters {
        self.counters.snapshot()
    }

    #[cfg(test)]
    pub(super) fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    #[cfg(test)]
    pub(super) fn device(&self) -> &wgpu::Device {
        &self.device
    }

    #[cfg(test)]
    pub(super) fn destroy(&self) {
        self.device.destroy();
    }
}

const _: () = assert!(SUBMIT_EVERY as u32 <= profiler::CAPACITY);
