//! The `train-td`, `train-ga` and `train-pso` subcommands (part of the binary).

use super::{list, positive, thread_pool};
use anyhow::{Context, Result};
use checkers_zero::games::{GameName, on_game};
use checkers_zero::tensor::DeviceChoice;
use checkers_zero::train::alphazero::{
    AzGame, ConfigOverrides, Pipeline, Preset, TrainConfig, read_config_file, run_game,
};
use checkers_zero::train::ga::{self, GaConfig, Scheme};
use checkers_zero::train::pso::{self, PsoConfig, Topology};
use checkers_zero::train::run_dir::RunOptions;
use checkers_zero::train::td::{self, NetKind, Opponent, Target, TdConfig, TdGame};
use std::path::PathBuf;

/// Where a run writes and how it runs.
#[derive(clap::Args)]
#[group(skip)]
pub struct RunArgs {
    /// A new run folder: best.ckpt (the network to play), state.ckpt (to resume),
    /// metrics.jsonl, run.lock (held while the run runs).
    #[arg(long, value_name = "RUN_DIR", required_unless_present = "resume")]
    out: Option<PathBuf>,
    /// Continue the run in this folder from its state.ckpt, with its saved settings: only the
    /// run's length and --threads (and train-pso's --eval-games) combine with it.
    #[arg(long, value_name = "RUN_DIR", conflicts_with = "out")]
    resume: Option<PathBuf>,
    /// Seed of every random choice of the run.
    #[arg(long, default_value_t = 0, conflicts_with = "resume")]
    seed: u64,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

impl RunArgs {
    fn options(&self) -> RunOptions {
        RunOptions {
            dir: self
                .resume
                .clone()
                .or(self.out.clone())
                .expect("clap requires one"),
            resume: self.resume.is_some(),
            progress: true,
        }
    }

    fn pool(&self) -> Result<rayon::ThreadPool> {
        thread_pool(self.threads)
    }
}

fn hidden_list(text: &str) -> Result<Vec<usize>> {
    list(text, ',', "widths like 40 or 40,10", positive).context("--hidden")
}

/// The learning-rate warm-up (iterations) of a run started from trained weights.
const INIT_LR_WARMUP: u32 = 2;

/// AlphaZero self-play training.
#[derive(clap::Args)]
pub struct AzArgs {
    /// Run folder (default: runs/az-<unix time>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Continue the run in this folder from its last checkpoint (keys given here change it).
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["out", "preset", "config"])]
    resume: Option<PathBuf>,
    /// The keys to start from (default: gpu on a hardware GPU, else cpu).
    #[arg(long, value_parser = super::named::<Preset>())]
    preset: Option<Preset>,
    /// A JSON file of keys to change over the preset (the same names as the flags, with
    /// underscores: {"games_per_iteration": 40}).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where the network computes.
    #[arg(long, value_parser = super::named::<DeviceChoice>(), default_value_t = DeviceChoice::Auto)]
    device: DeviceChoice,
    /// The game to learn (a resumed run keeps its own).
    #[arg(long, value_parser = super::named::<GameName>(), conflicts_with = "resume")]
    game: Option<GameName>,
    #[command(flatten)]
    keys: KeyFlags,
    /// The subcommand, for the resume hint.
    #[arg(skip = "train")]
    pub command: &'static str,
}

/// A flag for each run key (`--games-per-iteration 40`), read into [`ConfigOverrides`] as a
/// config file's keys are: the keys and their help come from [`TrainConfig::KEYS`].
#[derive(Clone, Debug, Default)]
pub struct KeyFlags(ConfigOverrides);

impl KeyFlags {
    fn flag(key: &str) -> String {
        key.replace('_', "-")
    }

    /// One key's value: a number or boolean where the key takes one, else the text.
    fn value(key: &str, text: &str) -> Result<serde_json::Value, clap::Error> {
        let typed = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .filter(|v| v.is_number() || v.is_boolean());
        let mut last = None;
        for value in typed.into_iter().chain([serde_json::Value::from(text)]) {
            let one = serde_json::json!({ key: value.clone() });
            match serde_json::from_value::<ConfigOverrides>(one) {
                Ok(_) => return Ok(value),
                Err(e) => last = Some(e),
            }
        }
        let e = last.expect("at least the text was tried");
        Err(clap::Error::raw(
            clap::error::ErrorKind::ValueValidation,
            format!("--{} {text:?}: {e}", Self::flag(key)),
        ))
    }
}

