//! A gauntlet: one agent against each of a list of opponents over the openings, colours
//! alternating, with its score and Elo difference per opponent. The command line prints it
//! as a table or as JSON lines; a trainer can call [`run_gauntlet`] after an iteration.

use super::openings::ArenaGame;
use super::openings::OpeningSet;
use super::series::{MatchConfig, Series, run_match};
use super::stats::{Tally, fmt_elo};
use crate::agents::{AgentError, Player};
use crate::games::{Checkers, Color};
use serde::Serialize;
use std::fmt;

/// The opponents a gauntlet plays unless told otherwise, weakest first.
pub const DEFAULT_OPPONENTS: &[&str] = &[
    "random",
    "alphabeta:depth=2",
    "alphabeta:depth=4",
    "alphabeta:depth=6",
    "mcts:searches=200",
];

#[derive(Clone, Debug)]
pub struct GauntletConfig<G: ArenaGame = Checkers> {
    pub player: Player<G>,
    pub opponents: Vec<Player<G>>,
    /// How each opponent is played (its `games` are per opponent).
    pub series: Series,
}

/// The player's results against one opponent.
#[derive(Clone, Debug)]
pub struct GauntletRow {
    pub opponent: String,
    pub tally: Tally,
    pub as_black: Tally,
    pub as_white: Tally,
}

#[derive(Clone, Debug)]
pub struct GauntletReport {
    pub player: String,
    pub openings: OpeningSet,
    pub seed: u64,
    pub rows: Vec<GauntletRow>,
    /// Every game, as PDN.
    pub pdn: String,
}

/// Plays the gauntlet on the current rayon pool, one opponent after another (each match's
/// games in parallel).
pub fn run_gauntlet<G: ArenaGame>(
    config: &GauntletConfig<G>,
) -> Result<GauntletReport, AgentError> {
    if config.opponents.is_empty() {
        return Err(AgentError::Invalid(
            "a gauntlet needs at least one opponent".into(),
        ));
    }
    // Build every agent first so a bad spec fails before hours of games.
    let player = config.player.build(0)?.name();
    for o in &config.opponents {
        o.build(0)?;
    }
    let mut rows = Vec::with_capacity(config.opponents.len());
    let mut pdn = String::new();
    for (i, opponent) in config.opponents.iter().enumerate() {
        let report = run_match(&MatchConfig {
            first: config.player.clone(),
            second: opponent.clone(),
            series: config.series.nth(i as u64 + 1),
        })?;
        rows.push(GauntletRow {
            opponent: report.second.clone(),
            tally: report.tally(None),
            as_black: report.tally(Some(Color::Black)),
            as_white: report.tally(Some(Color::White)),
        });
        pdn.push_str(&report.pdn());
    }
    Ok(GauntletReport {
        player,
        openings: config.series.openings,
        seed: config.series.seed,
        rows,
        pdn,
    })
}

/// One opponent's line of a gauntlet, as `--json` prints it. An Elo value at a score of 0%
/// or 100% is infinite, written as null (JSON has no infinity); the score tells its sign.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct GauntletRecord {
    pub player: String,
    pub opponent: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Mean score (win 1, draw 1/2) with its 95% Wilson interval.
    pub score: f64,
    pub score_low: f64,
    pub score_high: f64,
    /// The player's Elo difference to the opponent, with the interval mapped from the score's.
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// Wins, draws, losses with each colour.
    pub black_wdl: [u32; 3],
    pub white_wdl: [u32; 3],
    pub openings: String,
    pub seed: u64,
}

impl GauntletReport {
    pub fn records(&self) -> Vec<GauntletRecord> {
        let finite = |x: f64| x.is_finite().then_some(x);
        let wdl = |t: Tally| [t.wins, t.draws, t.losses];
        let openings = self.openings.name().to_string();
        self.rows
            .iter()
            .map(|r| {
                let t = r.tally;
                let (score_low, score_high) = t.score_interval();
                let (elo, elo_low, elo_high) = t.elo();
                GauntletRecord {
                    player: self.player.clone(),
                    opponent: r.opponent.clone(),
                    games: t.games(),
                    wins: t.wins,
                    draws: t.draws,
                    losses: t.losses,
                    score: t.score(),
                    score_low,
                    score_high,
                    elo: finite(elo),
                    elo_low: finite(elo_low),
                    elo_high: finite(elo_high),
                    black_wdl: wdl(r.as_black),
                    white_wdl: wdl(r.as_white),
                    openings: openings.clone(),
                    seed: self.seed,
                }
            })
            .collect()
    }

    /// One JSON object per opponent, one per line.
    pub fn json_lines(&self) -> String {
        self.records()
            .iter()
            .map(|r| format!("{}\n", serde_json::to_string(r).expect("plain data")))
            .collect()
    }
}

/// The table: one row per opponent with W/D/L, score and Elo difference, each with its 95%
/// interval (Wilson for the score, mapped through the Elo curve for the difference).
impl fmt::Display for GauntletReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} against {} opponents: its score and Elo difference against each",
            self.player,
            self.rows.len()
        )?;
        let width = self
            .rows
            .iter()
            .map(|r| r.opponent.len())
            .chain(["opponent".len()])
            .max()
            .unwrap_or(0);
        writeln!(
            f,
            "{:<width$}  {:>5}  {:>4} {:>4} {:>4}  {:>6}  {:>13}  {:>5}  {:>13}",
            "opponent", "games", "W", "D", "L", "score", "95% CI", "Elo", "95% CI"
        )?;
        for r in &self.rows {
            let t = r.tally;
            let (lo, hi) = t.score_interval();
            let (elo, elo_lo, elo_hi) = t.elo();
            writeln!(
                f,
                "{:<width$}  {:>5}  {:>4} {:>4} {:>4}  {:>5.1}%  {:>13}  {:>5}  {:>13}",
                r.opponent,
                t.games(),
                t.wins,
                t.draws,
                t.losses,
                100.0 * t.score(),
                format!("{:.1}-{:.1}%", 100.0 * lo, 100.0 * hi),
                fmt_elo(elo),
                format!("[{}, {}]", fmt_elo(elo_lo), fmt_elo(elo_hi)),
            )?;
        }
        Ok(())
    }
}
