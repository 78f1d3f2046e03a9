//! Support shared by the integration tests (each test binary uses some of it).
#![allow(dead_code, unused_imports)]

mod proptest_seed;
mod skip;

pub use proptest_seed::{REGRESSIONS, proptest_config};
pub use skip::{must_run_everything, skip};

use checkers_zero::tensor::Device;

/// Agents and drivers in this test binary find no endgame databases where a test names
/// none, whatever the machine running it has installed: a search's own proofs are what a
/// test calling this checks.
pub fn without_installed_databases() {
    checkers_zero::endgame::checkers::name_default_dir(None);
}

/// The program under test, started as a user with no endgame databases would start it:
/// whatever the machine running the tests has installed (`CHECKERS_ZERO_EGDB`, the data
/// folder) changes no answer, and nothing is written to the user's data folder.
pub fn program() -> std::process::Command {
    without_installed_databases_in(std::process::Command::new(env!(
        "CARGO_BIN_EXE_checkers-zero"
    )))
}

/// `command` (the program, or a shell that starts it) with no installed databases in reach:
/// the variable naming a folder is dropped and the data folder is an empty one.
pub fn without_installed_databases_in(mut command: std::process::Command) -> std::process::Command {
    command.env_remove("CHECKERS_ZERO_EGDB").env(
        "XDG_DATA_HOME",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/no-installed-data"),
    );
    command
}

/// The tests of one binary that use the GPU share the device; a test that counts its
/// submits needs it alone.
pub static GPU_USE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// The GPU device (any adapter, the software one included), or `None` after [`skip`].
pub fn gpu_or_skip() -> Option<Device> {
    match Device::gpu() {
        Ok(d) => Some(d),
        Err(e) => {
            skip(&format!("no GPU device could be opened: {e}"));
            None
        }
    }
}

/// Runs `body` on every device the build has: the CPU, then the GPU (skipped, with a note,
/// where none can be opened). A test written once this way checks each backend alike.
pub fn on_every_device(body: impl Fn(&Device)) {
    body(&Device::Cpu);
    #[cfg(feature = "gpu")]
    on_gpu(&body);
}

/// Runs `body` on the GPU beside the binary's other GPU tests, or skips where there is no
/// GPU.
pub fn on_gpu(body: impl FnOnce(&Device)) {
    let Some(gpu) = gpu_or_skip() else { return };
    let _shared = GPU_USE.read().unwrap_or_else(|e| e.into_inner());
    faults_first(&gpu, || body(&gpu));
}

/// Runs `body` on the GPU with no other test of the binary using it (for a test that counts
/// the context's work or changes how it plans products), or skips where there is no GPU.
#[cfg(feature = "gpu")]
pub fn on_gpu_alone(body: impl FnOnce(&Device, &checkers_zero::backend::gpu::Gpu)) {
    let Some(gpu) = gpu_or_skip() else { return };
    let _alone = GPU_USE.write().unwrap_or_else(|e| e.into_inner());
    let Device::Gpu(g) = &gpu else {
        unreachable!("Device::gpu() is a GPU")
    };
    faults_first(&gpu, || body(&gpu, g));
}

/// Runs `body`; where `gpu` faulted meanwhile (a kernel that failed to compile, a lost
/// device), the fault is what the test reports, not the zeros its kernels then read back.
fn faults_first(gpu: &Device, body: impl FnOnce()) {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    if let Err(e) = gpu.check() {
        panic!("the GPU device faulted: {e}");
    }
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
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

/// A fresh folder under the system's temporary folder, removed when dropped (also when the
/// test fails).
pub struct ScratchDir(pub std::path::PathBuf);

impl ScratchDir {
    pub fn new(name: &str) -> ScratchDir {
        let dir = std::env::temp_dir().join(format!("cz-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        ScratchDir(dir)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `train`'s (and `learner`'s) flags for a tiny run on the CPU: a few games an iteration, tiny
/// searches, short games (the iterations are the caller's).
pub fn tiny_run(games_per_iteration: u32) -> Vec<String> {
    let games = games_per_iteration.to_string();
    [
        "--games-per-iteration",
        &games,
        "--gating-games",
        "2",
        "--searches",
        "4",
        "--fast-searches",
        "2",
        "--gating-searches",
        "2",
        "--max-plies",
        "30",
        "--batch-size",
        "8",
        "--games-per-thread",
        "2",
        "--saved-games",
        "1",
        "--device",
        "cpu",
    ]
    .map(String::from)
    .to_vec()
}
