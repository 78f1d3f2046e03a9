//! The `train-td`, `train-ga` and `train-pso` subcommands (part of the binary).

use anyhow::{Context, Result, bail};
use checkers_zero::tensor::Device;
use checkers_zero::train::alphazero::{ConfigOverrides, Pipeline, TrainConfig, read_config_file};
use checkers_zero::train::ga::{self, GaConfig, Scheme};
use checkers_zero::train::pso::{self, PsoConfig, Topology};
use checkers_zero::train::run::RunOptions;
use checkers_zero::train::td::{self, Opponent, Target, TdConfig};
use std::path::PathBuf;

/// Where a run writes and how it runs.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Output folder: best.ckpt, state.ckpt, metrics.jsonl.
    #[arg(long)]
    out: PathBuf,
    /// Continue from a state.ckpt; its saved configuration is used (only the length and
    /// --out come from this command line).
    #[arg(long)]
    resume: Option<PathBuf>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

impl RunArgs {
    fn options(&self) -> RunOptions {
        RunOptions {
            out: self.out.clone(),
            resume: self.resume.clone(),
            progress: true,
        }
    }

    fn pool(&self) -> Result<rayon::ThreadPool> {
        if self.threads == Some(0) {
            bail!("--threads must be at least 1");
        }
        let mut b = rayon::ThreadPoolBuilder::new();
        if let Some(n) = self.threads {
            b = b.num_threads(n);
        }
        b.build().context("could not start worker threads")
    }
}

fn hidden_list(text: &str) -> Result<Vec<usize>> {
    text.split(',')
        .map(|h| h.trim().parse::<usize>().ok().filter(|&h| h > 0))
        .collect::<Option<Vec<_>>>()
        .with_context(|| format!("--hidden {text:?}: expected widths like 40 or 40,10"))
}

/// AlphaZero self-play training.
#[derive(clap::Args)]
pub struct AzArgs {
    /// Run folder (default: runs/az-<unix time>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Continue the run in this folder from its last checkpoint (keys given here change it).
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["out", "preset", "config"])]
    resume: Option<PathBuf>,
    /// Preset: cpu (laptop) or gpu (desktop); default: gpu on a hardware GPU, else cpu.
    #[arg(long)]
    preset: Option<String>,
    /// A JSON file of keys to change over the preset (the same names as the flags, with
    /// underscores: {"games_per_iteration": 40}).
    #[arg(long)]
    config: Option<PathBuf>,
    /// auto (a hardware GPU, else the CPU), cpu or gpu (any adapter, software ones too).
    #[arg(long, default_value = "auto")]
    device: String,
    #[command(flatten)]
    keys: ConfigOverrides,
}

pub fn train_az(a: AzArgs) -> Result<()> {
    let device = Device::from_name(&a.device).with_context(|| format!("--device {}", a.device))?;
    let mut pipeline = match &a.resume {
        Some(dir) => Pipeline::resume(dir, &a.keys, device.clone(), true)?,
        None => {
            let preset = a.preset.clone().unwrap_or_else(|| match device {
                Device::Gpu(_) => "gpu".into(),
                Device::Cpu => "cpu".into(),
            });
            let mut config = TrainConfig::preset(&preset).map_err(anyhow::Error::msg)?;
            if let Some(path) = &a.config {
                config.apply(&read_config_file(path).map_err(anyhow::Error::msg)?);
            }
            config.apply(&a.keys);
            let out = a.out.clone().unwrap_or_else(|| {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                PathBuf::from(format!("runs/az-{now}"))
            });
            eprintln!("preset {preset}, network {}", config.network);
            Pipeline::create(&out, config, device.clone(), true)?
        }
    };
    let dir = pipeline.dir().display().to_string();
    let s = pipeline.state();
    eprintln!(
        "training {} on {} in {dir} from iteration {} of {} (resume with: checkers-zero train \
         --resume {dir})",
        s.model,
        device.describe(),
        s.iteration,
        s.config.iterations
    );
    pipeline.run()?;
    eprintln!(
        "done: best network {dir}/best.ckpt (play it: checkers-zero play --agent \
         az:model={dir}/best.ckpt)"
    );
    Ok(())
}

