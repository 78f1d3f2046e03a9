//! The run folder and the iteration loop.
//!
//! A run folder holds `config.json` (the resolved configuration), `state.ckpt` (the network
//! in training, its optimizer, the replay buffer, the iteration, the best network's
//! iteration — everything to resume), `best.ckpt` (the network to play), `models/`
//! (every iteration's network, for Elo curves), `games/` (sample self-play games as PDN) and
//! `metrics.jsonl` (one line per iteration). Randomness is derived from the seed and the
//! iteration, so a resumed run draws what the uninterrupted run would have. Every file is
//! written atomically, and `state.ckpt` last, after the files it refers to and the
//! iteration's metrics line; the folder is locked by its one owner ([`RunDir`]).

use super::config::{
    AzGame, ConfigOverrides, GatingDevice, TrainConfig, TrainConfigV1, config_json,
    parse_config_json,
};
use super::ingest::IngestReport;
use super::optimise::{TrainSpec, TrainStats, steps_per_epoch, train_candidate};
use super::self_play::{Games, SelfPlayer};
use crate::agents::Player;
use crate::agents::{AzConfig, AzNetwork};
use crate::arena::gauntlet::{GauntletConfig, GauntletRecord, run_gauntlet};
use crate::arena::{GameConfig, MatchConfig, OpeningSet, Series, journal_games, run_match};
use crate::cpu_time::process_cpu_seconds;
use crate::errors::Context;
use crate::events;
use crate::files::{file_error, write_atomic};
use crate::games::{Checkers, Color, DrawReason, GameName, Outcome, WinReason};
use crate::mcts::PuctConfig;
use crate::net::{AzModel, Lineage, average_model_files, load_model, model_from_bytes, save_model};
use crate::nn::{Checkpoint, CheckpointError, Optimizer, PolicyValueNet, checksum};
use crate::progress::progress;
use crate::seeds::{Purpose, seed_for};
use crate::selfplay::{ReplayBuffer, SelfPlayReport, Starts};
use crate::tensor::Device;
use crate::train::errors::{TrainError, io_error as io};
use crate::train::run_dir::RunDir;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What `state.ckpt` records beside the network in training and its optimizer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct AzState<G: AzGame = Checkers> {
    pub model: AzModel<G>,
    /// Stored as JSON text, so that keys added later read as their defaults (a bincode
    /// struct is read by position, and every new key made older states unreadable).
    #[serde(with = "config_text")]
    pub config: TrainConfig,
    /// Iterations finished.
    pub iteration: u32,
    /// The iteration whose network is the best (0: the initial network).
    pub best_iteration: u32,
    pub replay: ReplayBuffer<G>,
    /// Wall time of the finished iterations.
    pub elapsed_s: f64,
}

impl<G: AzGame> crate::nn::CheckpointKind for AzState<G> {
    const KIND: &'static str = G::RUN_KIND;
}

mod config_text {
    use super::TrainConfig;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(c: &TrainConfig, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&serde_json::to_string(c).expect("plain data"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<TrainConfig, D::Error> {
        let text = String::deserialize(d)?;
        crate::train::alphazero::from_json_object(&text)
            .map_err(|e| D::Error::custom(format!("the config: {e}")))
    }
}

/// A run state of layout 1, read to resume runs started before layout 2.
#[derive(PartialEq, Deserialize, Serialize)]
#[serde(bound = "")]
struct AzStateV1<G: AzGame> {
    model: AzModel<G>,
    config: TrainConfigV1,
    iteration: u32,
    best_iteration: u32,
    replay: ReplayBuffer<G>,
    elapsed_s: f64,
}

impl<G: AzGame> crate::nn::CheckpointKind for AzStateV1<G> {
    const KIND: &'static str = G::RUN_KIND_V1;
}

impl<G: AzGame> std::fmt::Display for AzStateV1<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlphaZero run state (layout 1) of {}", self.model)
    }
}

