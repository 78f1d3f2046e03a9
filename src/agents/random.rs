//! The uniformly random agent: a floor every learner must clear.

use super::{Agent, Decision, Limits};
use crate::games::checkers::{Game, dedup_routes_of};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub struct RandomAgent {
    rng: StdRng,
}

impl RandomAgent {
    pub fn new(seed: u64) -> Self {
        RandomAgent {
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    /// Uniform over distinct moves: capture routes to the same result count once.
    fn select(&mut self, game: &Game, _limits: &Limits) -> Decision {
        let moves = dedup_routes_of(game.legal_moves());
        let mv = moves[self.rng.random_range(0..moves.len())];
        Decision { mv, analysis: None }
    }
}
