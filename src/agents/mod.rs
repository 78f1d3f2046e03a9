//! Agents: anything that picks a move for a game. The rest of the project (play, match,
//! engine, tournaments, trainers) talks to them only through [`Agent`], and builds them from
//! an [`AgentSpec`] such as `alphabeta:depth=6,king=1.5`.

pub mod alphabeta;
pub mod checkers_eval;
pub mod error;
pub mod kinds;
pub mod learned;
pub mod othello_eval;
pub mod random;
pub mod search;
pub mod settings;
pub mod spec;

use crate::endgame::{Exact, Oracle};
use crate::games::{Checkers, Game, Rules};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub use error::AgentError;
pub use search::{AzAgent, AzConfig, AzNetwork, MctsAgent};
pub use spec::{AgentGame, AgentSpec, SpecList};

/// Set by another thread to make a running search return its best move so far (the engine's
/// `stop`). Searches poll it cheaply, as they poll their clock.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }
}

/// Two flags are equal when they are the same flag.
impl PartialEq for StopFlag {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for StopFlag {}

/// Search limits for one move; a search stops at the first limit reached. Limits given for a
/// move replace the agent's own as a whole (unset fields are then unbounded), so `movetime`
/// alone searches by time without the agent's default depth.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub movetime: Option<Duration>,
    pub nodes: Option<u64>,
    /// No bound at all: search until `stop` (or as deep as the search can go).
    pub infinite: bool,
    /// Every search polls this and, once set, returns its best move so far.
    pub stop: Option<StopFlag>,
}

impl Limits {
    /// True if no bound is given (not even `infinite`): the agent's own limits apply.
    pub fn is_empty(&self) -> bool {
        self.depth.is_none() && self.movetime.is_none() && self.nodes.is_none() && !self.infinite
    }

    /// These bounds if any is given, else those of `defaults`; the stop flag is always ours.
    pub fn or(&self, defaults: &Limits) -> Limits {
        let bounds = if self.is_empty() { defaults } else { self };
        Limits {
            stop: self.stop.clone(),
            ..bounds.clone()
        }
    }

    /// When the time runs out for a search started at `start`; `None` for no time limit or
    /// one so far off that the clock cannot represent it.
    pub fn deadline(&self, start: Instant) -> Option<Instant> {
        self.movetime.and_then(|t| start.checked_add(t))
    }

    pub fn stop_requested(&self) -> bool {
        self.stop.as_ref().is_some_and(StopFlag::is_set)
    }
}

/// An agent's view of one move: its score (see [`ScoreKind`]) and, where the agent has a
/// policy network, the network's prior for it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveScore<G: Rules = Checkers> {
    pub mv: G::Move,
    pub score: f32,
    /// The policy's probability of the move before search (see `mcts::Tree::move_stats` for
    /// moves of several hops).
    pub prior: Option<f32>,
    /// The search only proved that the move scores at most `score` (alpha-beta's moves that
    /// could not beat the best); false for exact scores and visit shares.
    pub upper_bound: bool,
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
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis<G: Rules = Checkers> {
    /// Scores of the moves it looked at, best first.
    pub moves: Vec<MoveScore<G>>,
    pub score_kind: ScoreKind,
    /// Its value of the position (positive: good for the side to move).
    pub value: f32,
    /// A short human-readable line (depth, nodes, principal variation, ...).
    pub summary: String,
    /// The line of play the agent expects, its chosen move first (may be empty).
    pub pv: Vec<G::Move>,
}

