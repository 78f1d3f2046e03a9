//! Agents: anything that picks a move for a game. The rest of the project (play, match,
//! engine, tournaments, trainers) talks to them only through [`Agent`], and builds them from
//! an [`AgentSpec`] such as `alphabeta:depth=6,king=1.5`.

pub mod alphabeta;
pub mod book;
pub mod check;
pub mod checkers_eval;
pub mod checkers_patterns;
pub mod clock;
pub mod error;
pub mod handoff;
pub mod kinds;
pub mod learned;
pub mod othello_eval;
pub mod othello_patterns;
pub mod pattern_file;
pub mod random;
pub mod search;
pub mod settings;
pub mod spec;

use crate::endgame::{Exact, Oracle, Value};
use crate::games::{Checkers, Game, Rules};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub use error::AgentError;
pub use search::{AzAgent, AzConfig, AzNetwork, MctsAgent};
pub use spec::{AgentGame, AgentSpec, SpecList, mix_judge};

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
    /// How many of the best moves to report, each with its value and line (MultiPV, as
    /// UCI's `multipv`); 0 or 1: the best only. Not a bound: the caller's always holds.
    pub lines: usize,
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
            lines: self.lines,
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
    /// Where `score` is a proven result for the side to move (alpha-beta's wins and losses
    /// seen to the end or to the oracle, the oracle's own move), rather than an estimate.
    pub proven: Option<Proven>,
}

/// What the scores of an [`Analysis`] measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScoreKind {
    /// A value from the mover's side in the agent's own units (alpha-beta: men).
    #[default]
    Value,
    /// The move's share of the visits of all the root's moves (0 to 1, summing to 1 once
    /// any move has a visit); the tree searches' summaries give that total as `visits`.
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
    /// Where `value` is a proven result rather than an estimate: which, and how far off.
    pub proven: Option<Proven>,
    /// A short human-readable line (depth, nodes, principal variation, ...).
    pub summary: String,
    /// The line of play the agent expects, its chosen move first (may be empty).
    pub pv: Vec<G::Move>,
    /// The best moves' own lines, best first, as many as [`Limits::lines`] asked for (and
    /// the search could value exactly); empty where only the best was asked for.
    pub lines: Vec<Line<G>>,
}

/// One of the best moves a search reports (MultiPV): its value for the side to move in the
/// agent's units, whether that value is proven, and the line of play it expects, the move
/// first.
#[derive(Clone, Debug, PartialEq)]
pub struct Line<G: Rules = Checkers> {
    pub value: f32,
    pub proven: Option<Proven>,
    pub pv: Vec<G::Move>,
}

/// A result proven for the side to move: by a search that saw every line end, by the
/// endgame oracle (checkers' databases, Othello's solver), or by a tree's MCTS-solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proven {
    pub result: Value,
    /// How far off the result is, where the proof measures it (never for a draw).
    pub distance: Option<Distance>,
}

/// What a [`Proven`] result's distance counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distance {
    /// Plies to the end of the game with best play as the search saw it: the fastest win,
    /// the longest resistance to a loss (alpha-beta's wins and losses).
    End(u32),
    /// Plies to the next conversion (a capture or a man's move) with best play, as checkers'
    /// databases count them: not the end of the game, which may be much farther.
    Conversion(u32),
}

impl Proven {
    /// The oracle's exact value, with its distance to conversion where it measures one (the
    /// oracle gives 0 where it does not).
    pub fn exact(e: Exact) -> Proven {
        let measured = e.value != Value::Draw && e.distance > 0;
        Proven {
            result: e.value,
            distance: measured.then_some(Distance::Conversion(e.distance.into())),
        }
    }