/// The network `config.init` names, checked against the run's network and encoding, with
/// the file's hash recorded in `config.init_hash`; `None` (and no hash) for a run from zero.
fn initial_weights<G: AzGame>(
    config: &mut TrainConfig,
    device: &Device,
) -> Result<Option<PolicyValueNet>, TrainError> {
    let Some(path) = config.init.clone() else {
        config.init_hash = None;
        return Ok(None);
    };
    let refuse = |why: String| TrainError::Config(format!("init {}: {why}", path.display()));
    let what = || format!("init {}", path.display());
    let bytes = std::fs::read(&path)
        .map_err(file_error("read", &path))
        .context(|| "init".into())?;
    let ckpt = model_from_bytes::<G>(&bytes).context(what)?;
    let want = config.model::<G>()?;
    let file = &ckpt.arch.model;
    if file.encoding != want.encoding || !want.arch.widens(&file.arch) {
        return Err(refuse(format!(
            "it holds {file}, but this run trains {want} (set network, history and \
             legal_hops to the file's, and value_planes to at least its)"
        )));
    }
    let (net, _) = file.restore(&ckpt, device).context(what)?;
    // The seed decides the new planes' and head's first weights, as it decides a fresh
    // network's.
    let mut rng = StdRng::seed_from_u64(config.seed);
    let net = match want.arch.value_planes {
        same if same == file.arch.value_planes => net,
        planes => net.widen_value_head(planes, &mut rng),
    };
    let net = net.with_aux(want.arch.aux, &mut rng);
    config.init_hash = Some(format!("{:016x}", checksum(&bytes)));
    Ok(Some(net))
}

/// The network `config.teacher` names, checked against the run's game and encoding (any
/// architecture); `None` when the teacher plays none of the iterations still to come.
fn teacher<G: AzGame>(
    config: &TrainConfig,
    iteration: u32,
    device: &Device,
) -> Result<Option<PolicyValueNet>, TrainError> {
    let Some(path) = config.teacher.as_ref() else {
        return Ok(None);
    };
    if iteration >= config.teacher_iterations {
        return Ok(None);
    }
    let (net, encoding, _) =
        load_model::<G>(path, device).context(|| format!("teacher {}", path.display()))?;
    let want = config.model::<G>()?.encoding;
    if encoding != want {
        return Err(TrainError::Config(format!(
            "teacher {}: its encoding is {encoding:?}, this run's {want:?} (set history and \
             legal_hops to the file's)",
            path.display()
        )));
    }
    Ok(Some(net))
}

/// The positions `config.starts` names: those of the games its journal's first agent did
/// not win.
fn starts<G: AzGame>(config: &TrainConfig) -> Result<Starts<G>, TrainError> {
    let Some(path) = config.starts.as_ref() else {
        return Ok(Starts::default());
    };
    let refused = |why: String| TrainError::Config(format!("starts {}: {why}", path.display()));
    let games = journal_games::<G>(path).map_err(|e| refused(e.to_string()))?;
    let not_won: Vec<_> = (games.into_iter())
        .filter(|(game, first)| game.outcome().is_some_and(|o| o.score_for(*first) < 1.0))
        .map(|(game, _)| game)
        .collect();
    if not_won.is_empty() {
        return Err(refused(
            "its first agent won every game (or it holds none): no positions to start from".into(),
        ));
    }
    Ok(Starts::new(not_won, config.start_share as f64))
}

/// Where iteration `it`'s network of the run in `dir` came from.
fn lineage(config: &TrainConfig, dir: &Path, it: u32) -> Lineage {
    Lineage {
        run: dir.display().to_string(),
        iteration: it,
        parent: config
            .init
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        parent_hash: config.init_hash.clone().unwrap_or_default(),
        averaged: Vec::new(),
    }
}

/// Reads `state.ckpt` of either layout.
fn load_state<G: AzGame>(path: &Path) -> Result<Checkpoint<AzState<G>>, TrainError> {
    match Checkpoint::<AzState<G>>::load(path) {
        Err(e) if matches!(e.cause(), CheckpointError::Kind { found, .. } if found == G::RUN_KIND_V1) =>
        {
            let old = Checkpoint::<AzStateV1<G>>::load(path)?;
            let v = old.arch;
            Ok(Checkpoint {
                arch: AzState {
                    model: v.model,
                    config: v.config.into(),
                    iteration: v.iteration,
                    best_iteration: v.best_iteration,
                    replay: v.replay,
                    elapsed_s: v.elapsed_s,
                },
                params: old.params,
                buffers: old.buffers,
                optimizer: old.optimizer,
            })
        }
        other => Ok(other?),
    }
}

impl<G: AzGame> std::fmt::Display for AzState<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AlphaZero run state of {} after {} iterations",
            self.model, self.iteration
        )
    }
}