impl clap::FromArgMatches for KeyFlags {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut keys = serde_json::Map::new();
        for (key, _) in TrainConfig::KEYS {
            if let Some(text) = matches.get_one::<String>(key) {
                keys.insert(key.to_string(), Self::value(key, text)?);
            }
        }
        serde_json::from_value(keys.into())
            .map(KeyFlags)
            .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, e.to_string()))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for KeyFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        TrainConfig::KEYS.iter().fold(cmd, |cmd, (key, help)| {
            cmd.arg(
                clap::Arg::new(*key)
                    .long(Self::flag(key))
                    .value_name(key.to_ascii_uppercase())
                    .help(help.trim()),
            )
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

pub fn train_az(a: AzArgs) -> Result<()> {
    on_game!(az_game(&a)?, G => train_az_for::<G>(a))
}

fn train_az_for<G: AzGame>(a: AzArgs) -> Result<()> {
    let mut pipeline = open_pipeline::<G>(&a)?;
    pipeline.run()?;
    finished(&pipeline);
    Ok(())
}

/// The game `train`'s arguments name (a resumed run's own).
pub fn az_game(a: &AzArgs) -> Result<GameName> {
    Ok(match &a.resume {
        Some(dir) => run_game(dir)?,
        None => a.game.unwrap_or(GameName::Checkers),
    })
}

/// The run `train`'s arguments start or resume (also the learner's).
pub fn open_pipeline<G: AzGame>(a: &AzArgs) -> Result<Pipeline<G>> {
    let device = super::open_device(a.device)?;
    let pipeline = match &a.resume {
        Some(dir) => Pipeline::<G>::resume(dir, &a.keys.0, device.clone(), true)?,
        None => {
            let preset = a.preset.unwrap_or(match device.name() {
                "gpu" => Preset::Gpu,
                _ => Preset::Cpu,
            });
            let mut config = TrainConfig::preset(preset);
            let file = match &a.config {
                Some(path) => read_config_file(path).map_err(anyhow::Error::msg)?,
                None => ConfigOverrides::default(),
            };
            config.apply(&file);
            config.apply(&a.keys.0);
            // Trained weights meet a fresh optimizer: a short warm-up unless one is given.
            if config.init.is_some() && a.keys.0.lr_warmup.or(file.lr_warmup).is_none() {
                config.lr_warmup = INIT_LR_WARMUP;
            }
            let out = a.out.clone().unwrap_or_else(|| {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                PathBuf::from(format!("runs/az-{now}"))
            });
            let network = config.network;
            let pipeline = Pipeline::<G>::create(&out, config, device.clone(), true)?;
            eprintln!("preset {preset}, network {network}");
            pipeline
        }
    };
    let dir = pipeline.dir().display().to_string();
    let s = pipeline.state();
    eprintln!(
        "training {} on {} in {dir} from iteration {} of {} (resume with: checkers-zero {} \
         --resume {dir})",
        s.model,
        device.describe(),
        s.iteration,
        s.config.iterations,
        a.command
    );
    Ok(pipeline)
}

/// The last words of a finished run: where its network is and how to play it.
pub fn finished<G: AzGame>(pipeline: &Pipeline<G>) {
    let dir = pipeline.dir().display().to_string();
    let game = match G::NAME {
        GameName::Checkers => String::new(),
        other => format!("--game {} ", other.name()),
    };
    eprintln!(
        "done: best network {dir}/best.ckpt (play it: checkers-zero play {game}--agent \
         az:model={dir}/best.ckpt)"
    );
}

/// TD(lambda): a value network trained online with eligibility traces.
#[derive(clap::Args)]
pub struct TdArgs {
    #[command(flatten)]
    run: RunArgs,
    /// The game to learn (a resumed run keeps its own).
    #[arg(long, value_parser = super::named::<GameName>(), conflicts_with = "resume")]
    game: Option<GameName>,
    /// The value network: plain (fully connected over the board's cells) or, for Othello,
    /// towers (the reference's convolution towers over the board's symmetries).
    #[arg(long, value_parser = super::named::<NetKind>(), default_value_t = NetKind::Plain, conflicts_with = "resume")]
    net: NetKind,
    /// Training games in all (a resumed run counts its earlier games).
    #[arg(long, default_value_t = 20_000, value_parser = super::at_least_one::<u64>)]
    games: u64,
    /// leaf: TD-Leaf, moves by the agent's search and training its principal-variation leaf;
    /// root: plain TD(lambda) on the positions at the learner's turns, 1-ply greedy moves.
    #[arg(long, value_parser = super::named::<Target>(), default_value_t = Target::Leaf, conflicts_with = "resume")]
    target: Target,
    /// Learning rate of the TD update.
    #[arg(long, default_value_t = 0.01, conflicts_with = "resume")]
    alpha: f32,
    /// Discount per ply of the TD target.
    #[arg(long, default_value_t = 0.9, conflicts_with = "resume")]
    gamma: f32,
    /// Trace decay: 0 learns from the next position only, 1 from the game's result.
    #[arg(long, default_value_t = 0.3, conflicts_with = "resume")]
    lambda: f32,
    /// Chance of a random move during training.
    #[arg(long, default_value_t = 0.1, conflicts_with = "resume")]
    epsilon: f32,
    /// Hidden layer widths, comma-separated (default: 40 for checkers, Othello 64,32).
    #[arg(long, conflicts_with = "resume")]
    hidden: Option<String>,
    /// Whom the learner plays while training.
    #[arg(long, value_parser = super::named::<Opponent>(), default_value_t = Opponent::Random, conflicts_with = "resume")]
    opponent: Opponent,
    /// Training games reaching this many plies are adjudicated (checkers: on material).
    #[arg(long, default_value_t = 200, conflicts_with = "resume")]
    max_plies: usize,
    /// Evaluate (against random and alpha-beta depth 2) and checkpoint every N games.
    #[arg(long, default_value_t = 500, conflicts_with = "resume")]
    eval_every: u64,
    /// Evaluation games per colour against each opponent.
    #[arg(
        long,
        default_value_t = 100,
        conflicts_with = "resume",
        value_parser = super::at_least_one::<usize>
    )]
    eval_games: usize,
}

