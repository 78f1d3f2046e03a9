//! The `train-td`, `train-ga` and `train-pso` subcommands (part of the binary).

use super::keys::{KeyFlags, KeyRules};
use super::{list, positive, thread_pool};
use anyhow::{Context, Result};
use checkers_zero::events::event;
use checkers_zero::games::{GameName, on_game};
use checkers_zero::health;
use checkers_zero::tensor::{DeviceChoice, Precision};
use checkers_zero::train::alphazero::{
    AzGame, ConfigOverrides, Pipeline, Preset, TrainConfig, holds_run, read_config_file, run_game,
};
use checkers_zero::train::errors::TrainError;
use checkers_zero::train::ga::{self, GaConfig};
use checkers_zero::train::pso::{self, PsoConfig};
use checkers_zero::train::run_dir::RunOptions;
use checkers_zero::train::td::{self, NetKind, TdConfig, TdGame};
use std::path::PathBuf;

/// `train --resume` takes new values of its keys.
impl KeyRules for ConfigOverrides {
    const KEEPS_ITS_OWN: bool = false;
}

/// A classic learner's run keeps the settings it started with, checked before any work.
impl KeyRules for TdConfig {
    const KEEPS_ITS_OWN: bool = true;

    fn check(&self) -> Result<(), TrainError> {
        self.validate()
    }
}

impl KeyRules for GaConfig {
    const KEEPS_ITS_OWN: bool = true;

    fn check(&self) -> Result<(), TrainError> {
        self.validate()
    }
}

impl KeyRules for PsoConfig {
    const KEEPS_ITS_OWN: bool = true;

    fn check(&self) -> Result<(), TrainError> {
        self.validate()
    }
}

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
    /// Start a run in this folder, or continue the run it holds (what a service that is
    /// restarted wants: the preset and config apply when the run starts).
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["out", "resume"])]
    run: Option<PathBuf>,
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
    /// How its products compute: strict (f32) or mixed (f32 sums of rounded operands: on a
    /// GPU its tensor cores' f16, training under a loss scale; on a CPU with AMX its tiles'
    /// bf16, for self-play's network calls only). The weights stay f32.
    #[arg(long, value_parser = super::named::<Precision>(), default_value_t = Precision::Strict)]
    precision: Precision,
    /// The game to learn (a resumed run keeps its own).
    #[arg(long, value_parser = super::named::<GameName>(), conflicts_with = "resume")]
    game: Option<GameName>,
    /// A flag for each run key (`--games-per-iteration 40`), read into [`ConfigOverrides`]
    /// as a config file's keys are.
    #[command(flatten)]
    keys: KeyFlags<ConfigOverrides>,
    /// The subcommand, for the resume hint.
    #[arg(skip = "train")]
    pub command: &'static str,
}

pub fn train_az(a: AzArgs) -> Result<()> {
    on_game!(az_game(&a)?, G => train_az_for::<G>(a))
}

fn train_az_for<G: AzGame>(a: AzArgs) -> Result<()> {
    let mut pipeline = open_pipeline::<G>(&a)?;
    health::start("train", None);
    pipeline.run()?;
    finished(&pipeline, &a);
    Ok(())
}

/// The command's name in events: `train` or `learner`.
fn source(a: &AzArgs) -> &'static str {
    a.command.split(' ').next().unwrap_or(a.command)
}

impl AzArgs {
    /// The run folder to continue: --resume, or --run where it holds a run.
    fn resumed(&self) -> Option<&PathBuf> {
        let started = self.run.as_ref().filter(|d| holds_run(d));
        self.resume.as_ref().or(started)
    }
}

/// The game `train`'s arguments name (a resumed run's own).
pub fn az_game(a: &AzArgs) -> Result<GameName> {
    Ok(match a.resumed() {
        Some(dir) => run_game(dir)?,
        None => a.game.unwrap_or(GameName::Checkers),
    })
}

/// The run `train`'s arguments start or resume (also the learner's).
pub fn open_pipeline<G: AzGame>(a: &AzArgs) -> Result<Pipeline<G>> {
    let device = super::open_device(a.device, a.precision)?;
    let pipeline = match a.resumed() {
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
            let out = a.out.clone().or(a.run.clone()).unwrap_or_else(|| {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                PathBuf::from(format!("runs/az-{now}"))
            });
            let network = config.network;
            let pipeline = Pipeline::<G>::create(&out, config, device.clone(), true)?;
            event(source(a), "created")
                .with("preset", preset.name())
                .with("network", network.to_string())
                .say(format_args!("preset {preset}, network {network}"));
            pipeline
        }
    };
    let dir = pipeline.dir().display().to_string();
    let s = pipeline.state();
    event(source(a), "started")
        .with("dir", &dir)
        .with("network", s.model.to_string())
        .with("device", device.describe())
        .with("iteration", s.iteration)
        .with("iterations", s.config.iterations)
        .say(format_args!(
            "training {} on {} in {dir} from iteration {} of {} (resume with: checkers-zero {} \
             --resume {dir})",
            s.model,
            device.describe(),
            s.iteration,
            s.config.iterations,
            a.command
        ));
    Ok(pipeline)
}

