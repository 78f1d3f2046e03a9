//! Support shared by the integration tests.

use checkers_zero::tensor::Device;

/// The GPU device (any adapter, the software one included), or `None` with a note when there
/// is none, unless CHECKERS_ZERO_REQUIRE_GPU=1 (set by CI), in which case a missing adapter
/// fails the test instead of silently skipping it.
pub fn gpu_or_skip() -> Option<Device> {
    match Device::gpu() {
        Ok(d) => Some(d),
        Err(e) if std::env::var("CHECKERS_ZERO_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("CHECKERS_ZERO_REQUIRE_GPU=1 but no GPU device could be opened: {e}")
        }
        Err(e) => {
            eprintln!("note: skipping GPU test: {e}");
            None
        }
    }
}

/// `count` random Othello boards (every cell own, the opponent's or empty) from `rng`.
pub fn random_discs(
    rng: &mut impl rand::Rng,
    count: usize,
) -> Vec<checkers_zero::net::towers::Discs> {
    (0..count)
        .map(|_| {
            let (a, b): (u64, u64) = (rng.random(), rng.random());
            checkers_zero::net::towers::Discs {
                own: a & b,
                opponent: a & !b,
            }
        })
        .collect()
}
