//! Trainers: the AlphaZero pipeline ([`alphazero`]). The classic learners of issue 5 — TD(lambda), a genetic algorithm and particle
//! swarm optimisation — train small value networks ([`crate::net::value_net`]) that play as the `td`,
//! `ga` and `pso` agents.

//!
//! What every trainer shares lives in small modules: its folder ([`run_dir`]), errors,
//! progress bar and strength reports.

pub mod alphazero;
pub mod errors;
pub mod ga;
pub mod progress;
pub mod pso;
pub mod run_dir;
pub mod strength;
pub mod td;
pub mod tournament;
