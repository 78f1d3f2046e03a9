//! Tests that cannot run on this machine: skipped, or failed where everything must run.

/// Whether this machine must run every test: `CHECKERS_ZERO_REQUIRE_ALL=1` (set by .ci/run)
/// turns a test that cannot run here (no GPU adapter, no browser, no redis-server) into a
/// failure instead of a skip.
pub fn must_run_everything() -> bool {
    std::env::var("CHECKERS_ZERO_REQUIRE_ALL").as_deref() == Ok("1")
}

/// Notes that the calling test skips because of `why`; fails it instead where everything
/// must run.
pub fn skip(why: &str) {
    assert!(
        !must_run_everything(),
        "CHECKERS_ZERO_REQUIRE_ALL=1, but {why}"
    );
    eprintln!("note: skipping: {why}");
}
