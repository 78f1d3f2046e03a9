//! `az`'s tactical check (`check=D`): before the tree search, an alpha-beta search of every
//! root move to depth D with the game's own evaluation (checkers: material) or, with
//! `check_eval=strongest`, its strongest (checkers: the classic evaluation), and the
//! network's choice passed over for the most visited of the moves the check does not find
//! losing more than `check_margin` (a man by default) against the best. A tree search
//! guided by a network misses short forced lines that alpha-beta sees at once (the
//! middle-game tactics of the where-lost table); the check sees only them, and leaves every
//! choice among sound moves to the network. With `check_prior=W` its scores also steer the
//! search: a distribution over the root's moves drawn from them ([`Verdict::guide`]) makes W
//! of every root move's prior, so the moves alpha-beta rates best are searched more, and the
//! network's values still decide among them.

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

    /// The check's scores of every move of `game`'s position (`None`: it could not score
    /// them, and every move may be played).
    pub fn verdict(&mut self, game: &Game<G>) -> Option<Verdict<G>> {
        let analysis = self.search.analyse(game, &Limits::default())?;
        let moves: Vec<(G::Move, f32)> = analysis.moves.iter().map(|m| (m.mv, m.score)).collect();
        (!moves.is_empty()).then_some(Verdict {
            moves,
            margin: self.margin,
        })
    }

    pub fn new_game(&mut self) {
        self.search.new_game();
    }
}

/// How far below the best, in the check's units, a move's weight in the root's guide falls
/// by a factor of e: a quarter of a man, so a move a man behind keeps under 2% of the best's
/// weight while moves within a few tenths of a man share it.
const GUIDE_SPREAD: f32 = 0.25;

/// What the check found in one position: every move's score (at least one move).
pub struct Verdict<G: Rules> {
    moves: Vec<(G::Move, f32)>,
    margin: f32,
}

impl<G: Rules> Verdict<G> {
    fn best(&self) -> f32 {
        self.moves.iter().map(|m| m.1).fold(f32::MIN, f32::max)
    }

    /// The moves the check lets through: those within its margin of the best. (An upper
    /// bound above the line may be sound; one below it is not.)
    pub fn allowed(&self) -> Vec<G::Move> {
        let floor = self.best() - self.margin;
        let kept = self.moves.iter().filter(|m| m.1 >= floor);
        kept.map(|m| m.0).collect()
    }

    /// The scores as a distribution over the first actions of `pos`'s moves (`az:check_prior`
    /// mixes it into the root's priors): each move weighted exp((score - best) /
    /// GUIDE_SPREAD), an action taking its best move's weight (checkers' captures that branch
    /// share their first hop), normalised.
    pub fn guide(&self, pos: &G::Position) -> Vec<(G::Action, f32)> {
        let best = self.best();
        let mut guide: Vec<(G::Action, f32)> = Vec::with_capacity(self.moves.len());
        for (mv, score) in &self.moves {
            let Some(&first) = G::actions_of(pos, mv).first() else {
                continue;
            };
            let weight = ((score - best) / GUIDE_SPREAD).exp();
            match guide.iter_mut().find(|(a, _)| *a == first) {
                Some(entry) => entry.1 = entry.1.max(weight),
                None => guide.push((first, weight)),
            }
        }
        let total: f32 = guide.iter().map(|g| g.1).sum();
        guide.iter_mut().for_each(|g| g.1 /= total);
        guide
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Checkers;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn first(
        pos: &<Checkers as Rules>::Position,
        mv: &<Checkers as Rules>::Move,
    ) -> <Checkers as Rules>::Action {
        Checkers::actions_of(pos, mv)[0]
    }

    /// The guide is a distribution over first actions: the best move's the heaviest, one
    /// a man behind under 2% of it, and branches of one capture counted once, at the better
    /// branch's weight.
    #[test]
    fn the_guide_weighs_first_actions_by_their_best_move() {
        // A position with a capture that branches after its first hop.
        let mut rng = StdRng::seed_from_u64(3);
        let (pos, moves) = (0..2000)
            .find_map(|_| {
                let mut pos = Checkers::start();
                for _ in 0..rng.random_range(4..60) {
                    let moves = Checkers::legal_moves(&pos);
                    if moves.is_empty() {
                        return None;
                    }
                    pos = Checkers::apply_move(&pos, &moves[rng.random_range(0..moves.len())]);
                }
                let moves = Checkers::legal_moves(&pos);
                let shared = (moves.iter().enumerate())
                    .any(|(i, a)| moves[..i].iter().any(|b| first(&pos, a) == first(&pos, b)));
                shared.then_some((pos, moves))
            })
            .expect("a branching capture within 2,000 random games");
        // Scores falling a quarter of a man a move: the first is the best.
        let scored: Vec<(_, f32)> = (moves.iter().enumerate())
            .map(|(i, &mv)| (mv, -0.25 * i as f32))
            .collect();
        let verdict = Verdict::<Checkers> {
            moves: scored.clone(),
            margin: 1.0,
        };
        let guide = verdict.guide(&pos);
        let total: f32 = guide.iter().map(|g| g.1).sum();
        assert!((total - 1.0).abs() < 1e-5, "sums to {total}");
        let weight = |a| guide.iter().find(|g| g.0 == a).unwrap().1;
        let top = weight(first(&pos, &moves[0]));
        assert!(guide.iter().all(|g| g.1 <= top));
        let actions: std::collections::HashSet<_> = moves.iter().map(|m| first(&pos, m)).collect();
        assert_eq!(guide.len(), actions.len(), "one weight per first action");
        for (mv, score) in &scored {
            // Each action's weight is its best branch's: exp(score / spread), scaled.
            let best_branch = (scored.iter())
                .filter(|(m, _)| first(&pos, m) == first(&pos, mv))
                .map(|s| s.1)
                .fold(f32::MIN, f32::max);
            let expected = top * (best_branch / GUIDE_SPREAD).exp();
            assert!((weight(first(&pos, mv)) - expected).abs() < 1e-6, "{score}");
        }
    }
}