/// The oracle's move at the root of `game`, where it has one, as a decision whose analysis
/// says why: agents with perfect endgames play it without searching. `value` puts the exact
/// result on the agent's own scale.
pub(crate) fn perfect_decision<G: Rules>(
    oracle: Option<&Oracle<G>>,
    game: &Game<G>,
    limits: &Limits,
    score_kind: ScoreKind,
    value: impl Fn(Exact) -> f32,
) -> Option<Decision<G>> {
    let (pos, quiet) = (game.position(), game.quiet_plies());
    let (mv, exact) = oracle?.perfect_move(pos, quiet, limits.stop.as_ref().map(StopFlag::flag))?;
    let text = oracle?.describe(pos, quiet).unwrap_or_default();
    Some(Decision {
        mv,
        analysis: Some(Analysis {
            moves: vec![MoveScore {
                mv,
                score: value(exact),
                prior: None,
                upper_bound: false,
            }],
            score_kind,
            value: value(exact),
            summary: format!("{text} best {}", G::format_move(&mv)),
            pv: vec![mv],
        }),
    })
}

/// Puts what the oracle knows of the root of `game` ("database: draw") before an analysis's
/// summary.
pub(crate) fn note_exact<G: Rules>(
    oracle: Option<&Oracle<G>>,
    game: &Game<G>,
    analysis: &mut Analysis<G>,
) {
    if let Some(text) = oracle.and_then(|o| o.describe(game.position(), game.quiet_plies())) {
        analysis.summary = format!("{text}; {}", analysis.summary);
    }
}

/// A principal variation as move texts separated by spaces.
pub fn pv_text<G: Rules>(pv: &[G::Move]) -> String {
    pv.iter().map(G::format_move).collect::<Vec<_>>().join(" ")
}

/// The move an agent chose and, where it has one, its analysis.
#[derive(Clone, Debug)]
pub struct Decision<G: Rules = Checkers> {
    pub mv: G::Move,
    pub analysis: Option<Analysis<G>>,
}

/// An agent for game `G` (checkers unless named).
pub trait Agent<G: Rules = Checkers>: Send {
    /// The spec string that rebuilds this agent.
    fn name(&self) -> String;

    /// Chooses a move; the game must not be over.
    fn select(&mut self, game: &Game<G>, limits: &Limits) -> Decision<G>;

    /// Scores every legal move (slower than [`Agent::select`]); `None` if the agent cannot.
    fn analyse(&mut self, _game: &Game<G>, _limits: &Limits) -> Option<Analysis<G>> {
        None
    }

    /// Forgets anything carried over from an earlier game.
    fn new_game(&mut self) {}
}

/// What makes a fresh agent for each game of a match: an [`AgentSpec`], or a network held in
/// memory (the trainer's gating and gauntlet, which need no file round trip).
pub trait AgentSource<G: Rules = Checkers>: Send + Sync + std::fmt::Debug {
    /// A new agent whose randomness comes from `seed`.
    fn build(&self, seed: u64) -> Result<Box<dyn Agent<G>>, AgentError>;
}

/// A player in a match, tournament or gauntlet.
pub type Player<G = Checkers> = Arc<dyn AgentSource<G>>;

impl<G: AgentGame> AgentSource<G> for AgentSpec {
    fn build(&self, seed: u64) -> Result<Box<dyn Agent<G>>, AgentError> {
        AgentSpec::build(self, seed)
    }
}

impl<G: AgentGame> From<AgentSpec> for Player<G> {
    fn from(spec: AgentSpec) -> Player<G> {
        Arc::new(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_fall_back_to_defaults_but_keep_their_stop_flag() {
        let defaults = Limits {
            depth: Some(6),
            ..Limits::default()
        };
        let flag = StopFlag::default();
        let given = Limits {
            stop: Some(flag.clone()),
            ..Limits::default()
        };
        let used = given.or(&defaults);
        assert_eq!(used.depth, Some(6));
        assert_eq!(used.stop, Some(flag.clone()));
        assert!(!used.stop_requested());
        flag.stop();
        assert!(used.stop_requested());
        let infinite = Limits {
            infinite: true,
            ..Limits::default()
        };
        assert_eq!(infinite.or(&defaults).depth, None);
        // A movetime too large for the clock means no deadline, not a panic.
        let huge = Limits {
            movetime: Some(Duration::MAX),
            ..Limits::default()
        };
        assert_eq!(huge.deadline(Instant::now()), None);
    }
}
