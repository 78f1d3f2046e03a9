//! Fitting checkers' pattern evaluation ([`crate::agents::checkers_patterns`]) to a
//! network's values: the network's judgement of a position, moved into tables that
//! alpha-beta reads at the speed of a lookup (distillation).
//!
//! Games start from the ballots and go on with a shallow alpha-beta search of the classic
//! evaluation, now and then a random move (so that the positions spread as a deep search's
//! leaves do). Every position whose side to move has no capture (the only ones alpha-beta
//! evaluates: captures are searched out) is labelled with the network's value for its side
//! to move, or with the shipped patterns' own alpha-beta score a few plies deep
//! ([`label_by_search`]; the shipped weights are such a refit, which beat the
//! network-fitted tables at equal depth). The weights are fitted by stochastic gradient
//! descent on the squared error of `tanh(MIX_SCALE * score)` against that value, the score
//! in men (the squashing `az:mix` uses, so a score reads as the network's value); every
//! tenth game is held out.

use crate::agents::alphabeta::MAN;
use crate::agents::checkers_eval::{ClassicWeights, classic_score, classic_terms, material_lead};
use crate::agents::checkers_patterns::{
    CheckersPatterns, PER_STAGE, STAGES, features, piece_square,
};
use crate::agents::pattern_file::rounded;
use crate::agents::{AgentGame, AgentSpec, Limits};
use crate::arena::{ArenaGame, OpeningSet};
use crate::games::checkers::{Checkers, Position};
use crate::games::{Game, Rules};
use crate::mcts::evaluator::{EvalInput, Evaluator};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// How the games are played.
#[derive(Clone, Debug)]
pub struct Play {
    /// Plies of the classic evaluation's alpha-beta that chooses the moves.
    pub depth: u32,
    /// The chance of a random move instead.
    pub random_move: f64,
    /// Plies after which a game is left (a long ending adds little).
    pub max_plies: usize,
}

impl Default for Play {
    fn default() -> Play {
        Play {
            depth: 4,
            random_move: 0.1,
            max_plies: 160,
        }
    }
}

/// One game's positions to label, as a network reads them (`history` earlier positions).
pub fn play_game(play: &Play, seed: u64, history: usize) -> Vec<EvalInput<Checkers>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let openings = Checkers::starting_games(OpeningSet::Standard);
    let mut game: Game = openings[rng.random_range(0..openings.len())].1.clone();
    let spec: AgentSpec = format!("alphabeta:eval=classic,depth={}", play.depth)
        .parse()
        .expect("a valid spec");
    let mut agent = spec
        .build::<Checkers>(seed)
        .expect("the classic alpha-beta builds");
    let limits = Limits {
        depth: Some(play.depth),
        ..Limits::default()
    };
    let mut out = Vec::new();
    while game.outcome().is_none() && game.ply() < play.max_plies {
        let moves = game.legal_moves();
        let pos = *game.position();
        if !moves[0].is_capture() {
            let state = Checkers::turn_start(&pos);
            let mut actions = Vec::new();
            Checkers::legal_actions(&state, &mut actions);
            let earlier = game.positions();
            out.push(EvalInput {
                state,
                quiet: game.quiet_plies(),
                history: earlier[..earlier.len() - 1]
                    .iter()
                    .rev()
                    .take(history)
                    .copied()
                    .collect(),
                actions,
            });
        }
        let mv = if rng.random_bool(play.random_move) {
            moves[rng.random_range(0..moves.len())]
        } else {
            agent.select(&game, &limits).mv
        };
        game.play(mv);
    }
    out
}

/// `games` games from `seed`, played side by side, counted on `bar`.
pub fn play_games(
    play: &Play,
    games: usize,
    seed: u64,
    history: usize,
    bar: &indicatif::ProgressBar,
) -> Vec<Vec<EvalInput<Checkers>>> {
    super::seeded_games(games, seed, bar, |s| play_game(play, s, history))
}

/// A labelled position: its turn-start position and the network's value for its side to
/// move.
#[derive(Clone, Debug)]
pub struct Sample {
    pub pos: Position,
    pub target: f32,
}

