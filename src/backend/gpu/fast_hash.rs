//! A fast hasher for the context's own keys (kernels, the buffers a bind group binds,
//! buffer size classes): a recorded dispatch looks up its pipeline and its bind group, and
//! with the standard library's SipHash those lookups were the largest of our own costs in a
//! batch-1 call's recording. These keys come from the program, not from users, so SipHash's
//! resistance to chosen keys buys nothing here.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Firefox's multiply-rotate hash over 64-bit words.
#[derive(Clone, Copy, Default)]
pub(super) struct FastHasher(u64);

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(n.into());
    }

    fn write_u32(&mut self, n: u32) {
        self.add(n.into());
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A hash map on [`FastHasher`].
pub(super) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash(value: impl Hash) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(value)
    }

    #[test]
    fn different_keys_hash_apart_and_equal_ones_alike() {
        assert_eq!(hash((3u32, 64u64)), hash((3u32, 64u64)));
        let hashes: std::collections::HashSet<u64> =
            (0..10_000u64).map(|i| hash((i, i % 7))).collect();
        assert_eq!(hashes.len(), 10_000, "no collisions among small keys");
        assert_ne!(hash([1u8, 2, 3].as_slice()), hash([1u8, 2, 4].as_slice()));
    }
}
