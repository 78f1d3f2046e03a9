//! A pool of device buffers by size class, so that ops reuse buffers instead of creating one
//! each.
//!
//! Buffers freed while commands are pending (recorded, not yet submitted) are kept apart as
//! "retired" until the next submit: a later kernel may write them (the encoder keeps command
//! order), but `queue.write_buffer` may not, because it runs before the pending commands that
//! still read the old contents (see `context`).

use super::fast_hash::FastMap;

/// The pool keeps at least this many bytes, and more where a call's working set is larger.
const MIN_POOLED_BYTES: u64 = 1 << 30;

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

/// Freed buffers by size class, kept up to the larger of a floor and the most bytes ever
/// lent at once: a call of any size finds its whole working set again on its next run. When
/// a freed buffer would overflow it, the classes least recently used go first (a benchmark's
/// small batches must not crowd out its large one, which then made and destroyed hundreds of
/// megabytes a call on a GPU).
pub(super) struct Pool {
    free: FastMap<u64, Vec<wgpu::Buffer>>,
    retired: FastMap<u64, Vec<wgpu::Buffer>>,
    pooled_bytes: u64,
    /// Bytes taken (from the pool or made for a miss) and not given back; their peak.
    lent_bytes: u64,
    peak_lent: u64,
    floor: u64,
    /// The last use (take or give) of each class, by a counter of uses.
    used: FastMap<u64, u64>,
    uses: u64,
}

impl Default for Pool {
    fn default() -> Pool {
        Pool::with_floor(MIN_POOLED_BYTES)
    }
}

impl Pool {
    pub(super) fn with_floor(floor: u64) -> Pool {
        Pool {
            free: FastMap::default(),
            retired: FastMap::default(),
            pooled_bytes: 0,
            lent_bytes: 0,
            peak_lent: 0,
            floor,
            used: FastMap::default(),
            uses: 0,
        }
    }

    /// A pooled buffer of exactly `class` bytes, or None: the caller makes one. Either way
    /// the class counts as lent until given back. `for_queue_write`: it will be filled with
    /// `queue.write_buffer`, so it must not be one that pending commands may read.
    pub(super) fn take(&mut self, class: u64, for_queue_write: bool) -> Option<wgpu::Buffer> {
        self.lent_bytes += class;
        self.peak_lent = self.peak_lent.max(self.lent_bytes);
        self.touch(class);
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
    /// Returns the buffers the pool let go of to make room (this one, where nothing else
    /// could go), so that whatever else holds them can let go too.
    pub(super) fn give(&mut self, buffer: wgpu::Buffer, pending: bool) -> Vec<wgpu::Buffer> {
        let class = buffer.size();
        self.lent_bytes = self.lent_bytes.saturating_sub(class);
        self.touch(class);
        let room = self.floor.max(self.peak_lent);
        let mut dropped = Vec::new();
        while self.pooled_bytes + class > room {
            match self.least_recent_other_than(class) {
                Some(stale) => dropped.extend(self.drop_class(stale)),
                None => {
                    dropped.push(buffer);
                    return dropped;
                }
            }
        }
        self.pooled_bytes += class;
        let map = if pending {
            &mut self.retired
        } else {
            &mut self.free
        };
        map.entry(class).or_default().push(buffer);
        dropped
    }

    /// After a submit nothing is pending: retired buffers are free for any use.
    pub(super) fn settle(&mut self) {
        for (class, mut buffers) in self.retired.drain() {
            self.free.entry(class).or_default().append(&mut buffers);
        }
    }

    fn touch(&mut self, class: u64) {
        self.uses += 1;
        self.used.insert(class, self.uses);
    }

    /// The pooled class used longest ago, other than `keep`.
    fn least_recent_other_than(&self, keep: u64) -> Option<u64> {
        let pooled = |c: &u64| {
            *c != keep
                && [&self.free, &self.retired]
                    .iter()
                    .any(|m| m.get(c).is_some_and(|v| !v.is_empty()))
        };
        self.used
            .iter()
            .filter(|(c, _)| pooled(c))
            .min_by_key(|(_, t)| **t)
            .map(|(c, _)| *c)
    }

    /// Lets go of every pooled buffer of `class`.
    fn drop_class(&mut self, class: u64) -> Vec<wgpu::Buffer> {
        let mut out = Vec::new();
        for map in [&mut self.free, &mut self.retired] {
            out.extend(map.remove(&class).unwrap_or_default());
        }
        self.pooled_bytes -= out.iter().map(wgpu::Buffer::size).sum::<u64>();
        out
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
