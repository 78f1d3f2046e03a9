//! Seeds derived from one `--seed`, so results do not depend on thread count or on where a
//! run was interrupted and resumed.

/// A seed for one purpose (`a`, `b`) of a run, independent of thread count and of how the
/// run was split by `--resume` (splitmix64 finaliser over the mixed inputs).
pub fn derive_seed(seed: u64, a: u64, b: u64) -> u64 {
    let mut z = seed
        .wrapping_add(a.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(b.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