/// One line of metrics.jsonl.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationRecord {
    pub iteration: u32,
    pub games: u64,
    pub mean_plies: f64,
    pub black_wins: u32,
    pub white_wins: u32,
    pub draws: u32,
    /// Games ended by the length cap.
    pub adjudicated: u32,
    pub samples: usize,
    pub replay_positions: usize,
    pub policy_loss: f32,
    pub value_loss: f32,
    /// The auxiliary head's loss (runs with `aux_weight` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aux_loss: Option<f32>,
    pub lr: f32,
    pub train_steps: u64,
    /// The new network's score against the best (none without gating).
    pub gating_score: Option<f64>,
    /// The new network's wins, draws and losses against the best.
    pub gating_wdl: Option<[u32; 3]>,
    pub promoted: bool,
    pub best_iteration: u32,
    /// The best network against the gauntlet opponents, on iterations that play it.
    pub gauntlet: Option<Vec<GauntletRecord>>,
    pub selfplay_s: f64,
    pub train_s: f64,
    pub gating_s: f64,
    /// Self-play moves (plies) per second.
    pub positions_per_s: f64,
    pub simulations_per_s: f64,
    /// Positions the network evaluated per second of self-play.
    pub evaluations_per_s: f64,
    pub mean_batch: f64,
    pub cache_hit_rate: f64,
    pub elapsed_s: f64,
    /// CPU seconds of this process over the run so far (all its threads; a GPU's work and
    /// actors' games not included): the work done, where wall time also counts what other
    /// programs took of a shared machine. Absent where the run's first iterations predate it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<f64>,
    /// How the games came from actors (a learner's runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingest: Option<IngestReport>,
    /// The teacher played the self-play games (`teacher`), not the best network.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub teacher: bool,
}

impl IterationRecord {
    /// The one-line summary printed after each iteration.
    pub fn summary(&self, iterations: u32) -> String {
        let gating = match (self.gating_score, self.gating_wdl) {
            (Some(s), Some([w, d, l])) => format!(
                "gating {w}-{d}-{l} ({:.0}%){}",
                100.0 * s,
                if self.promoted { " -> new best" } else { "" }
            ),
            _ => "no gating".to_string(),
        };
        let gauntlet: String = self
            .gauntlet
            .iter()
            .flatten()
            .map(|g| format!(", vs {} {:.0}%", g.opponent, 100.0 * g.score))
            .collect();
        // A learner's games were played elsewhere: how they arrived instead of search speed.
        let source = match &self.ingest {
            Some(i) => i.summary(),
            None => format!(
                "{}{:.0} sims/s, batch {:.0}",
                if self.teacher {
                    "self-play by the teacher, "
                } else {
                    ""
                },
                self.simulations_per_s,
                self.mean_batch
            ),
        };
        let aux = (self.aux_loss)
            .map(|l| format!(" a {l:.3}"))
            .unwrap_or_default();
        format!(
            "iteration {}/{iterations}: {} games (B {} W {} D {}, {:.0} plies), loss p {:.3} \
             v {:.3}{aux}, {gating}, best {}{gauntlet}, {source}, {:.0}s",
            self.iteration,
            self.games,
            self.black_wins,
            self.white_wins,
            self.draws,
            self.mean_plies,
            self.policy_loss,
            self.value_loss,
            self.best_iteration,
            self.selfplay_s + self.train_s + self.gating_s
        )
    }
}

/// What an iteration did after self-play, for its metrics.
struct IterationOutcome {
    samples: usize,
    stats: TrainStats,
    lr: f32,
    gating: Option<(f64, [u32; 3])>,
    promoted: bool,
    train_s: f64,
    gating_s: f64,
    gauntlet: Option<Vec<GauntletRecord>>,
    ingest: Option<IngestReport>,
}

/// A supplier of an iteration's games: the pipeline's own self-play ([`LocalSelfPlay`]), or
/// self-play actors on other machines (`distributed::learner::RemoteGames`).
pub trait GameSource<G: AzGame> {
    /// The games iteration `it` trains on, played by (a recent version of) `run`'s best
    /// network, and how they arrived when they came from elsewhere.
    fn games(
        &mut self,
        it: u32,
        run: &Pipeline<G>,
    ) -> Result<(SelfPlayReport<G>, Option<IngestReport>), TrainError>;

    /// Called once the run's state is on disk: at the start and after each iteration's
    /// checkpoint (the best network may have changed).
    fn committed(&mut self, _run: &Pipeline<G>) -> Result<(), TrainError> {
        Ok(())
    }
}

/// The pipeline's own self-play: each iteration's games played here by the best network.
pub struct LocalSelfPlay;

impl<G: AzGame> GameSource<G> for LocalSelfPlay {
    fn games(
        &mut self,
        it: u32,
        run: &Pipeline<G>,
    ) -> Result<(SelfPlayReport<G>, Option<IngestReport>), TrainError> {
        Ok((run.self_play(it)?, None))
    }
}

/// A run in progress.
pub struct Pipeline<G: AzGame = Checkers> {
    run: RunDir,
    device: Device,
    state: AzState<G>,
    net: PolicyValueNet,
    opt: Optimizer,
    best: PolicyValueNet,
    /// The network that plays self-play while the teacher's iterations last.
    teacher: Option<PolicyValueNet>,
    /// Where self-play's games start.
    starts: Starts<G>,
    progress: bool,
    /// CPU seconds of the finished iterations; `None` for a run whose earlier iterations did
    /// not record them (older builds) or a platform without the clock.
    cpu_s: Option<f64>,
}