/// TD(lambda): a value MLP over the 32 squares trained online with eligibility traces.
#[derive(clap::Args)]
pub struct TdArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Training games in all (a resumed run counts its earlier games).
    #[arg(long, default_value_t = 20_000)]
    games: u64,
    /// leaf: TD-Leaf, moves by the agent's search and training its principal-variation leaf;
    /// root: plain TD(lambda) on the positions at the learner's turns, 1-ply greedy moves.
    #[arg(long, value_enum, default_value_t = Target::Leaf)]
    target: Target,
    #[arg(long, default_value_t = 0.01)]
    alpha: f32,
    #[arg(long, default_value_t = 0.9)]
    gamma: f32,
    #[arg(long, default_value_t = 0.3)]
    lambda: f32,
    /// Chance of a random move during training.
    #[arg(long, default_value_t = 0.1)]
    epsilon: f32,
    /// Hidden layer widths, comma-separated.
    #[arg(long, default_value = "40")]
    hidden: String,
    #[arg(long, value_enum, default_value_t = Opponent::Random)]
    opponent: Opponent,
    /// Training games reaching this many plies are adjudicated on material.
    #[arg(long, default_value_t = 200)]
    max_plies: usize,
    /// Evaluate (against random and alpha-beta depth 2) and checkpoint every N games.
    #[arg(long, default_value_t = 500)]
    eval_every: u64,
    /// Evaluation games per colour against each opponent.
    #[arg(long, default_value_t = 100)]
    eval_games: usize,
}

/// The genetic algorithm of the Durham study (91 sub-square inputs, 40 and 10 tanh units).
#[derive(clap::Args)]
pub struct GaArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Generations in all (a resumed run counts its earlier ones).
    #[arg(long, default_value_t = 100)]
    generations: u64,
    #[arg(long, value_enum, default_value_t = Scheme::Durham)]
    scheme: Scheme,
    /// Networks kept per generation (the Durham scheme needs 15).
    #[arg(long, default_value_t = 15)]
    population: usize,
    /// Games each network plays as Black per generation.
    #[arg(long, default_value_t = 5)]
    games: usize,
    /// Alpha-beta depth during training.
    #[arg(long, default_value_t = 4)]
    depth: u32,
    /// A game reaching this many plies is a draw.
    #[arg(long, default_value_t = 100)]
    max_plies: usize,
    #[arg(long, default_value = "40,10")]
    hidden: String,
    /// King input value (Blondie24: the starting value, then evolved; 2.0 in that study).
    #[arg(long, default_value_t = 1.5)]
    king: f32,
    /// Start games from random three-move ballots instead of the start position.
    #[arg(long)]
    ballots: bool,
}

/// Particle swarm optimisation of a 32-10-1 network (sigmoid hidden units).
#[derive(clap::Args)]
pub struct PsoArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Iterations in all (a resumed run counts its earlier ones).
    #[arg(long, default_value_t = 500)]
    iterations: u64,
    #[arg(long, default_value_t = 40)]
    particles: usize,
    #[arg(long, default_value_t = 10)]
    hidden: usize,
    /// Games each particle (and each personal best) plays per iteration.
    #[arg(long, default_value_t = 15)]
    games: usize,
    /// Alpha-beta depth (1: the study's 1-ply lookahead).
    #[arg(long, default_value_t = 1)]
    depth: u32,
    /// A game reaching this many plies is a draw.
    #[arg(long, default_value_t = 100)]
    max_plies: usize,
    #[arg(long, default_value_t = 0.15)]
    vmax: f32,
    #[arg(long, default_value_t = 1.0)]
    c1: f32,
    #[arg(long, default_value_t = 1.0)]
    c2: f32,
    /// Inertia weight w on the previous velocity.
    #[arg(long, default_value_t = 1.0)]
    inertia: f32,
    /// Clerc's constriction factor (needs c1 + c2 > 4).
    #[arg(long)]
    constriction: bool,
    #[arg(long, value_enum, default_value_t = Topology::Gbest)]
    topology: Topology,
    #[arg(long)]
    ballots: bool,
    /// Final games per colour of the best network against random (0: none).
    #[arg(long, default_value_t = 10_000)]
    eval_games: usize,
}

pub fn train_td(a: TdArgs) -> Result<()> {
    let config = TdConfig {
        target: a.target,
        alpha: a.alpha,
        gamma: a.gamma,
        lambda: a.lambda,
        epsilon: a.epsilon,
        hidden: hidden_list(&a.hidden)?,
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
        .install(|| td::train(config, a.games, &opts))?;
    println!("network: {}", opts.out.join("best.ckpt").display());
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
        .install(|| ga::train(config, a.generations, &opts))?;
    println!("champion: {}", opts.out.join("best.ckpt").display());
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
        .install(|| pso::train(config, a.iterations, a.eval_games, &opts))?;
    println!("global best: {}", opts.out.join("best.ckpt").display());
    if let Some(s) = result {
        print!("{}", s.table("pso global best", "random"));
    }
    Ok(())
}
