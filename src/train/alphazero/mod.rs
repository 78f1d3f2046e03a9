//! The AlphaZero pipeline (docs/ARCHITECTURE.md, "Pipeline"): each iteration plays self-play games
//! with the best network, adds their samples to the replay window, trains the candidate network on
//! the window, gates it against the best (replacing the best when it scores at least the threshold)
//! and checkpoints, so a killed run resumes at the last finished iteration.
//!
//! - [`config`]: every hyperparameter, presets, the config file.
//! - [`pipeline`]: the run folder, the iteration loop, resume, and where an iteration's games
//!   come from (`GameSource`: its own self-play or remote actors).
//! - [`optimise`]: training the network on the replay window.
//! - [`ingest`]: how games from remote actors arrived, for the metrics.
//! - [`curve`]: a run's learning curve played afterwards from the networks it kept.
//! - [`self_play`]: a network's self-play with a run's settings (train, actors, the benchmark).

pub mod config;
pub mod curve;
pub mod ingest;
pub mod optimise;
pub mod pipeline;
pub mod self_play;

pub use config::{
    AzGame, ConfigError, ConfigOverrides, GatingDevice, OptimizerKind, Preset, TrainConfig,
    config_json, from_json_object, parse_config_json, read_config_file,
};
pub use curve::{CurveConfig, CurvePoint, CurveSettings, run_curve};
pub use ingest::IngestReport;
pub use pipeline::{
    AzState, GameSource, IterationRecord, LocalSelfPlay, Pipeline, holds_run, run_game,
};
pub use self_play::{Games, SelfPlayer};