const CONFIG_FILE: &str = "config.json";

/// Whether `dir` holds a run that [`Pipeline::resume`] continues (one stopped before its
/// first checkpoint included).
pub fn holds_run(dir: &Path) -> bool {
    dir.join(CONFIG_FILE).exists() || dir.join("state.ckpt").exists()
}

/// Where a run keeps iteration `iteration`'s network.
pub(super) fn model_path(dir: &Path, iteration: u32) -> PathBuf {
    dir.join("models").join(format!("iter-{iteration:04}.ckpt"))
}

/// Where a run with `average` keeps the mean that iteration `iteration` offers.
fn mean_path(dir: &Path, iteration: u32) -> PathBuf {
    dir.join("models").join(format!("mean-{iteration:04}.ckpt"))
}

/// The file of the network iteration `iteration` offers to play: the mean of the last
/// networks in a run with `average` (which keeps it for the whole run), else its own.
pub(super) fn played_path(dir: &Path, iteration: u32) -> PathBuf {
    let mean = mean_path(dir, iteration);
    if mean.is_file() {
        mean
    } else {
        model_path(dir, iteration)
    }
}

/// The game of the run in `dir`, as its config.json names it (checkers for runs from
/// before there was a choice).
pub fn run_game(dir: &Path) -> Result<GameName, TrainError> {
    let path = dir.join(CONFIG_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        TrainError::Config(format!(
            "{} is not a run folder (no readable {CONFIG_FILE}: {e})",
            dir.display()
        ))
    })?;
    parse_config_json(&text)
        .map(|(game, _)| game)
        .map_err(|e| TrainError::Config(format!("{}: {e}", path.display())))
}

impl<G: AzGame> Pipeline<G> {
    /// Starts a new run in `dir`, which must not hold one already.
    pub fn create(
        dir: &Path,
        mut config: TrainConfig,
        device: Device,
        progress: bool,
    ) -> Result<Self, TrainError> {
        config.validate_for::<G>()?;
        // A bad --init or --teacher is refused before the run folder is made.
        let init = initial_weights::<G>(&mut config, &device)?;
        teacher::<G>(&config, 0, &device)?;
        starts::<G>(&config)?;
        let run = RunDir::create(dir, &[CONFIG_FILE, "state.ckpt"])?;
        Pipeline::start(run, config, init, device, progress)
    }

    /// Writes the run's first files into the claimed folder `run`, starting from `init`
    /// (what [`initial_weights`] gave for `config`) or from random weights.
    fn start(
        run: RunDir,
        config: TrainConfig,
        init: Option<PolicyValueNet>,
        device: Device,
        progress: bool,
    ) -> Result<Self, TrainError> {
        let dir = &run.dir;
        for sub in ["models", "games"] {
            let p = dir.join(sub);
            std::fs::create_dir_all(&p).map_err(io(&p))?;
        }
        let config_path = dir.join(CONFIG_FILE);
        let text = config_json(&config, G::NAME);
        write_atomic(&config_path, text.as_bytes()).map_err(io(&config_path))?;
        let model = config.model::<G>()?;
        let mut rng = StdRng::seed_from_u64(seed_for(config.seed, Purpose::Init, 0));
        let net = init.unwrap_or_else(|| model.build(&device, &mut rng));
        let opt = Optimizer::new(config.optim(), config.lr, &net);
        let teacher = teacher::<G>(&config, 0, &device)?;
        let starts = starts::<G>(&config)?;
        let lineage = lineage(&config, dir, 0);
        save_model::<G>(&model_path(dir, 0), &net, model.encoding, &lineage, None)?;
        save_model::<G>(&run.best(), &net, model.encoding, &lineage, None)?;
        let state = AzState {
            model,
            config,
            iteration: 0,
            best_iteration: 0,
            replay: ReplayBuffer::default(),
            elapsed_s: 0.0,
        };
        Ok(Pipeline {
            run,
            device,
            best: net.clone(),
            teacher,
            starts,
            net,
            opt,
            state,
            progress,
            cpu_s: Some(0.0),
        })
    }

