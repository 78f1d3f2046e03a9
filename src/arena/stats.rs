//! Match statistics: win/draw/loss counts, score with a confidence interval, Elo difference.

/// Results from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_985;

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    pub fn add(&mut self, score: f64) {
        if score > 0.75 {
            self.wins += 1;
        } else if score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Mean score per game (win 1, draw 1/2).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            0.5
        } else {
            (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
        }
    }

    /// 95% confidence interval of the mean score: the Wilson score interval with the
    /// Bernoulli variance s(1-s), an upper bound on the variance of win/draw/loss scores,
    /// so the interval is conservative when there are draws and stays honest at 0% or 100%.
    pub fn score_interval(&self) -> (f64, f64) {
        let n = self.games() as f64;
        if n == 0.0 {
            return (0.0, 1.0);
        }
        let s = self.score();
        let z2 = Z95 * Z95;
        let centre = (s + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z95 / (1.0 + z2 / n) * (s * (1.0 - s) / n + z2 / (4.0 * n * n)).sqrt();
        // At a score of exactly 0 or 1 the bound is exactly 0 or 1; rounding would otherwise
        // leave it a hair inside and turn an infinite Elo bound into a huge finite one.
        let lo = if self.wins + self.draws == 0 {
            0.0
        } else {
            (centre - half).max(0.0)
        };
        let hi = if self.losses + self.draws == 0 {
            1.0
        } else {
            (centre + half).min(1.0)
        };
        (lo, hi)
    }

    /// Elo difference implied by the score, with the interval mapped through the same curve
    /// (infinite at a score of 0 or 1).
    pub fn elo(&self) -> (f64, f64, f64) {
        let (lo, hi) = self.score_interval();
        (elo_of(self.score()), elo_of(lo), elo_of(hi))
    }

    pub fn summary(&self) -> String {
        let (lo, hi) = self.score_interval();
        let (elo, elo_lo, elo_hi) = self.elo();
        format!(
            "+{} ={} -{}  score {:.1}% (95% CI {:.1}-{:.1}%)  Elo {} [{}, {}]",
            self.wins,
            self.draws,
            self.losses,
            100.0 * self.score(),
            100.0 * lo,
            100.0 * hi,
            fmt_elo(elo),
            fmt_elo(elo_lo),
            fmt_elo(elo_hi)
        )
    }
}

/// Elo difference for an expected score: 400 log10(s / (1 - s)).
pub fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        400.0 * (score / (1.0 - score)).log10()
    }
}

/// An Elo difference with its sign, or `+inf` / `-inf`.
pub fn fmt_elo(e: f64) -> String {
    if e.is_infinite() {
        if e > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{e:+.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_interval_and_elo() {
        let t = Tally {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        assert!((t.score() - 0.7).abs() < 1e-12);
        let (lo, hi) = t.score_interval();
        // Wilson, n = 100, s = 0.7: centre 0.69260, half-width 0.08845 (computed independently).
        assert!(
            (lo - 0.60415).abs() < 1e-4 && (hi - 0.78105).abs() < 1e-4,
            "{lo} {hi}"
        );
        assert!((elo_of(0.75) - 190.848).abs() < 1e-2);
        assert_eq!(elo_of(0.5), 0.0);
        let perfect = Tally {
            wins: 10,
            draws: 0,
            losses: 0,
        };
        assert_eq!(perfect.elo().0, f64::INFINITY);
        assert!(
            perfect.summary().ends_with("[+166, +inf]"),
            "{}",
            perfect.summary()
        );
        // 10 wins of 10 still leaves room below 100%: lower bound n/(n+z^2) = 0.7225.
        assert!((perfect.score_interval().0 - 10.0 / (10.0 + Z95 * Z95)).abs() < 1e-9);
    }
}
