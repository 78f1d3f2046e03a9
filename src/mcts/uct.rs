//! UCT with random rollouts: the classic Monte Carlo tree search, with no knowledge beyond
//! the rules. UCB1 picks children (w/n + C sqrt(ln N / n), unvisited first); a new leaf is
//! expanded and valued by one random game played hop by hop to its end.

use super::tree::{Node, Tree};
use crate::games::checkers::Game;
use crate::games::checkers::hops::{Hop, HopState};
use crate::games::checkers::record::FORTY_MOVE_PLIES;
use rand::Rng;

/// The exploration constant's usual value, about sqrt(2).
pub const DEFAULT_C: f32 = 1.41;

pub struct Uct {
    pub c: f32,
    tree: Tree,
}

impl Uct {
    pub fn new(c: f32, game: &Game) -> Uct {
        Uct {
            c,
            tree: Tree::new(game),
        }
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Moves on to the current position of `game`, keeping the searched subtree if `game`
    /// continues the searched game.
    pub fn follow(&mut self, game: &Game) {
        self.tree.follow(game);
    }

    /// One simulation: descend by UCB1, expand the leaf, value it by a rollout (or exactly
    /// where the game is over) and back the value up.
    pub fn simulate(&mut self, rng: &mut impl Rng, hops: &mut Vec<Hop>) {
        let c = self.c;
        let leaf = self.tree.descend(|parent: &Node, child: &Node, _| {
            match self.tree.q_for_parent(parent, child) {
                None => f32::INFINITY,
                Some(q) => q + c * ((parent.visits as f32).ln() / child.visits as f32).sqrt(),
            }
        });
        let value = match self.tree.status(leaf, hops) {
            Some(v) => v,
            None => {
                let priors = vec![1.0 / hops.len() as f32; hops.len()];
                self.tree.expand(leaf, hops, &priors);
                let node = self.tree.node(leaf);
                rollout(node.state, node.quiet, rng, hops)
            }
        };
        self.tree.backup(leaf, value);
    }
}

/// The result of a uniformly random game (uniform over hops) from `state`, for its side to
/// move. Repetitions count only within the rollout: it is a noisy estimate anyway, and the
/// 40-move rule alone guarantees it ends.
pub fn rollout(state: HopState, quiet: u32, rng: &mut impl Rng, hops: &mut Vec<Hop>) -> f32 {
    let me = state.turn();
    let mut s = state;
    let mut quiet = quiet;
    let mut hashes: Vec<u64> = Vec::new();
    loop {
        hops.clear();
        s.legal_hops(hops);
        if hops.is_empty() {
            return if s.turn() == me { -1.0 } else { 1.0 };
        }
        let hop = hops[rng.random_range(0..hops.len())];
        let reversible = s.is_turn_start() && !s.is_jump(hop) && s.is_king(hop.from);
        s = s.apply(hop);
        if !s.is_turn_start() {
            continue;
        }
        if reversible {
            quiet += 1;
        } else {
            quiet = 0;
            hashes.clear();
        }
        let h = s.position().hash();
        hashes.push(h);
        let repeats = hashes.iter().rev().step_by(2).filter(|&&x| x == h).count();
        if repeats >= 3 || quiet >= FORTY_MOVE_PLIES {
            return 0.0;
        }
    }
}
