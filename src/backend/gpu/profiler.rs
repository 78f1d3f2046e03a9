//! The GPU profiler: with profiling on, each dispatch's compute pass writes a timestamp where it
//! starts and where it ends (timestamp queries), and after each submit the context reads them
//! back and adds each dispatch's time to its kernel's total.
//!
//! Profiling waits for the device after every submit, so it changes the timing of the whole
//! (not of each kernel): it is for finding where device time goes, not for throughput.

use std::collections::HashMap;
use std::sync::mpsc;

/// Dispatches one submit can time; the context submits when they are used up.
pub(super) const CAPACITY: u32 = 128;

/// The device time of one kernel (an entry point of one shader variant) over a profile.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct KernelTime {
    pub kernel: String,
    pub calls: u64,
    /// Device seconds between the starts and ends of its dispatches.
    pub seconds: f64,
    /// Floating-point operations (multiply and add counted apart), where the launcher knows
    /// them (matrix products and convolutions); 0 elsewhere.
    pub flops: u64,
    /// Bytes of the buffers bound to its dispatches: what it reads and writes at most.
    pub bytes: u64,
}

/// One timed dispatch, waiting for its timestamps.
struct Timed {
    kernel: String,
    flops: u64,
    bytes: u64,
}

pub(super) struct Profiler {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Nanoseconds per timestamp tick.
    period_ns: f64,
    timed: Vec<Timed>,
    totals: HashMap<String, KernelTime>,
}

impl Profiler {
    pub(super) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Profiler {
        let bytes = u64::from(2 * CAPACITY) * 8;
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        Profiler {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("kernel timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * CAPACITY,
            }),
            resolve: buffer(
                "timestamps",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: buffer(
                "timestamp readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            period_ns: f64::from(queue.get_timestamp_period()),
            timed: Vec::new(),
            totals: HashMap::new(),
        }
    }

    /// Whether every query of this submit is taken.
    pub(super) fn full(&self) -> bool {
        self.timed.len() as u32 >= CAPACITY
    }

    /// The timestamp writes of the next dispatch (the caller submits first when `full`).
    pub(super) fn time(
        &mut self,
        kernel: String,
        flops: u64,
        bytes: u64,
    ) -> wgpu::ComputePassTimestampWrites<'_> {
        let i = self.timed.len() as u32;
        assert!(i < CAPACITY, "the profiler's queries are used up");
        self.timed.push(Timed {
            kernel,
            flops,
            bytes,
        });
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(2 * i),
            end_of_pass_write_index: Some(2 * i + 1),
        }
    }

    /// Records copying this submit's timestamps to the host-readable buffer; call last on the
    /// encoder that is about to be submitted.
    pub(super) fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        let n = self.timed.len() as u32;
        if n == 0 {
            return;
        }
        encoder.resolve_query_set(&self.queries, 0..2 * n, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, u64::from(2 * n) * 8);
    }

    /// After the submit: waits for it and adds each dispatch's time to its kernel. Returns
    /// false when the device failed (the timestamps are then lost).
    pub(super) fn collect(&mut self, device: &wgpu::Device) -> bool {
        let n = self.timed.len();
        if n == 0 {
            return true;
        }
        let slice = self.readback.slice(..n as u64 * 16);
        let (tx, rx) = mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        let ok = device.poll(wgpu::PollType::wait_indefinitely()).is_ok()
            && matches!(rx.recv(), Ok(Ok(())));
        if ok && let Ok(view) = slice.get_mapped_range() {
            let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&view);
            drop(view);
            for (t, pair) in self.timed.drain(..).zip(ticks.chunks_exact(2)) {
                let entry = self.totals.entry(t.kernel.clone()).or_default();
                entry.kernel = t.kernel;
                entry.calls += 1;
                entry.seconds += pair[1].saturating_sub(pair[0]) as f64 * self.period_ns * 1e-9;
                entry.flops += t.flops;
                entry.bytes += t.bytes;
            }
        }
        self.readback.unmap();
        self.timed.clear();
        ok
    }

    /// The totals, the most time first.
    pub(super) fn report(self) -> Vec<KernelTime> {
        let mut all: Vec<KernelTime> = self.totals.into_values().collect();
        all.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        all
    }
}