/// The last words of a finished run: where its network is and how to play it.
pub fn finished<G: AzGame>(pipeline: &Pipeline<G>, a: &AzArgs) {
    let dir = pipeline.dir().display().to_string();
    let game = match G::NAME {
        GameName::Checkers => String::new(),
        other => format!("--game {} ", other.name()),
    };
    event(source(a), "finished")
        .with("best", pipeline.best_path())
        .say(format_args!(
            "done: best network {dir}/best.ckpt (play it: checkers-zero play {game}--agent \
             az:model={dir}/best.ckpt)"
        ));
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
    /// Hidden layer widths, comma-separated (default: 40 for checkers, Othello 64,32).
    #[arg(long, conflicts_with = "resume")]
    hidden: Option<String>,
    #[command(flatten)]
    keys: KeyFlags<TdConfig>,
}

/// The genetic algorithm of the Durham study (91 sub-square inputs, 40 and 10 tanh units).
#[derive(clap::Args)]
pub struct GaArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Generations in all (a resumed run counts its earlier ones).
    #[arg(long, default_value_t = 100, value_parser = super::at_least_one::<u64>)]
    generations: u64,
    #[command(flatten)]
    keys: KeyFlags<GaConfig>,
}

/// Particle swarm optimisation of a 32-10-1 network (sigmoid hidden units).
#[derive(clap::Args)]
pub struct PsoArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Iterations in all (a resumed run counts its earlier ones).
    #[arg(long, default_value_t = 500, value_parser = super::at_least_one::<u64>)]
    iterations: u64,
    #[command(flatten)]
    keys: KeyFlags<PsoConfig>,
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
    let config = TdConfig { hidden, ..a.keys.0 };
    let opts = a.run.options();
    a.run
        .pool()?
        .install(|| td::train_td::<G>(config, choice, a.games, &opts))?;
    println!("network: {}", opts.dir.join("best.ckpt").display());
    Ok(())
}

pub fn train_ga(a: GaArgs) -> Result<()> {
    let config = a.keys.0;
    let opts = a.run.options();
    a.run
        .pool()?
        .install(|| ga::train_ga(config, a.generations, &opts))?;
    println!("champion: {}", opts.dir.join("best.ckpt").display());
    Ok(())
}

pub fn train_pso(a: PsoArgs) -> Result<()> {
    let config = a.keys.0;
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

#[cfg(test)]
mod tests {
    use super::super::{Cli, Command};
    use super::*;
    use checkers_zero::train::ga::Scheme;
    use checkers_zero::train::pso::Topology;
    use clap::Parser;

    /// The subcommand `name` as parsed from `flags`, with a run folder.
    fn parse(name: &str, flags: &[&str]) -> Result<Command, clap::Error> {
        let args = ["checkers-zero", name, "--out", "runs/x"];
        Cli::try_parse_from(args.iter().chain(flags)).map(|cli| cli.command)
    }

    #[test]
    fn td_flags_default_to_the_config() {
        let Ok(Command::TrainTd(a)) = parse("train-td", &[]) else {
            panic!("train-td parses")
        };
        assert_eq!(a.keys.0, TdConfig::default());
        assert_eq!(a.hidden, None);
    }

    #[test]
    fn ga_flags_default_to_the_config() {
        let Ok(Command::TrainGa(a)) = parse("train-ga", &[]) else {
            panic!("train-ga parses")
        };
        assert_eq!(a.keys.0, GaConfig::default());
    }

    #[test]
    fn pso_flags_default_to_the_config() {
        let Ok(Command::TrainPso(a)) = parse("train-pso", &[]) else {
            panic!("train-pso parses")
        };
        assert_eq!(a.keys.0, PsoConfig::default());
    }

    #[test]
    fn flags_set_their_keys_and_refuse_bad_values_in_one_line() {
        let flags = [
            "--hidden",
            "20,5",
            "--ballots",
            "--scheme",
            "blondie24",
            "--king",
            "2",
            "--seed",
            "7",
        ];
        let Ok(Command::TrainGa(a)) = parse("train-ga", &flags) else {
            panic!("train-ga parses")
        };
        let expected = GaConfig {
            hidden: vec![20, 5],
            ballots: true,
            scheme: Scheme::Blondie24,
            king: 2.0,
            seed: 7,
            ..GaConfig::default()
        };
        assert_eq!(a.keys.0, expected);
        let Ok(Command::TrainPso(a)) = parse("train-pso", &["--topology", "von-neumann"]) else {
            panic!("train-pso parses")
        };
        assert_eq!(a.keys.0.topology, Topology::VonNeumann);
        for (name, flags) in [
            ("train-td", ["--alpha", "fast"]),
            ("train-ga", ["--hidden", "40,x"]),
            ("train-pso", ["--topology", "star"]),
        ] {
            let e = parse(name, &flags).err().expect("refused").to_string();
            let first = e.lines().next().unwrap_or_default();
            assert!(
                first.starts_with("error: ") && first.contains(flags[0]),
                "{e}"
            );
        }
        // A run's settings are its own once it started.
        let e = parse("train-td", &["--resume", "runs/y", "--alpha", "0.1"]);
        assert!(e.is_err());
    }
}
