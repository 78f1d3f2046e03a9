//! The wgpu device and queue, the pending command encoder, and readback.
//!
//! Lazy recording: every kernel records one compute pass into the pending encoder; nothing
//! runs until a readback (`download`) or an explicit `flush` submits it, so a training step
//! (forward, backward, optimizer) is one submit.
//!
//! The write rule: `queue.write_buffer` executes at the next submit *before* the pending
//! encoder's commands. So nothing is written that way into a buffer that pending commands
//! still read: uploads take only buffers freed while nothing was pending (`pool`), and each
//! dispatch's parameters get their own arena slot, written just before its submit (`params`).

use super::params::ParamArena;
use super::pipelines::{Kernel, PipelineCache};
use super::pool::{Pool, size_class};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, mpsc};

/// Recorded dispatches after which the encoder is submitted anyway, so a caller that never
/// reads back cannot grow it without bound.
const MAX_PENDING_DISPATCHES: usize = 8192;

/// Why no GPU context could be made.
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
}

pub(crate) struct GpuContext {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    pipelines: PipelineCache,
    state: Mutex<State>,
    submits: AtomicU64,
}

struct State {
    encoder: Option<wgpu::CommandEncoder>,
    dispatches: usize,
    params: ParamArena,
    pool: Pool,
    staging: Pool,
    /// True from the first command or buffer write recorded after a submit until the next.
    pending: bool,
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

impl GpuContext {
    pub(super) fn new(adapter: &wgpu::Adapter) -> Result<GpuContext, GpuError> {
        let info = adapter.get_info();
        let name = || describe(&info);
        // Ask for everything the adapter offers: the defaults cap buffers far below it.
        let limits = adapter.limits();
        check_limits(&limits).map_err(|why| GpuError::Unsupported {
            adapter: name(),
            why,
        })?;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("checkers-zero"),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| GpuError::RequestDevice {
            adapter: name(),
            why: e.to_string(),
        })?;
        let state = State {
            encoder: None,
            dispatches: 0,
            params: ParamArena::new(limits.min_uniform_buffer_offset_alignment),
            pool: Pool::default(),
            staging: Pool::default(),
            pending: false,
        };
        Ok(GpuContext {
            device,
            queue,
            info,
            limits,
            pipelines: PipelineCache::default(),
            state: Mutex::new(state),
            submits: AtomicU64::new(0),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while recording leaves the state consistent enough to go on.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A storage buffer of at least `bytes`. `for_queue_write`: see `Pool::take`.
    pub(super) fn alloc(&self, bytes: u64, for_queue_write: bool) -> wgpu::Buffer {
        let limit = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size);
        assert!(
            bytes <= limit,
            "a tensor of {bytes} bytes exceeds this GPU's buffer limit of {limit} bytes"
        );
        let class = size_class(bytes).min(limit);
        if let Some(b) = self.lock().pool.take(class, for_queue_write) {
            return b;
        }
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
        st.pool.give(buffer, pending);
    }

    /// Writes `data` into a buffer from `alloc(_, true)`; it lands at the next submit.
    pub(super) fn write(&self, buffer: &wgpu::Buffer, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        let mut st = self.lock();
        self.queue.write_buffer(buffer, 0, data);
        st.pending = true;
    }

    /// Records one dispatch of `groups` workgroups: binding 0 holds `params`, bindings 1..
    /// the given storage buffers with their used sizes in bytes.
    pub(super) fn record(
        &self,
        kernel: Kernel,
        params: &[u8],
        storage: &[(&wgpu::Buffer, u64)],
        groups: u32,
    ) {
        let pipeline = self.pipelines.get(&self.device, kernel);
        let (x, y) = self.grid(groups);
        let mut st = self.lock();
        let slot = st.params.push(&self.device, params);
        let mut entries = vec![binding(0, &slot.buffer, slot.offset, slot.size)];
        entries.extend(
            storage
                .iter()
                .zip(1..)
                .map(|(&(buffer, bytes), i)| binding(i, buffer, 0, bytes)),
        );
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.layout,
            entries: &entries,
        });
        {
            let encoder = st.encoder.get_or_insert_with(|| {
                self.device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor::default())
            });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        st.pending = true;
        st.dispatches += 1;
        if st.dispatches >= MAX_PENDING_DISPATCHES {
            self.submit(&mut st);
        }
    }

    /// Splits a launch over x and y when it is wider than the adapter allows per dimension.
    fn grid(&self, groups: u32) -> (u32, u32) {
        let max = self.limits.max_compute_workgroups_per_dimension;
        let x = groups.clamp(1, max);
        let y = groups.div_ceil(x);
        assert!(
            y <= max,
            "a launch of {groups} workgroups exceeds this GPU's {max} x {max} grid"
        );
        (x, y)
    }

    fn submit(&self, st: &mut State) {
        if !st.pending {
            return;
        }
        st.params.write(&self.queue);
        self.queue
            .submit(st.encoder.take().map(wgpu::CommandEncoder::finish));
        self.submits.fetch_add(1, Ordering::Relaxed);
        st.params.recycle();
        st.pool.settle();
        st.pending = false;
        st.dispatches = 0;
    }

    /// Submits everything recorded so far (without waiting for it).
    pub(super) fn flush(&self) {
        self.submit(&mut self.lock());
    }

    /// Submits pending work and copies the first `len` floats of `buffer` back.
    pub(super) fn download(&self, buffer: &wgpu::Buffer, len: usize) -> Vec<f32> {
        if len == 0 {
            return Vec::new();
        }
        let bytes = len as u64 * 4;
        let class = size_class(bytes);
        let staging = self.lock().staging.take(class, false).unwrap_or_else(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: class,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        {
            let mut st = self.lock();
            let encoder = st.encoder.get_or_insert_with(|| {
                self.device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor::default())
            });
            encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
            st.pending = true;
            self.submit(&mut st);
        }
        let slice = staging.slice(..bytes);
        let (tx, rx) = mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            // The receiver waits below; it cannot be gone.
            let _ = tx.send(r);
        });
        if let Err(e) = self.device.poll(wgpu::PollType::wait_indefinitely()) {
            panic!("waiting for the GPU failed: {e}");
        }
        match rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => panic!("reading GPU memory back failed: {e}"),
            Err(_) => panic!("reading GPU memory back failed: the map callback was dropped"),
        }
        let data = {
            let view = slice
                .get_mapped_range()
                .unwrap_or_else(|e| panic!("reading GPU memory back failed: {e}"));
            bytemuck::pod_collect_to_vec(&view)
        };
        staging.unmap();
        self.lock().staging.give(staging, false);
        data
    }

    pub(super) fn adapter_name(&self) -> String {
        describe(&self.info)
    }

    pub(super) fn submit_count(&self) -> u64 {
        self.submits.load(Ordering::Relaxed)
    }
}
