//! What every training run shares beside its folder ([`super::run_dir`]): errors, seeds
//! derived from the one `--seed`, progress bars, and the strength report against an agent.

use crate::agents::AgentSpec;
use crate::arena::{GameConfig, MatchConfig, OpeningSet, Series, Tally, run_match};
use crate::game::Color;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("{0}")]
    Config(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Checkpoint(#[from] crate::nn::CheckpointError),
    #[error(transparent)]
    Agent(#[from] crate::agents::AgentError),
    /// The run folder belongs to another process.
    #[error("{0}")]
    InUse(String),
}

/// A seed for one purpose (`a`, `b`) of a run, independent of thread count and of how the
/// run was split by `--resume` (splitmix64 finaliser over the mixed inputs).
pub fn derive_seed(seed: u64, a: u64, b: u64) -> u64 {
    let mut z = seed
        .wrapping_add(a.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(b.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A bar on stderr over `len` steps named `unit`, starting at `done`; hidden unless `show`.
pub fn progress(len: u64, done: u64, unit: &str, show: bool) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if !show {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit} ({{eta}} left)"
        ))
        .expect("static template")
        .progress_chars("=> "),
    );
    bar.set_position(done);
    bar
}

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
/// position or over the ballots, played to the end under the rules (no length cap).
pub fn strength(
    learner: &AgentSpec,
    opponent: &AgentSpec,
    per_colour: usize,
    openings: OpeningSet,
    seed: u64,
) -> Result<Strength, TrainError> {
    let report = run_match(&MatchConfig {
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

/// Where a run writes and whether it continues an earlier one.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The run folder.
    pub dir: PathBuf,
    /// Continue the run in `dir` from its `state.ckpt`, whose configuration replaces the
    /// given one.
    pub resume: bool,
    pub progress: bool,
}