/// The genetic algorithm of the Durham study (91 sub-square inputs, 40 and 10 tanh units).
#[derive(clap::Args)]
pub struct GaArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Generations in all (a resumed run counts its earlier ones).
    #[arg(long, default_value_t = 100, value_parser = super::at_least_one::<u64>)]
    generations: u64,
    /// Which study's evolution scheme.
    #[arg(long, value_parser = super::named::<Scheme>(), default_value_t = Scheme::Durham, conflicts_with = "resume")]
    scheme: Scheme,
    /// Networks kept per generation (the Durham scheme needs 15).
    #[arg(long, default_value_t = 15, conflicts_with = "resume")]
    population: usize,
    /// Games each network plays as Black per generation.
    #[arg(long, default_value_t = 5, conflicts_with = "resume")]
    games: usize,
    /// Alpha-beta depth during training.
    #[arg(long, default_value_t = 4, conflicts_with = "resume")]
    depth: u32,
    /// A game reaching this many plies is a draw.
    #[arg(long, default_value_t = 100, conflicts_with = "resume")]
    max_plies: usize,
    /// Hidden layer widths, comma-separated.
    #[arg(long, default_value = "40,10", conflicts_with = "resume")]
    hidden: String,
    /// King input value (Blondie24: the starting value, then evolved; 2.0 in that study).
    #[arg(long, default_value_t = 1.5, conflicts_with = "resume")]
    king: f32,
    /// Start games from random three-move ballots instead of the start position.
    #[arg(long, conflicts_with = "resume")]
    ballots: bool,
}

