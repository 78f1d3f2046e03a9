//! Trainers: the AlphaZero pipeline ([`alphazero`]). The classic learners —
//! TD(lambda), a genetic algorithm and particle swarm optimisation — train small value
//! networks ([`crate::net::value_net`], for Othello's TD [`crate::net::othello_value`]) that
//! play as the `td`, `ga` and `pso` agents.
//!
//! What every trainer shares lives in small modules: its folder ([`run_dir`]: claim, resume,
//! metrics log), errors, progress bar and strength reports; GA and PSO also share one run loop
//! ([`population`]) and the games that score their networks ([`fitness`]).

pub mod alphazero;
pub mod checkers_patterns;
pub mod errors;
pub mod eval_fit;
pub mod fitness;
pub mod ga;
pub mod othello_patterns;
pub mod population;
pub mod pso;
pub mod run_dir;
pub mod strength;
pub mod td;