    /// Continues the run in `dir` from its last checkpoint (or from its start, if it stopped
    /// before finishing an iteration). `overrides` may change anything but the network and
    /// its encoding (e.g. more iterations).
    pub fn resume(
        dir: &Path,
        overrides: &ConfigOverrides,
        device: Device,
        progress: bool,
    ) -> Result<Self, TrainError> {
        let mut run = RunDir::resume(dir)?;
        let state_path = run.state();
        if !state_path.exists() {
            let config_path = dir.join(CONFIG_FILE);
            let text = std::fs::read_to_string(&config_path).map_err(|e| {
                TrainError::Config(format!(
                    "{} is not a run folder (no state.ckpt or {CONFIG_FILE}: {e})",
                    dir.display()
                ))
            })?;
            let (game, mut config) = parse_config_json(&text)
                .map_err(|e| TrainError::Config(format!("{}: {e}", config_path.display())))?;
            if game != G::NAME {
                return Err(TrainError::Config(format!(
                    "{} is a {} run, not {}",
                    dir.display(),
                    game.name(),
                    G::NAME.name()
                )));
            }
            config.apply(overrides);
            config.validate_for::<G>()?;
            // Nothing was checkpointed: start again, config.json replaced atomically.
            run.resume_metrics_at("iteration", 0)?;
            let init = initial_weights::<G>(&mut config, &device)?;
            return Pipeline::start(run, config, init, device, progress);
        }
        let ckpt = load_state::<G>(&state_path)?;
        let mut state = ckpt.arch.clone();
        let (net, opt) = state.model.restore(&ckpt, &device)?;
        let opt = opt.ok_or_else(|| {
            TrainError::Config(format!("{} holds no optimizer state", state_path.display()))
        })?;
        let mut config = state.config.clone();
        config.apply(overrides);
        if (&config.init, &config.init_hash) != (&state.config.init, &state.config.init_hash) {
            return Err(TrainError::Config(
                "a resumed run keeps the weights it started from (init, init_hash)".into(),
            ));
        }
        config.validate_for::<G>()?;
        if config.average != state.config.average {
            return Err(TrainError::Config(format!(
                "a resumed run keeps its average ({}): its networks in play are means",
                state.config.average
            )));
        }
        if config.model::<G>()? != state.model {
            return Err(TrainError::Config(
                "a resumed run keeps its network and encoding (network, history, legal_hops, \
                 value_planes, whether aux_weight is 0)"
                    .into(),
            ));
        }
        let teacher = teacher::<G>(&config, state.iteration, &device)?;
        let starts = starts::<G>(&config)?;
        state.config = config;
        let (best, _, _) = load_model::<G>(&played_path(dir, state.best_iteration), &device)?;
        let last = run.resume_metrics_at("iteration", state.iteration as u64)?;
        let cpu_s = match last {
            None => Some(0.0),
            Some(line) => line["cpu_s"].as_f64(),
        };
        Ok(Pipeline {
            run,
            device,
            state,
            net,
            opt,
            best,
            teacher,
            starts,
            progress,
            cpu_s,
        })
    }

    pub fn state(&self) -> &AzState<G> {
        &self.state
    }

    pub fn dir(&self) -> &Path {
        &self.run.dir
    }

    /// The best network's file (`best.ckpt`).
    pub fn best_path(&self) -> PathBuf {
        self.run.best()
    }

    pub fn progress(&self) -> bool {
        self.progress
    }

    /// Runs iterations of its own self-play until the configured number is done.
    pub fn run(&mut self) -> Result<(), TrainError> {
        self.run_on(&mut LocalSelfPlay)
    }

    /// Runs iterations until the configured number is done, on games from `source`.
    pub fn run_on(&mut self, source: &mut dyn GameSource<G>) -> Result<(), TrainError> {
        source.committed(self)?;
        while self.state.iteration < self.state.config.iterations {
            let record = self.iteration_on(source)?;
            if self.progress {
                let source = if record.ingest.is_some() {
                    "learner"
                } else {
                    "train"
                };
                events::event(source, "iteration")
                    .fields(&record)
                    .say(record.summary(self.state.config.iterations));
            }
        }
        Ok(())
    }

    /// One iteration of its own self-play.
    pub fn iteration(&mut self) -> Result<IterationRecord, TrainError> {
        self.iteration_on(&mut LocalSelfPlay)
    }

