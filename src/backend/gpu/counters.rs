//! What the GPU context has done, counted since it was made: dispatches recorded, command
//! buffers submitted, blocking waits for results, and bytes moved each way. Benchmarks and the
//! dispatch-budget test read differences of two snapshots. The host's own time in the
//! context (recording, uploads, submissions: everything but waiting) is summed too.

use std::ops::Sub;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A snapshot of the counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GpuCounters {
    /// Compute dispatches recorded.
    pub dispatches: u64,
    /// Command buffers submitted to the queue.
    pub submits: u64,
    /// Times the host blocked until the device finished (readbacks).
    pub waits: u64,
    /// Bytes written from the host: tensor uploads and kernel parameters.
    pub bytes_up: u64,
    /// Bytes read back to the host.
    pub bytes_down: u64,
    /// The newest submission a wait was for (submissions numbered from 1 in order; a level,
    /// not a count: a difference keeps the later snapshot's). A readback waits for its own
    /// submission, not for all work submitted since.
    pub waited_for: u64,
    /// Nanoseconds the host spent in the context recording, uploading and submitting (not
    /// waiting for results), `submit_ns` included.
    pub host_ns: u64,
    /// Nanoseconds of that in the queue's submit calls (where a software adapter may run the
    /// work it is handed, or wait for the submission before).
    pub submit_ns: u64,
    /// Buffers made because the pool had none of their size, and their bytes: after its
    /// first run a repeated call should make none.
    pub buffers_made: u64,
    pub bytes_made: u64,
    /// 3x3 convolutions run as Winograd's (forwards and input gradients; the rest ran as
    /// implicit GEMMs): what a timed adapter chose shows here.
    pub winograd_layers: u64,
}

impl Sub for GpuCounters {
    type Output = GpuCounters;
    fn sub(self, earlier: GpuCounters) -> GpuCounters {
        GpuCounters {
            dispatches: self.dispatches - earlier.dispatches,
            submits: self.submits - earlier.submits,
            waits: self.waits - earlier.waits,
            bytes_up: self.bytes_up - earlier.bytes_up,
            bytes_down: self.bytes_down - earlier.bytes_down,
            waited_for: self.waited_for,
            host_ns: self.host_ns - earlier.host_ns,
            submit_ns: self.submit_ns - earlier.submit_ns,
            buffers_made: self.buffers_made - earlier.buffers_made,
            bytes_made: self.bytes_made - earlier.bytes_made,
            winograd_layers: self.winograd_layers - earlier.winograd_layers,
        }
    }
}

#[derive(Default)]
pub(super) struct Counters {
    dispatches: AtomicU64,
    submits: AtomicU64,
    waits: AtomicU64,
    bytes_up: AtomicU64,
    bytes_down: AtomicU64,
    waited_for: AtomicU64,
    host_ns: AtomicU64,
    submit_ns: AtomicU64,
    buffers_made: AtomicU64,
    bytes_made: AtomicU64,
    winograd_layers: AtomicU64,
}

/// Adds the time from its making to its drop to the host's time.
pub(super) struct HostTime<'a> {
    counters: &'a Counters,
    since: Instant,
}

impl Drop for HostTime<'_> {
    fn drop(&mut self) {
        self.counters
            .host_ns
            .fetch_add(since(self.since), Ordering::Relaxed);
    }
}

fn since(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Which counter an event adds to.
#[derive(Clone, Copy)]
pub(super) enum Count {
    Dispatch,
    Submit,
    Wait,
    BytesUp(u64),
    BytesDown(u64),
    /// A buffer of this many bytes made.
    BufferMade(u64),
    WinogradLayer,
}

impl Counters {
    pub(super) fn add(&self, event: Count) {
        if let Count::BufferMade(_) = event {
            self.buffers_made.fetch_add(1, Ordering::Relaxed);
        }
        let (counter, n) = match event {
            Count::Dispatch => (&self.dispatches, 1),
            Count::Submit => (&self.submits, 1),
            Count::Wait => (&self.waits, 1),
            Count::BytesUp(b) => (&self.bytes_up, b),
            Count::BytesDown(b) => (&self.bytes_down, b),
            Count::BufferMade(b) => (&self.bytes_made, b),
            Count::WinogradLayer => (&self.winograd_layers, 1),
        };
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// Notes that a wait for submission `number` ended.
    pub(super) fn waited_for(&self, number: u64) {
        self.waited_for.store(number, Ordering::Relaxed);
    }

    /// Times the host's work until the guard is dropped.
    pub(super) fn host_time(&self) -> HostTime<'_> {
        HostTime {
            counters: self,
            since: Instant::now(),
        }
    }

    /// Notes a queue submit that began at `t`.
    pub(super) fn submitted_since(&self, t: Instant) {
        self.submit_ns.fetch_add(since(t), Ordering::Relaxed);
    }

    pub(super) fn snapshot(&self) -> GpuCounters {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        GpuCounters {
            dispatches: get(&self.dispatches),
            submits: get(&self.submits),
            waits: get(&self.waits),
            bytes_up: get(&self.bytes_up),
            bytes_down: get(&self.bytes_down),
            waited_for: get(&self.waited_for),
            host_ns: get(&self.host_ns),
            submit_ns: get(&self.submit_ns),
            buffers_made: get(&self.buffers_made),
            bytes_made: get(&self.bytes_made),
            winograd_layers: get(&self.winograd_layers),
        }
    }
}
