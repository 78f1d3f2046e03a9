//! A round-robin tournament: every pair of players meets over the openings, both colours,
//! then a cross table and Elo ratings anchored on one player (random at 0 when present).

use super::elo::{PairResult, Rating, rate};
use super::openings::ArenaGame;
use super::series::{MatchConfig, Series, run_match};
use super::stats::Tally;
use crate::agents::{AgentError, Player, kinds};
use crate::games::Checkers;

#[derive(Clone, Debug)]
pub struct TournamentConfig<G: ArenaGame = Checkers> {
    pub players: Vec<Player<G>>,
    /// How each pair plays (its `games` are per pair).
    pub series: Series,
}

pub struct TournamentReport {
    pub names: Vec<String>,
    /// (i, j, i's results against j) for i < j.
    pub pairs: Vec<(usize, usize, Tally)>,
    pub anchor: usize,
    pub ratings: Vec<Rating>,
    /// Every game, as PDN.
    pub pdn: String,
}

pub fn run_tournament<G: ArenaGame>(
    config: &TournamentConfig<G>,
) -> Result<TournamentReport, AgentError> {
    let n = config.players.len();
    if n < 2 {
        return Err(AgentError::Invalid(
            "a tournament needs at least two players".into(),
        ));
    }
    let mut names = Vec::with_capacity(n);
    for p in &config.players {
        names.push(p.build(0)?.name());
    }
    let mut pairs = Vec::new();
    let mut pdn = String::new();
    for i in 0..n {
        for j in i + 1..n {
            let report = run_match(&MatchConfig {
                first: config.players[i].clone(),
                second: config.players[j].clone(),
                series: config.series.nth((i * n + j) as u64),
            })?;
            pairs.push((i, j, report.tally(None)));
            pdn.push_str(&report.pdn());
        }
    }
    let anchor = names
        .iter()
        .position(|n| *n == kinds::RANDOM.kind)
        .unwrap_or(0);
    let results: Vec<PairResult> = pairs
        .iter()
        .map(|&(a, b, t)| PairResult {
            a,
            b,
            games: t.games() as f64,
            points_a: t.score() * t.games() as f64,
        })
        .collect();
    let wdl: Vec<[u32; 3]> = pairs
        .iter()
        .map(|(_, _, t)| [t.wins, t.draws, t.losses])
        .collect();
    let ratings = rate(n, &results, &wdl, anchor, 200, config.series.seed);
    Ok(TournamentReport {
        names,
        pairs,
        anchor,
        ratings,
        pdn,
    })
}

impl TournamentReport {
    /// The row player's results against each column player, as wins-draws-losses.
    fn cell(&self, row: usize, col: usize) -> String {
        self.pairs
            .iter()
            .find_map(|&(a, b, t)| {
                if (a, b) == (row, col) {
                    Some(format!("{}-{}-{}", t.wins, t.draws, t.losses))
                } else if (a, b) == (col, row) {
                    Some(format!("{}-{}-{}", t.losses, t.draws, t.wins))
                } else {
                    None
                }
            })
            .unwrap_or_else(|| "-".into())
    }

    /// The cross table (row player's W-D-L against each column player), then the ratings.
    pub fn table(&self) -> String {
        let n = self.names.len();
        let label = |i: usize| format!("{}", i + 1);
        let width = 12;
        // Whole names: checkpoints of one run differ only at the end of a long path.
        let name_width = self
            .names
            .iter()
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0)
            + 2;
        let mut s = format!("{:<4}{:<name_width$}", "#", "player");
        for j in 0..n {
            s += &format!("{:>width$}", label(j));
        }
        s += &format!("{:>22}\n", "Elo (95% CI)");
        for i in 0..n {
            s += &format!("{:<4}{:<name_width$}", label(i), self.names[i]);
            for j in 0..n {
                s += &format!(
                    "{:>width$}",
                    if i == j {
                        "x".to_string()
                    } else {
                        self.cell(i, j)
                    }
                );
            }
            let r = self.ratings[i];
            let elo = if i == self.anchor {
                "0 (anchor)".to_string()
            } else {
                format!("{:+.0} [{:+.0}, {:+.0}]", r.elo, r.low, r.high)
            };
            s += &format!("{elo:>22}\n");
        }
        s += "cells: the row player's wins-draws-losses against the column player\n";
        s
    }
}