    /// One iteration: games, training, gating, checkpoint, metrics.
    pub fn iteration_on(
        &mut self,
        source: &mut dyn GameSource<G>,
    ) -> Result<IterationRecord, TrainError> {
        let start = Instant::now();
        let cpu_start = process_cpu_seconds();
        let it = self.state.iteration + 1;
        let c = self.state.config.clone();

        let (report, ingest) = source.games(it, self)?;
        // A device fault makes every result since untrustworthy: nothing of this iteration
        // is kept, and a resumed run repeats it from the last checkpoint.
        self.device.check()?;
        let samples: Vec<_> = report
            .games
            .iter()
            .flat_map(|g| g.samples.clone())
            .collect();
        let new_samples = samples.len();
        let cap = (c.replay_positions > 0).then_some(c.replay_positions as usize);
        self.state
            .replay
            .push(samples, c.replay_window as usize, cap);
        self.save_games(it, &report)?;

        let train_start = Instant::now();
        let lr = c.lr_at(it - 1);
        let stats = self.train(it, lr);
        self.device.check()?;
        let train_s = train_start.elapsed().as_secs_f64();
        let lineage = lineage(&c, &self.run.dir, it);
        save_model::<G>(
            &model_path(&self.run.dir, it),
            &self.net,
            self.state.model.encoding,
            &lineage,
            None,
        )?;

        let candidate = match c.average {
            0 | 1 => self.net.clone(),
            n => self.mean_of_last(it, n)?,
        };

        let gating_start = Instant::now();
        let gating = if c.gating {
            Some(self.gate(it, &candidate)?)
        } else {
            None
        };
        self.device.check()?;
        // The threshold is an f32: 0.55f32 is a hair above 0.55, so 11 of 20 would fail
        // against it; a score within rounding of the threshold meets it.
        let promoted = gating.is_none_or(|(score, _)| score >= c.threshold as f64 - 1e-6);
        if promoted {
            self.best = candidate;
            self.state.best_iteration = it;
            let played = played_path(&self.run.dir, it);
            let bytes = std::fs::read(&played).map_err(io(&played))?;
            let best = self.run.best();
            write_atomic(&best, &bytes).map_err(io(&best))?;
        }
        let gating_s = gating_start.elapsed().as_secs_f64();
        let gauntlet = if c.gauntlet_every > 0 && it.is_multiple_of(c.gauntlet_every) {
            Some(self.gauntlet(it)?)
        } else {
            None
        };
        self.device.check()?;

        self.state.iteration = it;
        self.state.elapsed_s += start.elapsed().as_secs_f64();
        self.cpu_s = match (self.cpu_s, cpu_start, process_cpu_seconds()) {
            (Some(before), Some(from), Some(to)) => Some(before + (to - from)),
            _ => None,
        };
        let outcome = IterationOutcome {
            samples: new_samples,
            stats,
            lr,
            gating,
            promoted,
            train_s,
            gating_s,
            gauntlet,
            ingest,
        };
        let record = self.record(it, &report, &outcome);
        // The checkpoint marks the iteration done, so its metrics line goes first: a kill
        // between the two repeats the iteration on resume, which drops the line (never loses it).
        self.run.log(&record)?;
        Checkpoint::capture(self.state.clone(), &self.net, Some(&self.opt))
            .save(&self.run.state())?;
        source.committed(self)?;
        Ok(record)
    }

    /// The mean of the last `n` iterations' networks up to `it`, written to
    /// models/mean-NNNN.ckpt: fewer early in the run, and never the network the run started
    /// from (random, or another run's).
    fn mean_of_last(&self, it: u32, n: u32) -> Result<PolicyValueNet, TrainError> {
        let dir = &self.run.dir;
        let files: Vec<_> = (it.saturating_sub(n - 1).max(1)..=it)
            .map(|i| model_path(dir, i))
            .collect();
        let mean = average_model_files(&files)?;
        let path = mean_path(dir, it);
        write_atomic(&path, &mean.bytes).map_err(io(&path))?;
        Ok(load_model::<G>(&path, &self.device)?.0)
    }

    fn bar(&self, len: u64, unit: &str, msg: String) -> indicatif::ProgressBar {
        let bar = progress(len, 0, unit, self.progress);
        bar.set_message(msg);
        bar
    }

    /// Whether a teacher plays some iteration still to come.
    pub fn has_teacher(&self) -> bool {
        self.teacher.is_some()
    }

    /// Whether some self-play games start from other games' positions.
    pub fn has_starts(&self) -> bool {
        self.starts.positions() > 0
    }

    /// Whether the teacher plays iteration `it`'s self-play.
    fn taught(&self, it: u32) -> bool {
        self.teacher.is_some() && it <= self.state.config.teacher_iterations
    }

    fn self_play(&self, it: u32) -> Result<SelfPlayReport<G>, TrainError> {
        let c = &self.state.config;
        let player = match &self.teacher {
            Some(teacher) if self.taught(it) => teacher,
            _ => &self.best,
        };
        let games = Games {
            games: c.games_per_iteration as u64,
            workers: c.threads as usize,
            seed: seed_for(c.seed, Purpose::Games, it as u64),
        };
        let mut player = SelfPlayer::<G>::new(
            c,
            player.clone(),
            self.state.model.encoding,
            self.device.clone(),
            games,
        )
        .context(|| "self-play".into())?
        .with_starts(self.starts.clone());
        let bar = self.bar(games.games, "games", format!("iteration {it} self-play"));
        let report = player.play(Some(&bar));
        bar.finish_and_clear();
        Ok(report)
    }