/// Each game's positions with `evaluator`'s values, in batches of `batch`, counted on `bar`.
pub fn label(
    games: &[Vec<EvalInput<Checkers>>],
    evaluator: &mut impl Evaluator<Checkers>,
    batch: usize,
    bar: &indicatif::ProgressBar,
) -> Vec<Vec<Sample>> {
    let flat: Vec<&EvalInput<Checkers>> = games.iter().flatten().collect();
    let mut values = Vec::with_capacity(flat.len());
    for chunk in flat.chunks(batch.max(1)) {
        let inputs: Vec<EvalInput<Checkers>> = chunk.iter().map(|&i| i.clone()).collect();
        values.extend(evaluator.evaluate(&inputs).into_iter().map(|e| e.value));
        bar.inc(chunk.len() as u64);
    }
    let mut values = values.into_iter();
    (games.iter())
        .map(|g| {
            (g.iter())
                .map(|i| Sample {
                    pos: Checkers::position(&i.state).expect("a turn's start"),
                    target: values.next().expect("a value for every input"),
                })
                .collect()
        })
        .collect()
}

/// Each game's positions labelled instead by the shipped patterns' own alpha-beta, `depth`
/// plies deep (with the endgame databases where the agent finds them), its score squashed as
/// `az:mix` squashes it: the tables fitted to their search's look-ahead (bootstrapping, as
/// TD-leaf and TreeStrap do), rather than to the network's judgement of the position alone.
/// Games are labelled side by side, counted on `bar`.
pub fn label_by_search(
    games: &[Vec<EvalInput<Checkers>>],
    depth: u32,
    bar: &indicatif::ProgressBar,
) -> Vec<Vec<Sample>> {
    use rayon::prelude::*;
    let spec: AgentSpec = "alphabeta:eval=patterns".parse().expect("a valid spec");
    (games.par_iter())
        .map_init(
            || {
                spec.build::<Checkers>(0)
                    .expect("the patterns' alpha-beta builds")
            },
            |agent, game| {
                agent.new_game();
                let samples = (game.iter())
                    .map(|i| {
                        let pos = Checkers::position(&i.state).expect("a turn's start");
                        let score = agent.judge(&pos, depth).expect("alpha-beta judges");
                        Sample {
                            pos,
                            target: (score * Checkers::MIX_SCALE).tanh(),
                        }
                    })
                    .collect();
                bar.inc(game.len() as u64);
                samples
            },
        )
        .collect()
}

/// What a fit did: positions, and the mean squared error (in value units, -1 to 1) of the
/// held-out positions with material alone (the starting weights), with the classic
/// evaluation (squashed alike), and with the fitted weights.
#[derive(Clone, Debug)]
pub struct FitReport {
    pub fitted_positions: usize,
    pub held_positions: usize,
    pub fitted_mse: f64,
    pub held_material_mse: f64,
    pub held_classic_mse: f64,
    pub held_mse: f64,
}

struct Row {
    stage: usize,
    features: Vec<u32>,
    target: f32,
}

fn rows<'a>(games: impl Iterator<Item = &'a Vec<Sample>>) -> Vec<Row> {
    let mut scratch = Vec::new();
    games
        .flatten()
        .map(|s| {
            let stage = features(&s.pos, &mut scratch);
            Row {
                stage,
                features: scratch.clone(),
                target: s.target,
            }
        })
        .collect()
}

/// The value predicted for `row`, and the score (in men) behind it.
fn predict(w: &[Vec<f32>], row: &Row) -> (f32, f32) {
    let t = &w[row.stage];
    let score: f32 = row.features.iter().map(|&i| t[i as usize]).sum();
    ((score * Checkers::MIX_SCALE).tanh(), score)
}

fn mse<T>(items: &[T], value: impl Fn(&T) -> (f32, f32)) -> f64 {
    let sum: f64 = (items.iter())
        .map(|x| {
            let (predicted, target) = value(x);
            ((target - predicted) as f64).powi(2)
        })
        .sum();
    sum / items.len().max(1) as f64
}

/// Material in men: a man 1, a king 1.5 (the classic evaluation's), the fit's start.
fn material_start() -> Vec<Vec<f32>> {
    let mut t = vec![0f32; PER_STAGE];
    for (kind, worth) in [1.0, 1.5, -1.0, -1.5].into_iter().enumerate() {
        for sq in 0..32 {
            t[piece_square(kind, sq)] = worth;
        }
    }
    vec![t; STAGES]
}

