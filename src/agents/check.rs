//! `az`'s tactical check (`check=D`): before the tree search, an alpha-beta search of every
//! root move to depth D with the game's own evaluation (checkers: material) or, with
//! `check_eval=strongest`, its strongest (checkers: the classic evaluation), and the
//! network's choice passed over for the most visited of the moves the check does not find
//! losing more than `check_margin` (a man by default) against the best. A tree search
//! guided by a network misses short forced lines that alpha-beta sees at once (the
//! middle-game tactics of the where-lost table); the check sees only them, and leaves every
//! choice among sound moves to the network.

use super::settings::CheckEval;
use super::{Agent, AgentError, AgentGame, AgentSpec, Limits};
use crate::games::{Game, Rules};
use crate::mcts::MoveStats;

/// The checking search: an agent whose analysis scores every root move.
pub struct Check<G: Rules> {
    search: Box<dyn Agent<G>>,
    /// How far below the best checked move, in the checker's units (men), a move may score
    /// and still be played. A sacrifice the network wants within it stays playable; a move
    /// that drops more to a line of D plies does not. (Othello's alpha-beta scores in units
    /// of its own evaluation; the check is measured only in checkers.)
    margin: f32,
}

impl<G: Rules> Check<G> {
    /// Alpha-beta to `depth` with the evaluation `eval` picks, and the endgame databases of
    /// `egdb` where given, letting through moves within `margin` of the best.
    pub fn new(
        depth: u32,
        eval: CheckEval,
        margin: f32,
        egdb: Option<&str>,
        seed: u64,
    ) -> Result<Self, AgentError>
    where
        G: AgentGame,
    {
        let mut spec = match eval {
            CheckEval::Own => AgentSpec::new("alphabeta"),
            CheckEval::Strongest => G::endgame_search(None),
        };
        spec.set("depth", &depth.to_string());
        if let Some(egdb) = egdb {
            spec.set("egdb", egdb);
        }
        Ok(Check {
            search: spec.build::<G>(seed)?,
            margin,
        })
    }

    /// The moves of `game`'s position that the check lets through (`None`: it could not
    /// score them, and every move may be played).
    pub fn allowed(&mut self, game: &Game<G>) -> Option<Vec<G::Move>> {
        let analysis = self.search.analyse(game, &Limits::default())?;
        let best = analysis.moves.iter().map(|m| m.score).reduce(f32::max)?;
        // An upper bound above the line may be sound; one below it is not.
        let kept = analysis
            .moves
            .iter()
            .filter(|m| m.score >= best - self.margin);
        Some(kept.map(|m| m.mv).collect())
    }

    pub fn new_game(&mut self) {
        self.search.new_game();
    }
}

/// The most visited of the root's moves that `allowed` holds (ties to the higher prior).
pub fn most_visited_allowed<G: Rules>(
    stats: &[MoveStats<G>],
    allowed: &[G::Move],
) -> Option<G::Move> {
    (stats.iter())
        .filter(|s| allowed.contains(&s.mv))
        .max_by(|a, b| a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior)))
        .map(|s| s.mv)
}
