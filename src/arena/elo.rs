//! Elo ratings from a round-robin: maximum likelihood under the logistic model
//! E(i beats j) = 1 / (1 + 10^((r_j - r_i) / 400)), draws counting half, one player anchored.
//!
//! Each pair also gets one virtual draw (a prior, as BayesElo does), so a player who won every
//! game still has a finite rating. Confidence intervals come from refitting on games resampled
//! with replacement (bootstrap); a pair with a perfect score resamples to the same score every
//! time, so intervals that rest on such pairs understate the uncertainty.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One pair's results: games played and the first player's points (win 1, draw 1/2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairResult {
    pub a: usize,
    pub b: usize,
    pub games: f64,
    pub points_a: f64,
}

/// A rating with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub elo: f64,
    pub low: f64,
    pub high: f64,
}

fn expected(ri: f64, rj: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((rj - ri) / 400.0))
}

/// Maximum-likelihood ratings of `n` players, `anchor` fixed at 0.
pub fn fit(n: usize, pairs: &[PairResult], anchor: usize) -> Vec<f64> {
    let mut r = vec![0.0f64; n];
    // Points and games with the virtual draw per pair.
    let data: Vec<(usize, usize, f64, f64)> = pairs
        .iter()
        .map(|p| (p.a, p.b, p.games + 1.0, p.points_a + 0.5))
        .collect();
    // Each player's rating moves toward where its expected points equal its actual points:
    // a damped Newton step on the log-likelihood, which is concave.
    for _ in 0..500 {
        let mut max_step = 0.0f64;
        for i in 0..n {
            if i == anchor {
                continue;
            }
            let (mut grad, mut curv) = (0.0, 0.0);
            for &(a, b, games, pa) in &data {
                let (opp, points) = if a == i {
                    (b, pa)
                } else if b == i {
                    (a, games - pa)
                } else {
                    continue;
                };
                let e = expected(r[i], r[opp]);
                grad += points - games * e;
                curv += games * e * (1.0 - e);
            }
            if curv > 0.0 {
                let step = (grad / curv * 400.0 / std::f64::consts::LN_10).clamp(-400.0, 400.0);
                r[i] += step;
                max_step = max_step.max(step.abs());
            }
        }
        if max_step < 1e-6 {
            break;
        }
    }
    let base = r[anchor];
    r.iter().map(|x| x - base).collect()
}

/// Ratings with 95% bootstrap intervals: each pair's games are resampled (wins, draws and
/// losses drawn from its observed frequencies) `rounds` times and refitted.
pub fn rate(
    n: usize,
    pairs: &[PairResult],
    wdl: &[[u32; 3]],
    anchor: usize,
    rounds: usize,
    seed: u64,
) -> Vec<Rating> {
    let centre = fit(n, pairs, anchor);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); n];
    for _ in 0..rounds {
        let resampled: Vec<PairResult> = pairs
            .iter()
            .zip(wdl)
            .map(|(p, &[w, d, l])| {
                let total = (w + d + l).max(1);
                let mut points = 0.0;
                for _ in 0..total {
                    let x = rng.random_range(0..total);
                    points += if x < w {
                        1.0
                    } else if x < w + d {
                        0.5
                    } else {
                        0.0
                    };
                }
                PairResult {
                    points_a: points,
                    ..*p
                }
            })
            .collect();
        for (i, r) in fit(n, &resampled, anchor).into_iter().enumerate() {
            samples[i].push(r);
        }
    }
    (0..n)
        .map(|i| {
            let s = &mut samples[i];
            s.sort_by(f64::total_cmp);
            let at = |q: f64| {
                if s.is_empty() {
                    centre[i]
                } else {
                    s[((s.len() - 1) as f64 * q).round() as usize]
                }
            };
            Rating {
                elo: centre[i],
                low: at(0.025),
                high: at(0.975),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_75_percent_score_is_about_191_elo() {
        // 3000 games so the virtual draw barely matters: 400 log10(3) = 190.8.
        let pairs = [PairResult {
            a: 0,
            b: 1,
            games: 3000.0,
            points_a: 2250.0,
        }];
        let r = fit(2, &pairs, 1);
        assert!((r[0] - 190.8).abs() < 0.5, "{r:?}");
        assert_eq!(r[1], 0.0);
    }

    #[test]
    fn transitive_ratings_and_finite_perfect_scores() {
        // A beats B 75%, B beats C 75%, A beats C always: ratings ordered, all finite.
        let pairs = [
            PairResult {
                a: 0,
                b: 1,
                games: 100.0,
                points_a: 75.0,
            },
            PairResult {
                a: 1,
                b: 2,
                games: 100.0,
                points_a: 75.0,
            },
            PairResult {
                a: 0,
                b: 2,
                games: 100.0,
                points_a: 100.0,
            },
        ];
        let wdl = [[75, 0, 25], [75, 0, 25], [100, 0, 0]];
        let r = rate(3, &pairs, &wdl, 2, 100, 1);
        assert!(
            r[0].elo > r[1].elo && r[1].elo > r[2].elo && r[0].elo.is_finite(),
            "{r:?}"
        );
        assert_eq!(r[2].elo, 0.0);
        assert!(r[0].low <= r[0].elo && r[0].elo <= r[0].high);
    }
}
