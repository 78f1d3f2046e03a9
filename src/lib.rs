//! checkers-zero: learns board games (English checkers, Othello) from zero knowledge.

pub mod agents;
pub mod arena;
pub mod charts;
pub mod cpu_time;
pub mod dates;
pub mod endgame;
pub mod engine;
pub mod errors;
pub mod events;
pub mod files;
pub mod games;
#[cfg(feature = "gui")]
pub mod gui;
pub mod health;
pub mod keys;
pub mod mcts;
pub mod names;
pub mod net;
pub mod play;
#[cfg(feature = "plot")]
pub mod plot;
pub mod progress;
pub mod seeds;
pub mod selfplay;

pub mod backend;
#[cfg(feature = "cluster")]
pub mod distributed;
mod input;
pub mod nn;
pub mod tensor;
pub mod train;

#[cfg(test)]
mod layers;

/// What the integration tests share that the library's own tests need too.
#[cfg(test)]
#[path = "../tests/common/proptest_seed.rs"]
mod test_support;

#[cfg(all(test, feature = "gpu"))]
#[path = "../tests/common/skip.rs"]
mod test_skip;
