//! Agents: anything that picks a move for a game. The rest of the project (play, match,
//! engine, tournaments, trainers) talks to them only through [`Agent`], and builds them from
//! an [`AgentSpec`] such as `alphabeta:depth=6,king=1.5`.

pub mod alphabeta;
pub mod learned;
pub mod random;
pub mod settings;
pub mod spec;

use crate::game::{Game, Move};
use std::time::Duration;

pub use spec::{AgentError, AgentSpec};

/// Search limits for one move; a search stops at the first limit reached. Limits given for a
/// move replace the agent's own as a whole (unset fields are then unbounded), so `movetime`
/// alone searches by time without the agent's default depth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub movetime: Option<Duration>,
    pub nodes: Option<u64>,
}

impl Limits {
    pub fn is_empty(&self) -> bool {
        self.depth.is_none() && self.movetime.is_none() && self.nodes.is_none()
    }

    /// These limits if any is set, else `defaults`.
    pub fn or(self, defaults: Limits) -> Limits {
        if self.is_empty() { defaults } else { self }
    }
}

/// An agent's view of one move: its score (see [`ScoreKind`]) and, where the agent has a
/// policy network, the network's prior for it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveScore {
    pub mv: Move,
    pub score: f32,
    /// The policy's probability of the move before search (see `mcts::Tree::move_stats` for
    /// moves of several hops).
    pub prior: Option<f32>,
}

/// What the scores of an [`Analysis`] measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScoreKind {
    /// A value from the mover's side in the agent's own units (alpha-beta: men).
    #[default]
    Value,
    /// The move's share of the search's visits at the root (0 to 1).
    VisitShare,
}

/// What an agent thinks of a position, from the side to move.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Analysis {
    /// Scores of the moves it looked at, best first.
    pub moves: Vec<MoveScore>,
    pub score_kind: ScoreKind,
    /// Its value of the position (positive: good for the side to move).
    pub value: f32,
    /// A short human-readable line (depth, nodes, principal variation, ...).
    pub summary: String,
}

/// The move an agent chose and, where it has one, its analysis.
#[derive(Clone, Debug)]
pub struct Decision {
    pub mv: Move,
    pub analysis: Option<Analysis>,
}

pub trait Agent: Send {
    /// The spec string that rebuilds this agent.
    fn name(&self) -> String;

    /// Chooses a move; the game must not be over.
    fn select(&mut self, game: &Game, limits: &Limits) -> Decision;

    /// Scores every legal move (slower than [`Agent::select`]); `None` if the agent cannot.
    fn analyse(&mut self, _game: &Game, _limits: &Limits) -> Option<Analysis> {
        None
    }

    /// Forgets anything carried over from an earlier game.
    fn new_game(&mut self) {}
}
