//! The configuration of every property test. The seed its cases are drawn from is printed
//! (libtest shows it with a failure), so `PROPTEST_RNG_SEED=N` draws the same cases again;
//! shrunk failures are also kept in the regressions file beside the test, which is committed.

use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};

/// The extension of the regressions file beside each test's source file
/// (tests/rules/movegen_reference.proptest-regressions beside movegen_reference.rs).
/// Proptest's default looks in a folder parallel to the source tree instead, where this
/// repository keeps none.
pub const REGRESSIONS: &str = "proptest-regressions";

/// `cases` cases from a fresh seed, or from `PROPTEST_RNG_SEED` when it is set.
pub fn proptest_config(cases: u32) -> Config {
    let seed = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    eprintln!(
        "property test cases drawn from seed {seed}: PROPTEST_RNG_SEED={seed} draws them again"
    );
    Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(REGRESSIONS))),
        ..Config::default()
    }
}
