//! Self-play as a run's settings make it: the network behind its evaluation cache, each
//! game's search settings, and the workers' batching. `train`, `actor` and `bench selfplay`
//! all play through [`SelfPlayer`], so the benchmark measures the loop training runs.

use super::config::{AzGame, TrainConfig};
use crate::agents::{AgentError, mix_judge};
use crate::mcts::{Blend, CachedEvaluator, EncodingMismatch, Evaluator, NetEvaluator};
use crate::nn::PolicyValueNet;
use crate::selfplay::{
    InferenceStats, SelfPlayConfig, SelfPlayGame, SelfPlayReport, SelfPlayRun, Starts, self_play,
    self_play_each,
};
use crate::tensor::Device;
use indicatif::ProgressBar;
use std::time::Duration;

/// Positions the evaluation cache holds: self-play games share their openings, so positions
/// recur across games.
const CACHE_ENTRIES: usize = 1 << 18;
/// How long the inference service waits for more leaves before running a partial batch.
const BATCH_WAIT: Duration = Duration::from_millis(2);

/// Why a [`SelfPlayer`] could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SelfPlayerError {
    #[error(transparent)]
    Encoding(#[from] EncodingMismatch),
    #[error("mix's alpha-beta: {0}")]
    Judge(#[from] AgentError),
}

/// A network's self-play with a run's settings; see the module.
pub struct SelfPlayer<G: AzGame> {
    eval: CachedEvaluator<Box<dyn Evaluator<G> + Send>, G>,
    config: SelfPlayConfig,
    starts: Starts<G>,
    run: SelfPlayRun,
}

impl<G: AzGame> SelfPlayer<G> {
    /// `run`'s games of `net` (reading `encoding`), with `config`'s search and batching.
    pub fn new(
        config: &TrainConfig,
        net: PolicyValueNet,
        encoding: G::Encoding,
        device: Device,
        run: Games,
    ) -> Result<Self, SelfPlayerError> {
        let net = NetEvaluator::<G>::new(net, encoding, device)?;
        let eval: Box<dyn Evaluator<G> + Send> = match config.mix > 0.0 {
            true => {
                let judge = mix_judge::<G>(None, config.mix_depth, run.seed)?;
                Box::new(Blend::new(net, config.mix, judge))
            }
            false => Box::new(net),
        };
        Ok(SelfPlayer {
            eval: CachedEvaluator::new(eval, CACHE_ENTRIES),
            config: config.self_play(),
            starts: Starts::default(),
            run: SelfPlayRun {
                games: run.games,
                workers: run.workers.max(1),
                max_batch: config.inference_batch as usize,
                wait: BATCH_WAIT,
                seed: run.seed,
            },
        })
    }

    /// Starts a share of the games from other games' positions, not the start position.
    pub fn with_starts(mut self, starts: Starts<G>) -> Self {
        self.starts = starts;
        self
    }

    /// Plays the games; `bar` counts them. The report's cache hit rate is the cache's over
    /// this player's life.
    pub fn play(&mut self, bar: Option<&ProgressBar>) -> SelfPlayReport<G> {
        let mut report = self_play(&mut self.eval, &self.config, &self.starts, &self.run, bar);
        report.cache_hit_rate = self.cache_hit_rate();
        report
    }

    /// Plays the games, handing each to `done` as it ends (false: start no more).
    pub fn play_each(&mut self, done: &(dyn Fn(SelfPlayGame<G>) -> bool + Sync)) -> InferenceStats {
        self_play_each(&mut self.eval, &self.config, &self.starts, &self.run, done)
    }

    /// The share of evaluations the cache answered.
    pub fn cache_hit_rate(&self) -> f64 {
        let lookups = (self.eval.hits + self.eval.misses).max(1);
        self.eval.hits as f64 / lookups as f64
    }
}

/// How many games, on how many worker threads, from which seed.
#[derive(Clone, Copy, Debug)]
pub struct Games {
    pub games: u64,
    pub workers: usize,
    pub seed: u64,
}
