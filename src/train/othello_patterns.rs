//! Fitting Othello's pattern evaluation ([`crate::agents::othello_patterns`]) to games the
//! program plays itself, by least squares, as Buro fitted Logistello's.
//!
//! Each game opens with a few random moves (so the games spread over many positions), goes
//! on with a shallow alpha-beta search (now and then a random move) of the classic
//! evaluation or of an earlier fit's patterns (better play, truer labels), and from
//! [`EXACT_EMPTIES`] empties is played perfectly by the exact solver. Every position is
//! labelled with the final disc difference for its side to move: the solver's exact value
//! from those empties on, the game's perfect-play finish before. The weights of each stage
//! are fitted by stochastic gradient descent on the squared error, in discs; every tenth
//! game is held out, to show the fit generalises.

use crate::agents::alphabeta::MAN;
use crate::agents::othello_eval::OthelloEval;
use crate::agents::othello_patterns::{Layout, PatternWeights, STAGES};
use crate::agents::pattern_file::rounded;
use crate::endgame::othello::{final_score, solve};
use crate::games::othello::{Move, Position};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Empties from which the games are played, and their positions labelled, exactly.
pub const EXACT_EMPTIES: u32 = 14;

/// One labelled position.
#[derive(Clone, Debug)]
pub struct Sample {
    pub pos: Position,
    /// The final disc difference for the side to move (perfect play from the exact empties).
    pub target: f32,
}

/// How the games are played.
#[derive(Clone, Debug)]
pub struct Play {
    /// Random moves at the start: each game takes a number up to this.
    pub random_opening: u32,
    /// The chance of a random move later, before the exact empties.
    pub random_move: f64,
    /// Plies of the alpha-beta search that chooses the other moves.
    pub depth: u32,
    /// Its evaluation: these pattern weights (an earlier fit: better play, better labels),
    /// or the classic evaluation.
    pub patterns: Option<PatternWeights>,
}

impl Default for Play {
    fn default() -> Play {
        Play {
            random_opening: 12,
            random_move: 0.05,
            depth: 4,
            patterns: None,
        }
    }
}

/// The playing search's leaf scores.
struct Scorer<'a> {
    patterns: Option<&'a PatternWeights>,
    scratch: Vec<u32>,
}

impl Scorer<'_> {
    fn score(&mut self, pos: &Position) -> i32 {
        match self.patterns {
            Some(w) => w.score(pos, &mut self.scratch),
            None => OthelloEval::score(pos),
        }
    }

    /// Negamax alpha-beta to `depth`, for the side to move; a finished game scores its
    /// result beyond any evaluation.
    fn search(&mut self, pos: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return final_score(pos.mover(), pos.opponent()).signum() * 65 * MAN;
        }
        if depth == 0 {
            return self.score(pos);
        }
        let mut best = i32::MIN + 1;
        for mv in moves {
            let v = -self.search(&pos.apply(mv), depth - 1, -beta, -alpha);
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The search's move (the first of equals).
    fn best_move(&mut self, pos: &Position, moves: &[Move], depth: u32) -> Move {
        let mut best = (i32::MIN + 1, moves[0]);
        for &mv in moves {
            let v = -self.search(
                &pos.apply(mv),
                depth.saturating_sub(1),
                i32::MIN + 1,
                -best.0,
            );
            if v > best.0 {
                best = (v, mv);
            }
        }
        best.1
    }
}

/// One game's labelled positions, from the start.
pub fn play_game(play: &Play, seed: u64) -> Vec<Sample> {
    let mut rng = StdRng::seed_from_u64(seed);
    let opening = rng.random_range(0..=play.random_opening);
    let mut scorer = Scorer {
        patterns: play.patterns.as_ref(),
        scratch: Vec::new(),
    };
    let mut pos = Position::start();
    let mut before = Vec::new();
    let mut ply = 0;
    loop {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            // Over before the exact empties: the final count, empties to the winner.
            let value = final_score(pos.mover(), pos.opponent());
            return label(before, &pos, value as f32);
        }
        if pos.empty().count_ones() <= EXACT_EMPTIES {
            return finish_exactly(before, pos);
        }
        let mv = if ply < opening || rng.random_bool(play.random_move) {
            moves[rng.random_range(0..moves.len())]
        } else {
            scorer.best_move(&pos, &moves, play.depth)
        };
        before.push(Sample { pos, target: 0.0 });
        pos = pos.apply(mv);
        ply += 1;
    }
}

/// The game from `pos` played by the exact solver, each position labelled with its value;
/// `before`, the positions that led there, labelled with the first one's.
fn finish_exactly(before: Vec<Sample>, mut pos: Position) -> Vec<Sample> {
    let mut exact = Vec::new();
    while !pos.legal_moves().is_empty() {
        let solved = solve(&pos, None).expect("no stop flag");
        exact.push(Sample {
            pos,
            target: solved.score as f32,
        });
        pos = pos.apply(solved.best.expect("a move in a game not over"));
    }
    let (start, value) = (exact[0].pos, exact[0].target);
    let mut out = label(before, &start, value);
    out.extend(exact);
    out
}

