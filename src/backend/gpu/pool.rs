//! A pool of device buffers by size class, so that ops reuse buffers instead of creating one
//! each.
//!
//! Buffers freed while commands are pending (recorded, not yet submitted) are kept apart as
//! "retired" until the next submit: a later kernel may write them (the encoder keeps command
//! order), but `queue.write_buffer` may not, because it runs before the pending commands that
//! still read the old contents (see `context`).

use super::fast_hash::FastMap;

/// Pooled bytes above which freed buffers are destroyed instead of kept.
const MAX_POOLED_BYTES: u64 = 1 << 30;

/// Smallest size class: tiny tensors share it.
const MIN_CLASS: u64 = 256;

/// The size class of a request: a multiple of an eighth of the next power of two, so a
/// buffer is at most 25% larger than asked for.
pub(super) fn size_class(bytes: u64) -> u64 {
    if bytes <= MIN_CLASS {
        return MIN_CLASS;
    }
    bytes.next_multiple_of(bytes.next_power_of_two() / 8)
}

#[derive(Default)]
pub(super) struct Pool {
    free: FastMap<u64, Vec<wgpu::Buffer>>,
    retired: FastMap<u64, Vec<wgpu::Buffer>>,
    pooled_bytes: u64,
}

impl Pool {
    /// A pooled buffer of exactly `class` bytes. `for_queue_write`: it will be filled with
    /// `queue.write_buffer`, so it must not be one that pending commands may read.
    pub(super) fn take(&mut self, class: u64, for_queue_write: bool) -> Option<wgpu::Buffer> {
        let pick =
            |map: &mut FastMap<u64, Vec<wgpu::Buffer>>| map.get_mut(&class).and_then(Vec::pop);
        let buffer = match pick(&mut self.free) {
            Some(b) => Some(b),
            None if !for_queue_write => pick(&mut self.retired),
            None => None,
        }?;
        self.pooled_bytes -= buffer.size();
        Some(buffer)
    }

    /// Takes back a buffer no tensor uses any more; `pending`: recorded commands may use it.
    pub(super) fn give(&mut self, buffer: wgpu::Buffer, pending: bool) {
        if self.pooled_bytes + buffer.size() > MAX_POOLED_BYTES {
            return;
        }
        self.pooled_bytes += buffer.size();
        let map = if pending {
            &mut self.retired
        } else {
            &mut self.free
        };
        map.entry(buffer.size()).or_default().push(buffer);
    }

    /// After a submit nothing is pending: retired buffers are free for any use.
    pub(super) fn settle(&mut self) {
        for (class, mut buffers) in self.retired.drain() {
            self.free.entry(class).or_default().append(&mut buffers);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_cover_requests_with_little_waste() {
        assert_eq!(size_class(0), 256);
        assert_eq!(size_class(256), 256);
        assert_eq!(size_class(257), 320);
        assert_eq!(size_class(1000), 1024);
        assert_eq!(size_class(1025), 1280);
        for bytes in (1..100_000u64).step_by(37) {
            let c = size_class(bytes);
            assert!(
                c >= bytes && (c <= 256 || c * 4 <= bytes * 5 + 4 * 256),
                "{bytes} -> {c}"
            );
            assert_eq!(size_class(c), c, "a class is its own class");
        }
    }
}