    fn train(&mut self, it: u32, lr: f32) -> TrainStats {
        let c = &self.state.config;
        let samples: Vec<_> = self.state.replay.samples().collect();
        let steps = steps_per_epoch(samples.len(), c.batch_size as usize) as u64 * c.epochs as u64;
        let bar = self.bar(steps, "steps", format!("iteration {it} training"));
        let spec = TrainSpec::<G> {
            encoding: &self.state.model.encoding,
            target: c.value_target,
            batch_size: c.batch_size as usize,
            epochs: c.epochs,
            device: &self.device,
            symmetries: c.symmetries,
            aux_weight: c.aux_weight,
        };
        self.opt.set_lr(lr);
        let mut rng = StdRng::seed_from_u64(seed_for(c.seed, Purpose::Training, it as u64));
        let stats = train_candidate(
            &mut self.net,
            &mut self.opt,
            &samples,
            &spec,
            &mut rng,
            &bar,
        );
        bar.finish_and_clear();
        stats
    }

    /// The `az` agent of `net` (iteration `i`'s network) at the gating budget, played from
    /// memory on the run's device, or from its file on the CPU (`gating_device`); it is
    /// named by the spec that plays the same network from its file.
    fn az_player(&self, net: &PolicyValueNet, i: u32) -> Result<Player<G>, TrainError> {
        let c = &self.state.config;
        let d = AzConfig::default();
        let path = played_path(&self.run.dir, i);
        let (net, device) = match c.gating_device {
            GatingDevice::Run => (net.clone(), self.device.clone()),
            GatingDevice::Cpu => (load_model::<G>(&path, &Device::Cpu)?.0, Device::Cpu),
        };
        let config = AzConfig {
            model: Some(path),
            searches: c.gating_searches,
            // Gating compares networks: no alpha-beta beside them, and their priors as
            // they are (`d.puct`'s), named so that the spec plays the same.
            check: Some(0),
            endgame: Some(0),
            policy_temperature: Some(d.puct.policy_temperature),
            puct: PuctConfig {
                search: c.search(false),
                ..d.puct
            },
            ..d
        };
        Ok(Arc::new(AzNetwork::<G> {
            net,
            encoding: self.state.model.encoding,
            device,
            name: config.name(),
            config,
        }))
    }

    /// Whether gating and gauntlet matches show their progress: as a bar on a terminal only.
    /// In a log the iteration's summary line already says how they went.
    fn match_bars(&self) -> bool {
        use std::io::IsTerminal;
        self.progress && std::io::stderr().is_terminal()
    }

    /// The best network against the gauntlet opponents.
    fn gauntlet(&self, it: u32) -> Result<Vec<GauntletRecord>, TrainError> {
        let c = &self.state.config;
        let report = run_gauntlet(&GauntletConfig {
            player: self.az_player(&self.best, self.state.best_iteration)?,
            opponents: (c.gauntlet_specs::<G>()?)
                .into_iter()
                .map(Player::from)
                .collect(),
            series: Series {
                games: Some(c.gauntlet_games as usize),
                openings: OpeningSet::Standard,
                seed: seed_for(c.seed, Purpose::Gauntlet, it as u64),
                game: GameConfig::default(),
                progress: self.match_bars(),
            },
        })?;
        Ok(report.records())
    }

    /// The new network (`candidate`) against the best over the ballots: its score and
    /// (W, D, L).
    fn gate(&self, it: u32, candidate: &PolicyValueNet) -> Result<(f64, [u32; 3]), TrainError> {
        let c = &self.state.config;
        let report = run_match(&MatchConfig {
            first: self.az_player(candidate, it)?,
            second: self.az_player(&self.best, self.state.best_iteration)?,
            series: Series {
                games: Some(c.gating_games as usize),
                openings: OpeningSet::Standard,
                seed: seed_for(c.seed, Purpose::Gating, it as u64),
                game: GameConfig {
                    max_plies: Some(c.max_plies as usize),
                    exact_endings: true,
                },
                progress: self.match_bars(),
            },
        })?;
        let t = report.tally(None);
        Ok((t.score(), [t.wins, t.draws, t.losses]))
    }