    /// The words every front end shows for it: "win in 4 moves", "loss in 1 move" (moves
    /// are the side to move's own, (plies + 1) / 2, the last one included), "database win,
    /// conversion in 17 plies", "proven win" (no distance known), "draw".
    pub fn describe(&self) -> String {
        let result = match self.result {
            Value::Win => "win",
            Value::Loss => "loss",
            Value::Draw => return "draw".to_string(),
        };
        let count =
            |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        match self.distance {
            Some(Distance::End(plies)) => {
                format!("{result} in {}", count(plies.div_ceil(2), "move", "moves"))
            }
            Some(Distance::Conversion(plies)) => {
                format!(
                    "database {result}, conversion in {}",
                    count(plies, "ply", "plies")
                )
            }
            None => format!("proven {result}"),
        }
    }
}

/// The oracle's move at the root of `game`, where it has one, as a decision whose analysis
/// says why (its summary gets the oracle's sentence from the [`Reporter`]): agents with
/// perfect endgames play it without searching. `value` puts the exact result on the agent's
/// own scale.
pub(crate) fn perfect_decision<G: Rules>(
    oracle: Option<&Oracle<G>>,
    game: &Game<G>,
    limits: &Limits,
    score_kind: ScoreKind,
    value: impl Fn(Exact) -> f32,
) -> Option<Decision<G>> {
    let (pos, quiet) = (game.position(), game.quiet_plies());
    let (mv, exact) = oracle?.perfect_move(pos, quiet, limits.stop.as_ref().map(StopFlag::flag))?;
    Some(Decision {
        mv,
        analysis: Some(Analysis {
            moves: vec![MoveScore {
                mv,
                score: value(exact),
                prior: None,
                upper_bound: false,
                proven: Some(Proven::exact(exact)),
            }],
            score_kind,
            value: value(exact),
            proven: Some(Proven::exact(exact)),
            summary: format!("best {}", G::format_move(&mv)),
            pv: vec![mv],
            lines: Vec::new(),
        }),
    })
}

/// How often the tree searches (`mcts`, `az`) send a listener a snapshot.
pub const REPORT_EVERY: Duration = Duration::from_millis(200);

/// Where a search sends what it thinks while it runs (see [`Agent::select_reporting`]).
pub type Listener<'a, G = Checkers> = &'a mut (dyn FnMut(&Analysis<G>) + Send);

/// What the caller of one search is shown: every analysis gets what the endgame oracle
/// knows of the root (its sentence before the summary, its exact value as the proof), and
/// goes to the listener if there is one. Searches ask [`Reporter::listening`] or
/// [`Reporter::due`] before building a snapshot, so without a listener nothing is built and
/// no clock is checked for it.
pub(crate) struct Reporter<'a, G: Rules> {
    listener: Option<Listener<'a, G>>,
    /// When the next timed snapshot is due.
    due: Instant,
    /// The last analysis sent, so that the decision's is not sent twice.
    last: Option<Analysis<G>>,
    /// The oracle's sentence about the root ("database: draw") and its exact value there.
    note: Option<String>,
    exact: Option<Exact>,
}

impl<'a, G: Rules> Reporter<'a, G> {
    pub(crate) fn new(
        listener: Option<Listener<'a, G>>,
        oracle: Option<&Oracle<G>>,
        game: &Game<G>,
    ) -> Self {
        let (pos, quiet) = (game.position(), game.quiet_plies());
        Reporter {
            listener,
            due: Instant::now() + REPORT_EVERY,
            last: None,
            note: oracle.and_then(|o| o.describe(pos, quiet)),
            exact: oracle.and_then(|o| o.exact(pos, quiet)),
        }
    }

    pub(crate) fn listening(&self) -> bool {
        self.listener.is_some()
    }

    /// True when someone listens and a timed snapshot is due.
    pub(crate) fn due(&self) -> bool {
        self.listening() && Instant::now() >= self.due
    }

    /// Adds what the oracle knows of the root to `analysis`.
    pub(crate) fn annotate(&self, analysis: &mut Analysis<G>) {
        if let Some(text) = &self.note {
            analysis.summary = format!("{text}; {}", analysis.summary);
        }
        if let Some(e) = self.exact {
            analysis.proven = Some(Proven::exact(e));
        }
    }