/// Particle swarm optimisation of a 32-10-1 network (sigmoid hidden units).
#[derive(clap::Args)]
pub struct PsoArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Iterations in all (a resumed run counts its earlier ones).
    #[arg(long, default_value_t = 500, value_parser = super::at_least_one::<u64>)]
    iterations: u64,
    /// Particles in the swarm (one network each).
    #[arg(long, default_value_t = 40, conflicts_with = "resume")]
    particles: usize,
    /// Hidden units of the 32-H-1 network.
    #[arg(long, default_value_t = 10, conflicts_with = "resume")]
    hidden: usize,
    /// Games each particle (and each personal best) plays per iteration.
    #[arg(long, default_value_t = 15, conflicts_with = "resume")]
    games: usize,
    /// Alpha-beta depth (1: the study's 1-ply lookahead).
    #[arg(long, default_value_t = 1, conflicts_with = "resume")]
    depth: u32,
    /// A game reaching this many plies is a draw.
    #[arg(long, default_value_t = 100, conflicts_with = "resume")]
    max_plies: usize,
    /// Largest velocity component (each weight moves at most this far per iteration).
    #[arg(long, default_value_t = 0.15, conflicts_with = "resume")]
    vmax: f32,
    /// Cognitive coefficient: the pull towards a particle's personal best.
    #[arg(long, default_value_t = 1.0, conflicts_with = "resume")]
    c1: f32,
    /// Social coefficient: the pull towards the neighbourhood's best.
    #[arg(long, default_value_t = 1.0, conflicts_with = "resume")]
    c2: f32,
    /// Inertia weight w on the previous velocity.
    #[arg(long, default_value_t = 1.0, conflicts_with = "resume")]
    inertia: f32,
    /// Clerc's constriction factor (needs c1 + c2 > 4).
    #[arg(long, conflicts_with = "resume")]
    constriction: bool,
    /// Neighbourhood whose best pulls each particle.
    #[arg(long, value_parser = super::named::<Topology>(), default_value_t = Topology::Gbest, conflicts_with = "resume")]
    topology: Topology,
    /// Start games from random three-move ballots instead of the start position.
    #[arg(long, conflicts_with = "resume")]
    ballots: bool,
    /// Final games per colour of the best network against random (0: none).
    #[arg(long, default_value_t = 10_000)]
    eval_games: usize,
}

pub fn train_td(a: TdArgs) -> Result<()> {
    let game = match &a.run.resume {
        Some(dir) => td::game_of_run(dir),
        None => a.game.unwrap_or(GameName::Checkers),
    };
    on_game!(game, G => train_td_for::<G>(a))
}

fn train_td_for<G: TdGame>(a: TdArgs) -> Result<()> {
    let hidden = match &a.hidden {
        Some(text) => hidden_list(text)?,
        None => G::DEFAULT_HIDDEN.to_vec(),
    };
    let choice = G::choose_net(a.net, &hidden)?;
    let config = TdConfig {
        target: a.target,
        alpha: a.alpha,
        gamma: a.gamma,
        lambda: a.lambda,
        epsilon: a.epsilon,
        hidden,
        opponent: a.opponent,
        max_plies: a.max_plies,
        eval_every: a.eval_every,
        eval_games: a.eval_games,
        seed: a.run.seed,
        ..TdConfig::default()
    };
    let opts = a.run.options();
    a.run
        .pool()?
        .install(|| td::train_td::<G>(config, choice, a.games, &opts))?;
    println!("network: {}", opts.dir.join("best.ckpt").display());
    Ok(())
}

pub fn train_ga(a: GaArgs) -> Result<()> {
    let config = GaConfig {
        scheme: a.scheme,
        population: a.population,
        games: a.games,
        depth: a.depth,
        max_plies: a.max_plies,
        hidden: hidden_list(&a.hidden)?,
        king: a.king,
        ballots: a.ballots,
        seed: a.run.seed,
        ..GaConfig::default()
    };
    let opts = a.run.options();
    a.run
        .pool()?
        .install(|| ga::train_ga(config, a.generations, &opts))?;
    println!("champion: {}", opts.dir.join("best.ckpt").display());
    Ok(())
}

pub fn train_pso(a: PsoArgs) -> Result<()> {
    let config = PsoConfig {
        particles: a.particles,
        hidden: a.hidden,
        games: a.games,
        depth: a.depth,
        max_plies: a.max_plies,
        vmax: a.vmax,
        c1: a.c1,
        c2: a.c2,
        inertia: a.inertia,
        constriction: a.constriction,
        topology: a.topology,
        ballots: a.ballots,
        seed: a.run.seed,
        ..PsoConfig::default()
    };
    let opts = a.run.options();
    let result = a
        .run
        .pool()?
        .install(|| pso::train_pso(config, a.iterations, a.eval_games, &opts))?;
    println!("global best: {}", opts.dir.join("best.ckpt").display());
    if let Some(s) = result {
        print!("{}", s.table("pso global best", "random"));
    }
    Ok(())
}
