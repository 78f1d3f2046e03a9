//! `az`'s hand-off in endings (`endgame=N`): once N or fewer pieces are left (Othello: empty
//! squares), the game's alpha-beta with its strongest evaluation chooses the moves instead
//! of the tree search, in the same time. The where-lost table puts many of the network's
//! lost and drawn-from-won checkers games in endings just beyond the databases, where a
//! deep alpha-beta reaches the databases' exact values and the network can only guess at
//! them; the middle game, where the network is the stronger, stays the network's.

use super::Agent;
use crate::games::Rules;

/// The alpha-beta that takes over, and where.
pub struct Handoff<G: Rules> {
    from: u32,
    left: fn(&G::Position) -> u32,
    search: Box<dyn Agent<G>>,
}

impl<G: Rules> Handoff<G> {
    /// `search` moves wherever `left` counts `from` or fewer.
    pub fn new(from: u32, left: fn(&G::Position) -> u32, search: Box<dyn Agent<G>>) -> Self {
        Handoff { from, left, search }
    }

    /// The agent that moves in `pos`, if it is the hand-off's.
    pub fn takes(&mut self, pos: &G::Position) -> Option<&mut dyn Agent<G>> {
        ((self.left)(pos) <= self.from).then_some(self.search.as_mut())
    }

    pub fn new_game(&mut self) {
        self.search.new_game();
    }
}