    /// Sends a snapshot taken during the search.
    pub(crate) fn send(&mut self, mut analysis: Analysis<G>) {
        self.annotate(&mut analysis);
        let Some(listener) = &mut self.listener else {
            return;
        };
        listener(&analysis);
        self.last = Some(analysis);
        self.due = Instant::now() + REPORT_EVERY;
    }

    /// The search's decision, its analysis annotated and sent unless it was the last sent.
    pub(crate) fn finish(mut self, mut decision: Decision<G>) -> Decision<G> {
        if let Some(analysis) = &mut decision.analysis {
            self.annotate(analysis);
            if let Some(listener) = &mut self.listener
                && self.last.as_ref() != Some(analysis)
            {
                listener(analysis);
            }
        }
        decision
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

    /// Chooses a move (the game must not be over), telling `listener`, where there is one,
    /// what the search thinks while it runs, for live analysis (the browser, the engine's
    /// `info` lines). Each call gets a whole
    /// [`Analysis`] of the root: alpha-beta sends one after each depth it completes, deeper
    /// each time; `mcts` and `az` one every [`REPORT_EVERY`] (200 ms) of search, from the
    /// tree (each move's share of the root moves' visits, the value, the most visited line,
    /// and in the summary the simulations so far). The decision's own analysis is always
    /// the last one sent, and is not sent twice; an agent without analyses (`random`) sends
    /// nothing. Calls come from the searching thread, so a listener should only hand the
    /// snapshot on. The move does not depend on the listener (given the seed and limits,
    /// but for a time limit, which makes any search timing-dependent), and without one no
    /// snapshot is built and no clock is checked for one.
    fn select_reporting(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        listener: Option<Listener<'_, G>>,
    ) -> Decision<G>;

    /// Chooses a move; the game must not be over ([`Agent::select_reporting`] with no one
    /// listening).
    fn select(&mut self, game: &Game<G>, limits: &Limits) -> Decision<G> {
        self.select_reporting(game, limits, None)
    }

    /// Scores every legal move (slower than [`Agent::select`]); `None` if the agent cannot.
    fn analyse(&mut self, _game: &Game<G>, _limits: &Limits) -> Option<Analysis<G>> {
        None
    }

    /// `pos`'s score for its side to move, in men (checkers) or discs (Othello), searched
    /// `depth` plies ahead; `None` if the agent cannot judge single positions (only
    /// alpha-beta can).
    fn judge(&mut self, _pos: &G::Position, _depth: u32) -> Option<f32> {
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

    /// Moves are the side to move's own, the last one included; conversion is counted in
    /// the databases' plies; a distance of 0 from the oracle is no distance.
    #[test]
    fn proofs_are_worded_alike_everywhere() {
        let proven = |result, distance| Proven { result, distance }.describe();
        let (win, loss) = (Value::Win, Value::Loss);
        assert_eq!(proven(win, Some(Distance::End(1))), "win in 1 move");
        assert_eq!(proven(win, Some(Distance::End(7))), "win in 4 moves");
        assert_eq!(proven(loss, Some(Distance::End(2))), "loss in 1 move");
        assert_eq!(proven(loss, Some(Distance::End(8))), "loss in 4 moves");
        let in_db = |d| Some(Distance::Conversion(d));
        assert_eq!(proven(win, in_db(1)), "database win, conversion in 1 ply");
        assert_eq!(
            proven(loss, in_db(17)),
            "database loss, conversion in 17 plies"
        );
        assert_eq!(proven(loss, None), "proven loss");
        assert_eq!(proven(Value::Draw, None), "draw");
        let exact = |value, distance| Proven::exact(Exact { value, distance });
        assert_eq!(exact(win, 9).distance, in_db(9));
        assert_eq!(
            exact(win, 0).distance,
            None,
            "Othello's solver measures none"
        );
        assert_eq!(exact(Value::Draw, 0).describe(), "draw");
    }

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