/// Fits the weights to `games` (every tenth held out) over `epochs` passes.
pub fn fit(games: &[Vec<Sample>], epochs: usize, seed: u64) -> (CheckersPatterns, FitReport) {
    let held_games: Vec<&Vec<Sample>> = games.iter().skip(9).step_by(10).collect();
    let held = rows(held_games.iter().copied());
    let mut fitted = rows(
        (games.iter().enumerate())
            .filter(|(i, _)| i % 10 != 9)
            .map(|(_, g)| g),
    );
    let mut w = material_start();
    let held_material_mse = mse(&held, |r| (predict(&w, r).0, r.target));
    let classic = |s: &Sample| {
        let lead = material_lead(&s.pos, 150);
        let score = classic_score(&ClassicWeights::HAND, lead, &classic_terms(&s.pos, lead));
        let value = (score as f32 / MAN as f32 * Checkers::MIX_SCALE).tanh();
        (value, s.target)
    };
    let held_samples: Vec<Sample> = held_games.into_iter().flatten().cloned().collect();
    let held_classic_mse = mse(&held_samples, classic);
    let mut rng = StdRng::seed_from_u64(seed);
    // A step moves every weight a position reads (about 30): at this rate, with the
    // squashing's slope, it corrects about a third of the error at once.
    let mut rate = 0.05f32;
    for _ in 0..epochs {
        fitted.shuffle(&mut rng);
        for row in &fitted {
            let (p, _) = predict(&w, row);
            let step = rate * (row.target - p) * (1.0 - p * p) * Checkers::MIX_SCALE;
            let t = &mut w[row.stage];
            for &i in &row.features {
                t[i as usize] += step;
            }
        }
        rate *= 0.7;
    }
    let report = FitReport {
        fitted_positions: fitted.len(),
        held_positions: held.len(),
        fitted_mse: mse(&fitted, |r| (predict(&w, r).0, r.target)),
        held_material_mse,
        held_classic_mse,
        held_mse: mse(&held, |r| (predict(&w, r).0, r.target)),
    };
    let tables = rounded(&w, MAN as f32);
    (CheckersPatterns { tables }, report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcts::MaterialEvaluator;

    #[test]
    fn games_give_quiet_positions_with_their_history() {
        let games = play_games(&Play::default(), 4, 1, 2, &indicatif::ProgressBar::hidden());
        for game in &games {
            assert!(game.len() >= 20, "{}", game.len());
            for (k, input) in game.iter().enumerate() {
                let pos = Checkers::position(&input.state).unwrap();
                let moves = Checkers::legal_moves(&pos);
                assert!(!moves.is_empty() && !moves[0].is_capture(), "{pos:?}");
                assert!(input.history.len() <= 2);
                if k > 0 {
                    assert!(!input.history.is_empty());
                }
            }
        }
        // Different seeds play different games.
        assert_ne!(games[0].len(), 0);
        assert!(games.windows(2).any(|g| g[0] != g[1]));
    }

    /// The search's labels are its scores for the side to move, one a position: a side two
    /// men or more ahead is almost always judged ahead, one two behind behind.
    #[test]
    fn search_labels_judge_each_position_for_its_mover() {
        let bar = indicatif::ProgressBar::hidden();
        let games = play_games(&Play::default(), 60, 5, 0, &bar);
        let labelled = label_by_search(&games, 2, &bar);
        assert_eq!(labelled.len(), games.len());
        let (mut ahead, mut agree) = (0, 0);
        for (game, samples) in games.iter().zip(&labelled) {
            assert_eq!(game.len(), samples.len());
            for (input, s) in game.iter().zip(samples) {
                assert_eq!(Checkers::position(&input.state), Some(s.pos));
                assert!(s.target.abs() <= 1.0, "{}", s.target);
                let lead = material_lead(&s.pos, 150);
                if lead.abs() >= 2 * MAN {
                    ahead += 1;
                    agree += usize::from(lead.signum() as f32 == s.target.signum());
                }
            }
        }
        assert!(ahead > 100, "{ahead}");
        assert!(agree as f64 > 0.9 * ahead as f64, "{agree} of {ahead}");
    }

    /// Fitted to a material judge's values, the patterns learn them: far below material
    /// alone's error where material is what the judge counts, squashed more steeply.
    #[test]
    fn the_fit_learns_the_labels() {
        let bar = indicatif::ProgressBar::hidden();
        let games = play_games(&Play::default(), 600, 3, 0, &bar);
        let mut judge = MaterialEvaluator {
            king: 2.0,
            scale: 1.0,
        };
        let samples = label(&games, &mut judge, 256, &bar);
        assert_eq!(samples.len(), games.len());
        let (weights, r) = fit(&samples, 4, 1);
        assert!(r.held_positions > 1000, "{r:?}");
        assert!(r.held_mse < 0.5 * r.held_material_mse, "{r:?}");
        assert!(r.fitted_mse < 0.5 * r.held_material_mse, "{r:?}");
        // A king is worth more than a man to the judge, and the fit says so.
        let t = &weights.tables[1];
        let mean = |kind| {
            (0..32)
                .map(|sq| t[piece_square(kind, sq)] as f32)
                .sum::<f32>()
                / 32.0
        };
        assert!(mean(1) > mean(0) + 20.0, "{} {}", mean(1), mean(0));
    }
}
