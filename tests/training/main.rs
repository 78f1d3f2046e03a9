//! The trainers: AlphaZero runs (resume, determinism) and the classic learners.

#[path = "../common/mod.rs"]
mod common;

mod alphazero;
mod curve;
mod learners;
