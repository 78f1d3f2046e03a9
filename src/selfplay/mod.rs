//! Self-play (docs/ARCHITECTURE.md, "Pipeline"): worker threads each keep many games going and send
//! their leaves to one inference service that runs the network on batches; finished games become
//! samples in the replay buffer.
//!
//! - [`games`]: a worker's games (search, move choice, samples).
//! - [`inference`]: the batching inference service and its client evaluator.
//! - [`replay`]: samples, the sliding-window buffer and training batches.
//! - [`starts`]: where games start (a share from other games' positions).

pub mod games;
pub mod inference;
pub mod replay;
pub mod starts;

pub use games::{SelfPlayConfig, SelfPlayGame, material_games, play_games};
pub use inference::{InferenceClient, InferenceService, InferenceStats, inference_service};
pub use replay::{AHEAD_PLIES, ReplayBuffer, Sample, ValueTarget};
pub use starts::Starts;

use crate::endgame::EndgameGame;
use crate::games::{Checkers, Rules};
use crate::mcts::Evaluator;
use indicatif::ProgressBar;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How a self-play phase runs: workers and the service's batching.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlayRun {
    pub games: u64,
    pub workers: usize,
    /// Positions per network call at most.
    pub max_batch: usize,
    /// How long the service waits for more requests before running a partial batch.
    pub wait: Duration,
    pub seed: u64,
}

/// Finished games (in game order) and how fast they came.
pub struct SelfPlayReport<G: Rules = Checkers> {
    pub games: Vec<SelfPlayGame<G>>,
    pub elapsed: Duration,
    pub inference: InferenceStats,
    /// Share of evaluations answered by a cache in front of the network (set by its owner).
    pub cache_hit_rate: f64,
}

impl<G: Rules> SelfPlayReport<G> {
    pub fn simulations(&self) -> u64 {
        self.games.iter().map(|g| g.simulations).sum()
    }

    pub fn positions(&self) -> u64 {
        self.games.iter().map(|g| g.game.ply() as u64).sum()
    }
}

/// Plays `run.games` games, each from where `starts` says, with `eval` (run on this thread,
/// behind the inference service) answering the leaves of `run.workers` worker threads;
/// `bar` counts finished games.
pub fn self_play<G: EndgameGame>(
    eval: &mut dyn Evaluator<G>,
    config: &SelfPlayConfig,
    starts: &Starts<G>,
    run: &SelfPlayRun,
    bar: Option<&ProgressBar>,
) -> SelfPlayReport<G> {
    let start = Instant::now();
    let finished = Mutex::new(Vec::new());
    let inference = self_play_each(eval, config, starts, run, &|g| {
        finished.lock().expect("no worker panicked").push(g);
        if let Some(b) = bar {
            b.inc(1);
        }
        true
    });
    let mut games = finished.into_inner().expect("no worker panicked");
    games.sort_by_key(|g| g.index);
    SelfPlayReport {
        games,
        elapsed: start.elapsed(),
        inference,
        cache_hit_rate: 0.0,
    }
}

/// As [`self_play`], but each game goes to `done` (on its worker's thread) as it ends, so that
/// an actor sends it on at once and a kill loses only the games still being played. When
/// `done` answers `false`, no more games start; those under way are finished and handed over.
/// `run.games` must stay below 2^63 (the game counter passes it when stopped).
pub fn self_play_each<G: EndgameGame>(
    eval: &mut dyn Evaluator<G>,
    config: &SelfPlayConfig,
    starts: &Starts<G>,
    run: &SelfPlayRun,
    done: &(dyn Fn(SelfPlayGame<G>) -> bool + Sync),
) -> InferenceStats {
    let (service, client) = inference_service(eval.history(), run.max_batch, run.wait);
    let next = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..run.workers.max(1) {
            let mut client = client.clone();
            let next = &next;
            scope.spawn(move || {
                play_games(
                    config,
                    starts,
                    &mut client,
                    next,
                    run.games,
                    run.seed,
                    |g| {
                        if !done(g) {
                            next.fetch_max(run.games, Ordering::SeqCst);
                        }
                    },
                )
            });
        }
        drop(client);
        service.serve(eval)
    })
}
