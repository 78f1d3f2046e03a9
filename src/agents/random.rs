//! The uniformly random agent: a floor every learner must clear.

use super::{Agent, Decision, Limits, Listener};
use crate::games::{Game, Rules};
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

impl<G: Rules> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        super::kinds::RANDOM.name(&[])
    }

    /// Uniform over distinct moves: moves to the same position (checkers' capture routes)
    /// count once.
    fn select_reporting(
        &mut self,
        game: &Game<G>,
        _limits: &Limits,
        _listener: Option<Listener<'_, G>>,
    ) -> Decision<G> {
        let moves = G::distinct_moves(game.position());
        let mv = moves[self.rng.random_range(0..moves.len())];
        Decision { mv, analysis: None }
    }
}