    /// The first `saved_games` games of the iteration as PDN.
    fn save_games(&self, it: u32, report: &SelfPlayReport<G>) -> Result<(), TrainError> {
        let n = self.state.config.saved_games as usize;
        if n == 0 {
            return Ok(());
        }
        let player = if self.taught(it) {
            "teacher".to_string()
        } else {
            let best = played_path(&self.run.dir, self.state.best_iteration);
            best.file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        };
        let pdn: String = report
            .games
            .iter()
            .take(n)
            .map(|g| {
                g.game.to_pdn(&[
                    ("Event", format!("self-play iteration {it}")),
                    ("Round", (g.index + 1).to_string()),
                    ("Black", player.clone()),
                    ("White", player.clone()),
                ]) + "\n"
            })
            .collect();
        let path = self.run.dir.join("games").join(format!("iter-{it:04}.pdn"));
        write_atomic(&path, pdn.as_bytes()).map_err(io(&path))
    }

    fn record(
        &self,
        it: u32,
        report: &SelfPlayReport<G>,
        done: &IterationOutcome,
    ) -> IterationRecord {
        let games = report.games.len() as u64;
        let secs = report.elapsed.as_secs_f64().max(1e-9);
        let count = |f: &dyn Fn(&Outcome) -> bool| {
            report
                .games
                .iter()
                .filter(|g| g.game.outcome().is_some_and(|o| f(&o)))
                .count() as u32
        };
        IterationRecord {
            iteration: it,
            games,
            mean_plies: report.positions() as f64 / games.max(1) as f64,
            black_wins: count(&|o| o.winner() == Some(Color::Black)),
            white_wins: count(&|o| o.winner() == Some(Color::White)),
            draws: count(&|o| o.winner().is_none()),
            adjudicated: count(&|o| {
                matches!(
                    o,
                    Outcome::Win(_, WinReason::Adjudication)
                        | Outcome::Draw(DrawReason::Adjudication)
                )
            }),
            samples: done.samples,
            replay_positions: self.state.replay.len(),
            policy_loss: done.stats.policy_loss,
            value_loss: done.stats.value_loss,
            aux_loss: done.stats.aux_loss,
            lr: done.lr,
            train_steps: done.stats.steps,
            gating_score: done.gating.map(|g| g.0),
            gating_wdl: done.gating.map(|g| g.1),
            promoted: done.promoted,
            best_iteration: self.state.best_iteration,
            gauntlet: done.gauntlet.clone(),
            selfplay_s: secs,
            train_s: done.train_s,
            gating_s: done.gating_s,
            positions_per_s: report.positions() as f64 / secs,
            simulations_per_s: report.simulations() as f64 / secs,
            evaluations_per_s: report.inference.positions as f64 / secs,
            mean_batch: report.inference.mean_batch(),
            cache_hit_rate: report.cache_hit_rate,
            elapsed_s: self.state.elapsed_s,
            cpu_s: self.cpu_s,
            ingest: done.ingest.clone(),
            teacher: self.taught(it),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run state written in layout 1 (the configuration encoded by position, as builds
    /// before layout 2 wrote it) resumes, with the keys added since at their presets.
    #[test]
    fn a_run_state_of_layout_1_resumes() {
        let dir = std::env::temp_dir().join(format!("cz-az-layout1-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = TrainConfig {
            iterations: 1,
            games_per_iteration: 2,
            gating_games: 2,
            searches: 4,
            fast_searches: 2,
            gating_searches: 2,
            max_plies: 20,
            batch_size: 8,
            games_per_thread: 2,
            saved_games: 0,
            ..TrainConfig::cpu()
        };
        Pipeline::<Checkers>::create(&dir, config, Device::Cpu, false)
            .unwrap()
            .run()
            .unwrap();
        let path = dir.join("state.ckpt");
        let new = Checkpoint::<AzState>::load(&path).unwrap();
        let s = new.arch.clone();
        let old = Checkpoint {
            arch: AzStateV1::<Checkers> {
                model: s.model.clone(),
                config: TrainConfigV1::from(&s.config),
                iteration: s.iteration,
                best_iteration: s.best_iteration,
                replay: s.replay.clone(),
                elapsed_s: s.elapsed_s,
            },
            params: new.params.clone(),
            buffers: new.buffers.clone(),
            optimizer: new.optimizer.clone(),
        };
        old.save(&path).unwrap();
        let err = Checkpoint::<AzState>::load(&path).err().unwrap();
        assert!(
            err.to_string().contains("an AlphaZero run state, not"),
            "{err}"
        );
        let more = ConfigOverrides {
            iterations: Some(2),
            ..Default::default()
        };
        let resumed = Pipeline::<Checkers>::resume(&dir, &more, Device::Cpu, false).unwrap();
        let r = resumed.state();
        assert_eq!(
            (r.iteration, r.best_iteration),
            (s.iteration, s.best_iteration)
        );
        assert_eq!(r.replay, s.replay);
        assert_eq!(
            r.config,
            TrainConfig {
                iterations: 2,
                ..s.config
            }
        );
        drop(resumed);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
