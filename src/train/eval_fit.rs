//! Fitting checkers' classic evaluation to game results (Texel's method): every quiet
//! position of the games (the side to move has no capture, so the static score means what
//! it says), labelled with the game's result for the side to move (1, 0.5, 0), and the
//! weights whose score s predicts those results best through σ(s / scale), by least squares.
//! The scale is fitted first with the starting weights (it turns the search's units into a
//! probability), then held while the weights move; the weights are rounded to whole units,
//! as the evaluation uses them. Every fifth game is held out, to show the fit generalises.

use crate::agents::checkers_eval::{
    ClassicWeights, TERMS, classic_score, classic_terms, material_lead,
};
use crate::games::checkers::movegen::generate;
use crate::games::{Checkers, Game};

/// One position: its material lead, classic terms and the game's result for the side to
/// move.
#[derive(Clone, Debug)]
pub struct Sample {
    lead: i32,
    terms: [i32; TERMS],
    result: f64,
}

/// The quiet positions of `games` from ply `skip` on (the openings' plies say little of the
/// players), with a king worth `king_value`.
pub fn samples<'a>(
    games: impl IntoIterator<Item = &'a Game<Checkers>>,
    king_value: i32,
    skip: usize,
) -> Vec<Sample> {
    let mut out = Vec::new();
    let mut moves = Vec::new();
    for game in games {
        let Some(outcome) = game.outcome() else {
            continue;
        };
        for pos in game.positions().iter().skip(skip) {
            moves.clear();
            generate(pos, &mut moves);
            // A position with no move is the board's own verdict, not the evaluation's.
            if moves.is_empty() || moves.iter().any(|m| m.is_capture()) {
                continue;
            }
            let lead = material_lead(pos, king_value);
            out.push(Sample {
                lead,
                terms: classic_terms(pos, lead),
                result: outcome.score_for(pos.turn()),
            });
        }
    }
    out
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The mean squared error of `weights` on `samples` at `scale`.
pub fn loss(samples: &[Sample], weights: &ClassicWeights, scale: f64) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| {
            let p = sigmoid(classic_score(weights, s.lead, &s.terms) as f64 / scale);
            (s.result - p).powi(2)
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// The scale that fits `weights` best: a golden-section search over 10-5000 units (the
/// loss is unimodal in it).
pub fn fit_scale(samples: &[Sample], weights: &ClassicWeights) -> f64 {
    let (mut lo, mut hi) = (10f64.ln(), 5000f64.ln());
    let golden = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - golden * (hi - lo);
        let b = lo + golden * (hi - lo);
        if loss(samples, weights, a.exp()) < loss(samples, weights, b.exp()) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// What a fit found: the weights, the scale and the losses before and after, on the
/// positions fitted to and on the held-out games' positions.
#[derive(Clone, Debug)]
pub struct FitReport {
    pub weights: ClassicWeights,
    pub scale: f64,
    pub fitted_positions: usize,
    pub held_positions: usize,
    pub fitted_before: f64,
    pub fitted_after: f64,
    pub held_before: f64,
    pub held_after: f64,
}

/// Fits the weights to `games` from `start`: `steps` full-batch steps of Adam on the
/// weights as real numbers, then rounded. Every fifth game is held out.
pub fn fit(
    games: &[Game<Checkers>],
    king_value: i32,
    skip: usize,
    start: ClassicWeights,
    steps: usize,
    prior: f64,
) -> FitReport {
    let held_out = |i: usize| i % 5 == 4;
    let part = |held: bool| {
        let games = games
            .iter()
            .enumerate()
            .filter(move |&(i, _)| held_out(i) == held);
        samples(games.map(|(_, g)| g), king_value, skip)
    };
    let (train, held) = (part(false), part(true));
    let scale = fit_scale(&train, &start);
    let weights = descend(&train, start, scale, steps, prior);
    FitReport {
        fitted_positions: train.len(),
        held_positions: held.len(),
        fitted_before: loss(&train, &start, scale),
        fitted_after: loss(&train, &weights, scale),
        held_before: loss(&held, &start, scale),
        held_after: loss(&held, &weights, scale),
        weights,
        scale,
    }
}

/// Adam on the mean squared error, the weights as real numbers (the trade term's in per
/// mille, as the score counts it), rounded at the end.
fn descend(
    samples: &[Sample],
    start: ClassicWeights,
    scale: f64,
    steps: usize,
    prior: f64,
) -> ClassicWeights {
    // Each term as the score counts it (the trade term in per mille).
    let per: [f64; TERMS] = std::array::from_fn(|i| if i == TERMS - 1 { 1000.0 } else { 1.0 });
    let w0 = start.to_array().map(f64::from);
    let mut w = w0;
    let (mut m, mut v) = ([0.0; TERMS], [0.0; TERMS]);
    let (rate, beta1, beta2) = (0.5, 0.9, 0.999);
    for step in 1..=steps {
        let mut grad = [0.0; TERMS];
        for s in samples {
            let terms: [f64; TERMS] = std::array::from_fn(|i| s.terms[i] as f64 / per[i]);
            let score = s.lead as f64 + w.iter().zip(&terms).map(|(w, t)| w * t).sum::<f64>();
            let p = sigmoid(score / scale);
            let common = 2.0 * (p - s.result) * p * (1.0 - p) / scale;
            for (g, t) in grad.iter_mut().zip(&terms) {
                *g += common * t;
            }
        }
        for i in 0..TERMS {
            // The prior pulls each weight back toward where it started.
            let g = grad[i] / samples.len().max(1) as f64 + 2.0 * prior * (w[i] - w0[i]);
            m[i] = beta1 * m[i] + (1.0 - beta1) * g;
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
            let m_hat = m[i] / (1.0 - beta1.powi(step as i32));
            let v_hat = v[i] / (1.0 - beta2.powi(step as i32));
            w[i] -= rate * m_hat / (v_hat.sqrt() + 1e-12);
        }
    }
    ClassicWeights::from_array(std::array::from_fn(|i| w[i].round() as i32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::checkers_eval::CheckersEval;
    use crate::agents::settings::CheckersEvalKind;
    use crate::games::checkers::parse_fen;
    use crate::games::{Color, Outcome};

    /// Games whose results follow one term only (here: Black ahead on the centre wins):
    /// the fit moves that term's weight up from zero and the loss down, on held-out games
    /// too.
    #[test]
    fn a_fit_finds_the_term_that_predicts_results() {
        let king = CheckersEval::new(CheckersEvalKind::Classic, 1.5).unwrap();
        let mut games = Vec::new();
        for (i, fen) in [
            "B:W21,22,23:B14,15,5",
            "W:W21,22,23:B14,15,5",
            "B:W14,15,27:B5,6,7",
            "W:W14,15,27:B5,6,7",
        ]
        .iter()
        .cycle()
        .take(40)
        .enumerate()
        {
            let pos = parse_fen(fen).unwrap();
            // Black holds the centre in the first two and wins; White in the others.
            let winner = if i % 4 < 2 {
                Color::Black
            } else {
                Color::White
            };
            let mut game = Game::from_position(pos);
            game.impose(Outcome::Win(winner, crate::games::WinReason::Adjudication));
            games.push(game);
        }
        let zero = ClassicWeights::from_array([0; TERMS]);
        let report = fit(&games, king.king_value(), 0, zero, 300, 0.0);
        assert!(report.weights.centre_man > 0, "{report:?}");
        assert!(report.fitted_after < report.fitted_before, "{report:?}");
        assert!(report.held_after < report.held_before, "{report:?}");
    }
}
