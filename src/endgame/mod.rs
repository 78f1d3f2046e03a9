//! Perfect endgames: checkers' endgame databases, built by retrograde analysis and probed
//! through memory maps (egdb/), and Othello's exact solver for the last empties (othello.rs).
//! [`Perfect`] is what the searches, the drivers of games and the interfaces ask of either.

pub mod checkers;
pub mod egdb;
pub mod othello;

pub use egdb::Value;

use crate::games::{Checkers, DrawReason, Game, Othello, Outcome, Rules, WinReason};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// An exact result for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exact {
    pub value: Value,
    /// Plies to the next conversion (checkers' databases) or 0 where not measured.
    pub distance: u16,
}

impl Exact {
    /// 1 win, 0 draw, -1 loss: the search trees' value scale.
    pub fn unit(self) -> f32 {
        match self.value {
            Value::Win => 1.0,
            Value::Draw => 0.0,
            Value::Loss => -1.0,
        }
    }
}

/// Perfect knowledge of a game's endings.
pub trait Perfect<G: Rules>: Send + Sync + std::fmt::Debug {
    /// The exact value of `pos` under this program's rules, where it is known at once (a
    /// database probe), given `quiet` plies since the last irreversible move. Searches ask
    /// it at every node.
    fn exact(&self, pos: &G::Position, quiet: u32) -> Option<Exact>;

    /// The perfect move of `pos` and its value, where one can be found (it may take a solve;
    /// `None` when stopped, outside reach, or where every value-keeping move is as good and
    /// the agent's own search should choose).
    fn perfect_move(
        &self,
        pos: &G::Position,
        quiet: u32,
        stop: Option<&AtomicBool>,
    ) -> Option<(G::Move, Exact)>;

    /// What a person is told about `pos`: "database: win for White, 17 plies to conversion".
    fn describe(&self, pos: &G::Position, quiet: u32) -> Option<String>;

    /// How many plies from `pos` until [`Perfect::perfect_move`] answers, where that is
    /// known in advance (Othello's solver at a number of empties; not checkers' databases,
    /// which wait for captures). A clock spends its savings before then.
    fn plies_until_perfect(&self, _pos: &G::Position) -> Option<u32> {
        None
    }
}

/// A shared endgame oracle, as agents and drivers hold it.
pub type Oracle<G> = Arc<dyn Perfect<G>>;

/// A game's perfect endgames where nothing names them: checkers' default database folder
/// when present.
pub trait EndgameGame: Rules {
    fn default_oracle() -> Option<Oracle<Self>>;

    /// The exact result of the current position of `game`, where the oracle knows it: what
    /// a driver ends a game with.
    fn proven_outcome(oracle: &Oracle<Self>, game: &Game<Self>) -> Option<Outcome> {
        let pos = game.position();
        let exact = oracle.exact(pos, game.quiet_plies())?;
        let turn = Self::side_to_move(pos);
        Some(match exact.value {
            Value::Win => Outcome::Win(turn, WinReason::Proven),
            Value::Loss => Outcome::Win(turn.opposite(), WinReason::Proven),
            Value::Draw => Outcome::Draw(DrawReason::Proven),
        })
    }
}

impl EndgameGame for Checkers {
    fn default_oracle() -> Option<Oracle<Self>> {
        checkers::default_dir().and_then(|d| checkers::oracle(&d).ok())
    }
}

impl EndgameGame for Othello {
    fn default_oracle() -> Option<Oracle<Self>> {
        None
    }
}