/// `samples` labelled from `at`'s value `value` for its side to move.
fn label(mut samples: Vec<Sample>, at: &Position, value: f32) -> Vec<Sample> {
    for s in &mut samples {
        s.target = if s.pos.turn() == at.turn() {
            value
        } else {
            -value
        };
    }
    samples
}

/// `games` games from `seed`, played side by side, counted on `bar`.
pub fn play_games(
    play: &Play,
    games: usize,
    seed: u64,
    bar: &indicatif::ProgressBar,
) -> Vec<Vec<Sample>> {
    super::seeded_games(games, seed, bar, |s| play_game(play, s))
}

/// What a fit did: positions, and the mean squared error in discs² of the held-out
/// positions before (every weight zero) and after.
#[derive(Clone, Debug)]
pub struct FitReport {
    pub fitted_positions: usize,
    pub held_positions: usize,
    pub fitted_mse: f64,
    pub held_zero_mse: f64,
    pub held_mse: f64,
}

struct Row {
    stage: usize,
    features: Vec<u32>,
    mobility: f32,
    target: f32,
}

fn rows<'a>(games: impl Iterator<Item = &'a Vec<Sample>>) -> Vec<Row> {
    let layout = Layout::get();
    let mut features = Vec::new();
    games
        .flatten()
        .map(|s| {
            let (stage, mobility) = layout.features(&s.pos, &mut features);
            Row {
                stage,
                features: features.clone(),
                mobility: mobility as f32,
                target: s.target,
            }
        })
        .collect()
}

/// The weights (in discs) predicting `row`.
fn predict(w: &[Vec<f32>], row: &Row) -> f32 {
    let t = &w[row.stage];
    let per = t.len();
    row.features.iter().map(|&i| t[i as usize]).sum::<f32>()
        + row.mobility * t[per - 2]
        + t[per - 1]
}

fn mse(w: &[Vec<f32>], rows: &[Row]) -> f64 {
    let sum: f64 = rows
        .iter()
        .map(|r| {
            let e = (r.target - predict(w, r)) as f64;
            e * e
        })
        .sum();
    sum / rows.len().max(1) as f64
}

/// Fits the weights to `games` (every tenth held out) over `epochs` passes.
pub fn fit(games: &[Vec<Sample>], epochs: usize, seed: u64) -> (PatternWeights, FitReport) {
    let held = rows(games.iter().skip(9).step_by(10));
    let mut fitted = rows(
        (games.iter().enumerate())
            .filter(|(i, _)| i % 10 != 9)
            .map(|(_, g)| g),
    );
    let per = Layout::get().per_stage();
    let mut w = vec![vec![0f32; per]; STAGES];
    let held_zero_mse = mse(&w, &held);
    let mut rng = StdRng::seed_from_u64(seed);
    // Each step moves every weight a position reads: about 48 of them, so a step of this
    // size corrects about half of the error at once.
    let mut rate = 0.01f32;
    for _ in 0..epochs {
        shuffle(&mut fitted, &mut rng);
        for row in &fitted {
            let e = rate * (row.target - predict(&w, row));
            let t = &mut w[row.stage];
            for &i in &row.features {
                t[i as usize] += e;
            }
            t[per - 2] += e * row.mobility / 10.0;
            t[per - 1] += e;
        }
        rate *= 0.7;
    }
    let report = FitReport {
        fitted_positions: fitted.len(),
        held_positions: held.len(),
        fitted_mse: mse(&w, &fitted),
        held_zero_mse,
        held_mse: mse(&w, &held),
    };
    let tables = rounded(&w, MAN as f32);
    (PatternWeights { tables }, report)
}

fn shuffle<T>(v: &mut [T], rng: &mut StdRng) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.random_range(0..=i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_is_labelled_exactly_at_its_end() {
        let samples = play_game(&Play::default(), 7);
        assert!(samples.len() >= 50, "{}", samples.len());
        // Labels are disc differences; the last position's is its solver's value.
        for s in &samples {
            assert!(s.target.abs() <= 64.0 && s.target as i32 % 2 == 0, "{s:?}");
        }
        let last = samples.last().unwrap();
        assert_eq!(last.target, solve(&last.pos, None).unwrap().score as f32);
        // Consecutive positions with different movers carry opposite labels before the
        // exact part (the game's one final value).
        let first = &samples[0];
        let start_label = first.target;
        for s in samples
            .iter()
            .filter(|s| s.pos.empty().count_ones() > EXACT_EMPTIES)
        {
            let same = s.pos.turn() == first.pos.turn();
            assert_eq!(s.target, if same { start_label } else { -start_label });
        }
    }

    #[test]
    fn the_fit_learns_what_the_games_teach() {
        let bar = indicatif::ProgressBar::hidden();
        let games = play_games(&Play::default(), 300, 1, &bar);
        let (weights, r) = fit(&games, 6, 1);
        assert!(
            r.held_positions > 1000 && r.fitted_positions > 10_000,
            "{r:?}"
        );
        assert!(r.fitted_mse < 0.8 * r.held_zero_mse, "{r:?}");
        assert!(r.held_mse < r.held_zero_mse, "{r:?}");
        assert!(weights.tables.iter().flatten().any(|&w| w != 0));
    }
}
