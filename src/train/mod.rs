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
pub mod value_distill;

/// `games` games from `seed`, each played by `play` with its own seed, side by side on
/// rayon's threads and counted on `bar` (the pattern fits' games).
pub fn seeded_games<T: Send>(
    games: usize,
    seed: u64,
    bar: &indicatif::ProgressBar,
    play: impl Fn(u64) -> T + Sync + Send,
) -> Vec<T> {
    use rayon::prelude::*;
    (0..games as u64)
        .into_par_iter()
        .map(|g| {
            let game = play(seed.wrapping_mul(1_000_003).wrapping_add(g));
            bar.inc(1);
            game
        })
        .collect()
}
