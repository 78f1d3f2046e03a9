//! A run's learning curve, played afterwards: the best network as of every few iterations
//! against fixed opponents, each point placed at the run's hours and CPU hours of training
//! when that network was the best. Played outside the run, the games cost the run nothing,
//! so its clock measures training alone, and two runs are compared at the same settings.
//!
//! The points go to `curve.jsonl` in the run folder: a first line with the settings, then
//! one line per point, the whole file rewritten atomically after each point, so a stopped
//! curve resumes where it stopped and a point that repeats an earlier best network reuses
//! its games.

use super::pipeline::played_path;
use crate::agents::{AgentGame, AgentSpec, Player};
use crate::arena::openings::ArenaGame;
use crate::arena::{GameConfig, GauntletConfig, GauntletRecord, OpeningSet, Series, run_gauntlet};
use crate::files::{CURVE_FILE, complete_json_lines, write_atomic};
use crate::train::errors::{TrainError, io_error};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What every point of a curve is played with; a curve resumes only with the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurveSettings {
    /// The agent spec each network plays with, without its `model=`.
    pub agent: String,
    pub opponents: Vec<String>,
    /// Games per opponent (`None`: every opening twice).
    pub games: Option<usize>,
    pub seed: u64,
}

/// The curve's first line.
#[derive(Serialize, Deserialize)]
struct Header {
    curve: CurveSettings,
}

/// One point: the best network after `iteration` against each opponent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub iteration: u32,
    pub best_iteration: u32,
    /// The run's training time and CPU time when it finished `iteration`.
    pub elapsed_s: f64,
    pub cpu_s: Option<f64>,
    pub gauntlet: Vec<GauntletRecord>,
}

pub struct CurveConfig {
    pub run: PathBuf,
    /// A point every this many iterations, and at iteration 0 and the last.
    pub every: u32,
    pub settings: CurveSettings,
    /// How each game is played (a length cap, exact endings).
    pub game: GameConfig,
    /// Show each match's progress.
    pub progress: bool,
}

/// The points a curve plays, their games still to come: iteration 0 (the network the run
/// started from), every `every`-th, and the last the metrics record, each at the run's clock.
fn milestones(run: &Path, every: u32) -> Result<Vec<CurvePoint>, TrainError> {
    let path = run.join("metrics.jsonl");
    let text = std::fs::read_to_string(&path).map_err(io_error(&path))?;
    let lines: Vec<CurvePoint> = complete_json_lines(&text)
        .iter()
        .filter_map(|l| {
            Some(CurvePoint {
                iteration: u32::try_from(l["iteration"].as_u64()?).ok()?,
                best_iteration: u32::try_from(l["best_iteration"].as_u64()?).ok()?,
                elapsed_s: l["elapsed_s"].as_f64()?,
                cpu_s: l["cpu_s"].as_f64(),
                gauntlet: Vec::new(),
            })
        })
        .collect();
    let Some(last) = lines.last().map(|l| l.iteration) else {
        return Err(TrainError::Config(format!(
            "{}: no finished iteration yet, so no curve to play",
            path.display()
        )));
    };
    let start = CurvePoint {
        iteration: 0,
        best_iteration: 0,
        elapsed_s: 0.0,
        cpu_s: lines[0].cpu_s.map(|_| 0.0),
        gauntlet: Vec::new(),
    };
    let every = every.max(1);
    Ok(std::iter::once(start)
        .chain(
            lines
                .into_iter()
                .filter(|l| l.iteration % every == 0 || l.iteration == last),
        )
        .collect())
}

/// The settings and points of an earlier curve in `path`, if there is one.
fn read_curve(path: &Path) -> Result<Option<(CurveSettings, Vec<CurvePoint>)>, TrainError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(path)(e)),
    };
    let damaged = |what: &str| TrainError::Config(format!("{}: {what}", path.display()));
    let mut lines = complete_json_lines(&text).into_iter();
    let header: Header = lines
        .next()
        .and_then(|l| serde_json::from_value(l).ok())
        .ok_or_else(|| damaged("its first line is not a curve's settings"))?;
    let points = lines
        .map(|l| serde_json::from_value(l).map_err(|e| damaged(&format!("not a curve point: {e}"))))
        .collect::<Result<_, _>>()?;
    Ok(Some((header.curve, points)))
}

fn write_curve(
    path: &Path,
    settings: &CurveSettings,
    points: &[CurvePoint],
) -> Result<(), TrainError> {
    let line = |v: serde_json::Value| format!("{v}\n");
    let header = Header {
        curve: settings.clone(),
    };
    let mut text = line(serde_json::to_value(header).expect("plain data"));
    for p in points {
        text.push_str(&line(serde_json::to_value(p).expect("plain data")));
    }
    write_atomic(path, text.as_bytes()).map_err(io_error(path))
}

/// Plays the curve's missing points on the current rayon pool, calling `on_point` with each
/// point as it is written and whether its games were played (not reused); returns every
/// point, in order. Every point plays the settings' games with the settings' seed, so the
/// points differ only in the network.
pub fn run_curve<G: AgentGame + ArenaGame>(
    config: &CurveConfig,
    mut on_point: impl FnMut(&CurvePoint, bool),
) -> Result<Vec<CurvePoint>, TrainError> {
    let settings = &config.settings;
    let base: AgentSpec = settings.agent.parse()?;
    if base.kind != "az" || base.get("model").is_some() {
        return Err(TrainError::Config(format!(
            "the curve's agent {:?} must be an az spec without model= (each point names its \
             network), e.g. az:searches=200,device=cpu",
            settings.agent
        )));
    }
    let opponents = settings
        .opponents
        .iter()
        .map(|o| Ok(o.parse::<AgentSpec>()?.into()))
        .collect::<Result<Vec<Player<G>>, TrainError>>()?;
    let series = Series {
        games: settings.games,
        openings: OpeningSet::Standard,
        seed: settings.seed,
        game: config.game,
        progress: config.progress,
    };
    let path = config.run.join(CURVE_FILE);
    let mut points = match read_curve(&path)? {
        Some((earlier, points)) if earlier == *settings => points,
        Some((earlier, _)) => {
            return Err(TrainError::Config(format!(
                "{} was played with other settings ({}); give the same, or move it away to \
                 start another curve",
                path.display(),
                serde_json::to_string(&earlier).expect("plain data")
            )));
        }
        None => Vec::new(),
    };
    for mut point in milestones(&config.run, config.every)? {
        if points.iter().any(|p| p.iteration == point.iteration) {
            continue;
        }
        let earlier = points
            .iter()
            .find(|p| p.best_iteration == point.best_iteration);
        let played = earlier.is_none();
        point.gauntlet = match earlier {
            Some(p) => p.gauntlet.clone(),
            None => {
                let mut agent = base.clone();
                let model = played_path(&config.run, point.best_iteration);
                if !model.is_file() {
                    return Err(TrainError::Config(format!(
                        "{}: missing, so iteration {}'s best network cannot play (a run keeps \
                         every iteration's network in models/)",
                        model.display(),
                        point.iteration
                    )));
                }
                agent.set("model", &model.to_string_lossy());
                run_gauntlet(&GauntletConfig {
                    player: agent.into(),
                    opponents: opponents.clone(),
                    series,
                })?
                .records()
            }
        };
        points.push(point.clone());
        points.sort_by_key(|p| p.iteration);
        write_curve(&path, settings, &points)?;
        on_point(&point, played);
    }
    Ok(points)
}
