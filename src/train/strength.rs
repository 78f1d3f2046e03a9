//! A learner's strength: its results against an opponent by colour, from a match over the
//! start position or the ballots.

use super::errors::TrainError;
use crate::agents::{AgentGame, AgentSpec};
use crate::arena::openings::ArenaGame;
use crate::arena::{GameConfig, MatchConfig, OpeningSet, Series, Tally, run_match};
use crate::games::Color;
use std::path::Path;

/// A learner's results against an opponent, by the learner's colour.
#[derive(Clone, Copy, Debug)]
pub struct Strength {
    pub as_black: Tally,
    pub as_white: Tally,
}

impl Strength {
    pub fn score(&self) -> f64 {
        let mut t = self.as_black;
        t.wins += self.as_white.wins;
        t.draws += self.as_white.draws;
        t.losses += self.as_white.losses;
        t.score()
    }

    /// For metrics: overall score and (wins, draws, losses) per colour.
    pub fn record(&self) -> serde_json::Value {
        let wdl = |t: Tally| [t.wins, t.draws, t.losses];
        serde_json::json!({
            "score": self.score(),
            "black_wdl": wdl(self.as_black),
            "white_wdl": wdl(self.as_white),
        })
    }

    /// Win / loss / draw percentages per colour, as the PSO study reports them.
    pub fn table(&self, learner: &str, opponent: &str) -> String {
        let mut s = format!("{learner} vs {opponent}\n  colour    games   win %  loss %  draw %\n");
        for (colour, t) in [("Black", self.as_black), ("White", self.as_white)] {
            let pct = |n: u32| 100.0 * n as f64 / t.games().max(1) as f64;
            s += &format!(
                "  {colour:<8}{:>6}  {:>6.2}  {:>6.2}  {:>6.2}\n",
                t.games(),
                pct(t.wins),
                pct(t.losses),
                pct(t.draws)
            );
        }
        s
    }
}

/// `learner` against `opponent`, `per_colour` games with each colour, from the start
/// position or over the game's openings, played to the end under the rules (no length cap).
pub fn strength<G: AgentGame + ArenaGame>(
    learner: &AgentSpec,
    opponent: &AgentSpec,
    per_colour: usize,
    openings: OpeningSet,
    seed: u64,
) -> Result<Strength, TrainError> {
    let report = run_match::<G>(&MatchConfig {
        first: learner.clone().into(),
        second: opponent.clone().into(),
        series: Series {
            games: Some(2 * per_colour),
            openings,
            seed,
            game: GameConfig::default(),
            progress: false,
        },
    })?;
    Ok(Strength {
        as_black: report.tally(Some(Color::Black)),
        as_white: report.tally(Some(Color::White)),
    })
}

/// The spec of the agent that plays the network at `path`.
pub fn learner_spec(kind: &str, path: &Path, depth: u32) -> Result<AgentSpec, TrainError> {
    let text = format!("{kind}:model={},depth={depth}", path.display());
    let spec: AgentSpec = text.parse()?;
    Ok(spec)
}
