//! UCT with random rollouts: the classic Monte Carlo tree search, with no knowledge beyond
//! the rules. UCB1 picks children (w/n + C sqrt(ln N / n), unvisited first); a new leaf is
//! expanded and valued by one random game played hop by hop to its end.

use super::tree::{Node, Tree};
use crate::games::{Checkers, Game, Rules};
use rand::Rng;

/// The exploration constant's usual value, about sqrt(2).
pub const DEFAULT_C: f32 = 1.41;

pub struct Uct<G: Rules = Checkers> {
    pub c: f32,
    tree: Tree<G>,
}

impl<G: Rules> Uct<G> {
    pub fn new(c: f32, game: &Game<G>) -> Self {
        Uct {
            c,
            tree: Tree::new(game),
        }
    }

    pub fn tree(&self) -> &Tree<G> {
        &self.tree
    }

    /// Moves on to the current position of `game`, keeping the searched subtree if `game`
    /// continues the searched game.
    pub fn follow(&mut self, game: &Game<G>) {
        self.tree.follow(game);
    }

    /// One simulation: descend by UCB1, expand the leaf, value it by a rollout (or exactly
    /// where the game is over) and back the value up.
    pub fn simulate(&mut self, rng: &mut impl Rng, actions: &mut Vec<G::Action>) {
        let c = self.c;
        let leaf = self.tree.descend(|parent: &Node<G>, child: &Node<G>, _| {
            match self.tree.q_for_parent(parent, child) {
                None => f32::INFINITY,
                Some(q) => q + c * ((parent.visits as f32).ln() / child.visits as f32).sqrt(),
            }
        });
        let value = match self.tree.status(leaf, actions) {
            Some(v) => v,
            None => {
                let priors = vec![1.0 / actions.len() as f32; actions.len()];
                self.tree.expand(leaf, actions, &priors, 0.0);
                let node = self.tree.node(leaf);
                rollout::<G>(node.state, node.quiet, rng, actions)
            }
        };
        self.tree.backup(leaf, value);
    }
}

/// The result of a uniformly random game (uniform over actions) from `state`, for its side
/// to move. Repetitions count only within the rollout: it is a noisy estimate anyway, and a
/// game with repetitions (checkers) has a quiet-ply rule that alone guarantees it ends.
pub fn rollout<G: Rules>(
    state: G::State,
    quiet: u32,
    rng: &mut impl Rng,
    actions: &mut Vec<G::Action>,
) -> f32 {
    let me = G::turn(&state);
    let mut s = state;
    let mut quiet = quiet;
    let mut hashes: Vec<u64> = Vec::new();
    loop {
        actions.clear();
        G::legal_actions(&s, actions);
        if actions.is_empty() {
            return G::outcome(&s).map_or(0.0, |o| o.value_for(me));
        }
        let action = actions[rng.random_range(0..actions.len())];
        if G::is_irreversible(&s, action) {
            quiet = 0;
            hashes.clear();
        } else {
            quiet += 1;
        }
        s = G::apply(&s, action);
        let Some(pos) = G::position(&s) else {
            continue;
        };
        let h = G::hash(&pos);
        hashes.push(h);
        let repeats = hashes.iter().rev().step_by(2).filter(|&&x| x == h).count();
        if G::REPETITION_DRAW.is_some_and(|n| repeats >= n)
            || G::QUIET_DRAW_PLIES.is_some_and(|n| quiet >= n)
        {
            return 0.0;
        }
    }
}
