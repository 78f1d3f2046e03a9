//! The `checkers-zero` command line: one subcommand per user task.

use anyhow::{Context, Result, bail};
use checkers_zero::agents::{AgentGame, AgentSpec, Player};
use checkers_zero::arena::{
    ArenaGame, DEFAULT_OPPONENTS, GameConfig, GauntletConfig, MatchConfig, OpeningSet, Series,
    TournamentConfig, journal_status, run_gauntlet, run_match, run_match_journaled, run_tournament,
};
use checkers_zero::games::checkers::perft;
use checkers_zero::games::{Checkers, Color, GameName, Othello, Rules, othello};
use checkers_zero::play::PlayGame;
use checkers_zero::tensor::Device;
use checkers_zero::{bench, engine};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Instant;

mod cluster_cli;
mod train_cli;

#[derive(Parser)]
#[command(
    name = "checkers-zero",
    version,
    about = "Learns English checkers from zero knowledge; play, measure and compare agents."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count move sequences to a depth (checks the move generator).
    Perft(PerftArgs),
    /// Benchmarks that print one JSON object per measurement.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Play a game against an agent in the terminal.
    Play(PlayArgs),
    /// Play two agents against each other over the ballot openings.
    Match(MatchArgs),
    /// Round-robin of agents over the ballots: cross table and Elo (random anchored at 0).
    Tournament(TournamentArgs),
    /// One agent against a list of opponents over the ballots: score and Elo per opponent.
    Gauntlet(GauntletArgs),
    /// Speak the engine line protocol on stdin/stdout (see README).
    Engine {
        /// The game.
        #[arg(long, value_enum, default_value_t = GameName::Checkers)]
        game: GameName,
    },
    /// Learn a game (checkers unless --game) from zero by AlphaZero self-play (no arguments:
    /// a fresh checkers run on the best device with its preset).
    Train(Box<train_cli::AzArgs>),
    /// Train a TD(lambda) value network, for checkers or Othello (agent `td`).
    TrainTd(train_cli::TdArgs),
    /// Evolve checkers networks with a genetic algorithm (agent `ga`).
    TrainGa(train_cli::GaArgs),
    /// Train checkers networks by particle swarm optimisation (agent `pso`).
    TrainPso(train_cli::PsoArgs),
    /// Train as `train` does, on games from self-play actors on any machines, through Redis.
    Learner(Box<cluster_cli::LearnerArgs>),
    /// Play self-play games for a learner with its latest network, through Redis.
    Actor(cluster_cli::ActorArgs),
    /// Serve the browser interface: play against the agents, analyse, watch training runs.
    Gui(GuiArgs),
    /// Draw a training run's curves (losses, gating, gauntlet, throughput) as PNG and SVG.
    Plot(PlotArgs),
}

#[derive(clap::Args)]
struct GuiArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to bind: the loopback interface unless another one is asked for (0.0.0.0
    /// serves every interface, e.g. a remote training machine; anyone who can reach it can
    /// use it).
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::IpAddr,
    /// Open the page in the default browser.
    #[arg(long)]
    open: bool,
    /// Folders of models offered for the agents (default: models).
    #[arg(long = "models")]
    models: Vec<std::path::PathBuf>,
    /// Folders of training runs offered on the dashboard (default: runs).
    #[arg(long = "runs")]
    runs: Vec<std::path::PathBuf>,
}

#[derive(clap::Args)]
struct PlotArgs {
    /// The run folder (with its metrics.jsonl).
    run: std::path::PathBuf,
    /// Folder for the PNG and SVG files (created if missing).
    #[arg(long)]
    out: std::path::PathBuf,
}

#[derive(clap::Args)]
struct PerftArgs {
    /// The game.
    #[arg(long, value_enum, default_value_t = GameName::Checkers)]
    game: GameName,
    /// Plies to search (Othello: a pass is a ply).
    #[arg(long, short)]
    depth: u32,
    /// Start from this position instead of the initial one: PDN FEN for checkers, the
    /// 64-square text for Othello (`---...XO--... X`).
    #[arg(long)]
    fen: Option<String>,
    /// Print the count below each root move.
    #[arg(long)]
    divide: bool,
    /// Count capture routes with the same start, end and captured pieces once.
    #[arg(long)]
    unique: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// perft speed: nodes, seconds and nodes per second, one JSON line per run and a median.
    Perft {
        /// The game.
        #[arg(long, value_enum, default_value_t = GameName::Checkers)]
        game: GameName,
        /// Plies to count.
        #[arg(long, default_value_t = 12)]
        depth: u32,
        /// Worker threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Timed runs; the last line reports their median.
        #[arg(long, default_value_t = 3, value_parser = at_least_one::<usize>)]
        repeat: usize,
        /// Count capture routes with the same start, end and captured pieces once.
        #[arg(long)]
        unique: bool,
    },
    /// Policy-value network speed (inference at several batches, a training step), printed
    /// with the same JSON keys as bench/pytorch_reference.py.
    Nn {
        /// Presets, comma-separated: az-tiny, az-small, az-large, plain-7x128.
        #[arg(long, default_value = "az-tiny,az-small,plain-7x128")]
        net: String,
        /// cpu, gpu (any adapter, software included) or auto (a hardware GPU, else cpu).
        #[arg(long, default_value = "cpu")]
        device: String,
        /// CPU threads.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Inference batch sizes, comma-separated.
        #[arg(long, default_value = "1,16,64,256")]
        batches: String,
        /// Batch size of the timed training step (0: inference only).
        #[arg(long, default_value_t = 256)]
        train_batch: usize,
        /// Seconds per measurement.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
    /// The learner's intake through Redis: records pushed per second by producers, and
    /// taken in (checked, written and synced, acknowledged) per second by the learner.
    Ingest {
        /// redis://[user:password@]host[:port][/db]; the bench uses keys of its own.
        #[arg(long, value_name = "URL")]
        redis: String,
        /// With rediss://: the certificate authority (PEM) that signed the server's.
        #[arg(long, value_name = "FILE")]
        tls_ca: Option<PathBuf>,
        /// Game records to push and take in.
        #[arg(long, default_value_t = 5000, value_parser = at_least_one::<u64>)]
        records: u64,
        /// Connections pushing at once.
        #[arg(long, default_value_t = 2, value_parser = at_least_one::<usize>)]
        producers: usize,
    },
    /// Self-play throughput of a fresh network: games/hour, simulations/s, network
    /// evaluations/s and mean inference batch, one JSON line per run and a median.
    Selfplay {
        /// The game.
        #[arg(long, value_enum, default_value_t = GameName::Checkers)]
        game: GameName,
        /// Network preset.
        #[arg(long, default_value = "az-tiny")]
        net: String,
        /// cpu, gpu (any adapter, software included) or auto.
        #[arg(long, default_value = "cpu")]
        device: String,
        /// CPU threads for the network.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Simulations per move (every move a full search).
        #[arg(long, default_value_t = 200)]
        searches: u32,
        /// Games per run.
        #[arg(long, default_value_t = 16)]
        games: u32,
        /// Self-play worker threads.
        #[arg(long, default_value_t = 1)]
        workers: u32,
        /// Games each worker keeps going at once.
        #[arg(long, default_value_t = 16)]
        games_per_worker: u32,
        /// Leaves each search gathers per network call.
        #[arg(long, default_value_t = 4)]
        leaf_batch: u32,
        /// Timed runs; the last line reports their median.
        #[arg(long, default_value_t = 3, value_parser = at_least_one::<usize>)]
        repeat: usize,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Side {
    Black,
    White,
}

#[derive(clap::Args)]
struct PlayArgs {
    /// The opponent, any agent spec: `random`, `alphabeta:depth=8`, `alphabeta:time=2000`,
    /// `mcts:searches=1000`, `az` (the built-in trained network), `az:model=PATH`,
    /// `td:model=PATH`, `ga:model=PATH`, `pso:model=PATH` (see the README).
    #[arg(long, default_value = "alphabeta:depth=6")]
    agent: String,
    /// Your colour (Black moves first).
    #[arg(long, value_enum, default_value_t = Side::Black)]
    color: Side,
    /// The game.
    #[arg(long, value_enum, default_value_t = GameName::Checkers)]
    game: GameName,
    /// Start from this position (checkers: a PDN FEN; othello: 64 squares of X, O and -
    /// from a1 to h8, then the side to move).
    #[arg(long)]
    fen: Option<String>,
    /// Seed of the agent's random choices (tie-breaks, sampling).
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

#[derive(clap::Args)]
struct TournamentArgs {
    /// Agent specs, e.g. `random alphabeta:depth=2 pso:model=runs/pso/best.ckpt`.
    #[arg(required = true, num_args = 2..)]
    players: Vec<String>,
    #[command(flatten)]
    series: SeriesArgs,
}

#[derive(clap::Args)]
struct GauntletArgs {
    /// The agent to measure, e.g. `az:model=runs/az/best.ckpt,searches=200`.
    agent: String,
    /// Opponent specs, separated by `;` (specs hold commas) or given by repeating the flag.
    #[arg(long, value_delimiter = ';', default_values = DEFAULT_OPPONENTS.to_vec())]
    opponents: Vec<String>,
    /// Print one JSON object per opponent instead of the table (time and notes go to stderr).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    series: SeriesArgs,
}

#[derive(clap::Args)]
struct MatchArgs {
    /// First agent spec, e.g. `alphabeta:depth=6`.
    agent1: String,
    /// Second agent spec, e.g. `random`.
    agent2: String,
    /// Record each finished game in this file as it ends; run the same match again with
    /// the same file to play only the games it lacks (a long match stopped part-way).
    #[arg(long)]
    journal: Option<PathBuf>,
    /// With --journal: report the games the journal holds so far and play nothing (safe
    /// while another process is adding to it).
    #[arg(long, requires = "journal")]
    status: bool,
    #[command(flatten)]
    series: SeriesArgs,
}

/// How the games of a match or of each tournament pairing are played.
#[derive(clap::Args)]
struct SeriesArgs {
    /// The game (checkers starts from the ACF ballots, othello from every position four
    /// plies in, up to symmetry).
    #[arg(long, value_enum, default_value_t = GameName::Checkers)]
    game: GameName,
    /// Games (per pair in a tournament, per opponent in a gauntlet; default: every opening
    /// twice, once from each side).
    #[arg(long, value_parser = at_least_one::<usize>)]
    games: Option<usize>,
    /// Starting positions.
    #[arg(long, value_enum, default_value_t = OpeningSet::Standard)]
    openings: OpeningSet,
    /// Write all games here as PDN.
    #[arg(long)]
    pdn: Option<PathBuf>,
    /// Seed of the agents' random choices and of the opening order.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Games played at a time, each on one core (default: all cores). Results do not
    /// depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Adjudicate games that reach this many plies (checkers: more pieces, then more kings,
    /// wins; othello: more discs).
    #[arg(long, value_parser = at_least_one::<usize>)]
    max_plies: Option<usize>,
}

impl SeriesArgs {
    /// Runs `play` on the worker pool, prints its report and time, writes its PDN if asked.
    /// With `machine_output` stdout gets only the report; the time and notes go to stderr.
    fn run<R>(
        &self,
        play: impl FnOnce() -> Result<R> + Send,
        report: impl Fn(&R) -> (String, String),
        machine_output: bool,
    ) -> Result<()>
    where
        R: Send,
    {
        let note = |text: String| {
            if machine_output {
                eprintln!("{text}");
            } else {
                println!("{text}");
            }
        };
        let pool = thread_pool(self.threads)?;
        if let Some(path) = &self.pdn {
            // Found out now, not after hours of games.
            checkers_zero::files::check_writable(path)
                .with_context(|| format!("--pdn {}: cannot write there", path.display()))?;
        }
        let t = Instant::now();
        let result = pool.install(play)?;
        let (summary, pdn) = report(&result);
        print!("{summary}");
        note(format!("({:.1} s)", t.elapsed().as_secs_f64()));
        if let Some(path) = &self.pdn {
            checkers_zero::files::write_atomic(path, pdn.as_bytes())
                .with_context(|| format!("could not write {}", path.display()))?;
            note(format!("games written to {}", path.display()));
        }
        Ok(())
    }

    /// How each series of games is played, with a progress bar.
    fn series(&self) -> Series {
        Series {
            games: self.games,
            openings: self.openings,
            seed: self.seed,
            game: GameConfig {
                max_plies: self.max_plies,
            },
            progress: true,
        }
    }
}

/// Calls the generic `$f::<G>(args)` for the game `$game` names.
macro_rules! for_game {
    ($game:expr, $($f:ident)::+($($arg:expr),*)) => {
        match $game {
            GameName::Checkers => $($f)::+::<Checkers>($($arg),*),
            GameName::Othello => $($f)::+::<Othello>($($arg),*),
        }
    };
}

fn main() {
    // Mesa's device-select Vulkan layer reorders adapters (we choose our own) and, without a
    // display, prints "XDG_RUNTIME_DIR is invalid" twice, which a user cannot act on. A user's
    // own setting wins.
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: the first statement of main: no other thread exists to read the environment.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    if let Err(e) = run(Cli::parse()) {
        eprintln!("error: {}", one_line(&e));
        std::process::exit(1);
    }
}

/// The error and its causes on one line, each cause once: many messages already quote their
/// cause (`{path}: {source}`), and printing the chain again doubled them.
fn one_line(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            if !text.is_empty() {
                text += ": ";
            }
            text += &cause;
        }
    }
    text.replace('\n', " ")
}

/// A count that must be at least 1.
fn at_least_one<T: std::str::FromStr + PartialEq + Default>(text: &str) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(n) if n == T::default() => Err("expected at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a whole number of at least 1, got {text:?}"
        )),
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Perft(args) => run_perft(args),
        Command::Bench(BenchCommand::Perft {
            game,
            depth,
            threads,
            repeat,
            unique,
        }) => {
            if game == GameName::Othello && unique {
                bail!("--unique folds checkers capture routes; Othello has none");
            }
            thread_pool(Some(threads))?
                .install(|| bench::perft(game, depth, threads, repeat, unique));
            Ok(())
        }
        Command::Bench(BenchCommand::Nn {
            net,
            device,
            threads,
            batches,
            train_batch,
            seconds,
        }) => {
            let batches = batches
                .split(',')
                .map(|b| b.trim().parse::<usize>().ok().filter(|&b| b > 0))
                .collect::<Option<Vec<_>>>()
                .context(
                    "--batches: expected positive whole numbers separated by commas, e.g. 1,16,64",
                )?;
            let config = bench::NnBench {
                nets: net.split(',').map(|s| s.trim().to_string()).collect(),
                device: parse_device(&device)?,
                threads,
                batches,
                train_batch,
                seconds,
            };
            thread_pool(Some(threads))?
                .install(|| bench::nn(&config))
                .map_err(anyhow::Error::msg)
        }
        Command::Bench(BenchCommand::Ingest {
            redis,
            tls_ca,
            records,
            producers,
        }) => {
            let target = checkers_zero::distributed::link::RedisTarget {
                url: redis,
                ca: tls_ca,
            };
            bench::ingest(&target, records, producers).map_err(anyhow::Error::msg)
        }
        Command::Bench(BenchCommand::Selfplay {
            game,
            net,
            device,
            threads,
            searches,
            games,
            workers,
            games_per_worker,
            leaf_batch,
            repeat,
        }) => {
            let config = checkers_zero::train::alphazero::TrainConfig {
                network: net,
                searches,
                full_search_probability: 1.0,
                threads: workers,
                games_per_thread: games_per_worker,
                leaf_batch,
                games_per_iteration: games,
                ..checkers_zero::train::alphazero::TrainConfig::cpu()
            };
            config.validate().map_err(anyhow::Error::msg)?;
            let device = parse_device(&device)?;
            let pool = thread_pool(Some(threads))?;
            pool.install(|| match game {
                GameName::Checkers => {
                    bench::selfplay::<Checkers>(&config, &device, threads, repeat)
                }
                GameName::Othello => bench::selfplay::<Othello>(&config, &device, threads, repeat),
            })
            .map_err(anyhow::Error::msg)
        }
        Command::Play(args) => run_play(args),
        Command::Match(args) => run_match_cmd(args),
        Command::Tournament(args) => run_tournament_cmd(args),
        Command::Gauntlet(args) => run_gauntlet_cmd(args),
        Command::Train(args) => train_cli::train_az(*args),
        Command::TrainTd(args) => train_cli::train_td(args),
        Command::TrainGa(args) => train_cli::train_ga(args),
        Command::TrainPso(args) => train_cli::train_pso(args),
        Command::Learner(args) => cluster_cli::learner(*args),
        Command::Actor(args) => cluster_cli::actor(args),
        Command::Gui(args) => checkers_zero::gui::serve(checkers_zero::gui::GuiOptions {
            addr: std::net::SocketAddr::new(args.host, args.port),
            open: args.open,
            models: args.models,
            runs: args.runs,
        }),
        Command::Plot(args) => {
            for file in checkers_zero::plot::write_plots(&args.run, &args.out)? {
                println!("{}", file.display());
            }
            Ok(())
        }
        Command::Engine { game } => {
            // The engine reads on a thread of its own, which the stdin lock cannot move to.
            let stdin = std::io::BufReader::new(std::io::stdin());
            for_game!(game, engine::run(stdin, std::io::stdout()))?;
            Ok(())
        }
    }
}

fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    if threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        b = b.num_threads(n);
    }
    b.build().context("could not start worker threads")
}

/// The game's start position, or the one `--fen` gives in the game's text form.
fn start_position<G: Rules>(fen: Option<&str>) -> Result<G::Position> {
    fen.map_or(Ok(G::start()), |f| {
        G::parse_position(f).with_context(|| format!("bad --fen {f:?}"))
    })
}

fn run_perft(args: PerftArgs) -> Result<()> {
    let pool = thread_pool(args.threads)?;
    let t = Instant::now();
    let (depth, unique) = (args.depth, args.unique);
    // With --divide: the count under each root move, printed; else the parallel total, with
    // a bar over its work items (on a terminal; depth 15 and up take many minutes).
    type OnItem<'a> = &'a (dyn Fn(usize, usize) + Sync);
    let count = |divide: &(dyn Fn() -> Vec<(String, u64)> + Sync),
                 total: &(dyn Fn(OnItem) -> u64 + Sync)| {
        if !args.divide {
            let bar = checkers_zero::progress::progress(0, 0, "subtrees", true);
            bar.set_message(format!("perft {depth}"));
            let nodes = pool.install(|| {
                total(&|done, all| {
                    bar.set_length(all as u64);
                    bar.set_position(done as u64);
                })
            });
            bar.finish_and_clear();
            return nodes;
        }
        let rows = pool.install(divide);
        for (mv, n) in &rows {
            println!("{mv}: {n}");
        }
        rows.iter().map(|r| r.1).sum()
    };
    fn named<M: std::fmt::Display>(rows: Vec<(M, u64)>) -> Vec<(String, u64)> {
        rows.into_iter()
            .map(|(mv, n)| (mv.to_string(), n))
            .collect()
    }
    let nodes = match args.game {
        GameName::Checkers => {
            let pos = start_position::<Checkers>(args.fen.as_deref())?;
            count(&|| named(perft::divide(&pos, depth, unique)), &|on| {
                perft::perft_parallel_with(&pos, depth, unique, on)
            })
        }
        GameName::Othello => {
            if unique {
                bail!("--unique folds checkers capture routes; Othello has none");
            }
            let pos = start_position::<Othello>(args.fen.as_deref())?;
            count(&|| named(othello::perft::divide(&pos, depth)), &|on| {
                othello::perft::perft_parallel_with(&pos, depth, on)
            })
        }
    };
    let secs = t.elapsed().as_secs_f64();
    println!(
        "perft({depth}) = {nodes}  ({secs:.3} s, {:.1} M nodes/s)",
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}

fn parse_device(name: &str) -> Result<Device> {
    let device = Device::from_name(name).with_context(|| format!("--device {name}"))?;
    eprintln!("device: {}", device.describe());
    Ok(device)
}

/// An agent spec for game `G`, built once to check it.
fn parse_spec<G: AgentGame>(text: &str) -> Result<AgentSpec> {
    let spec: AgentSpec = text.parse()?;
    spec.build::<G>(0)?;
    Ok(spec)
}

/// A match, tournament or gauntlet player from its spec, built once to check it.
fn parse_player<G: AgentGame>(text: &str) -> Result<Player<G>> {
    Ok(parse_spec::<G>(text)?.into())
}

fn run_play(args: PlayArgs) -> Result<()> {
    for_game!(args.game, play_for(args))
}

fn play_for<G: PlayGame>(args: PlayArgs) -> Result<()> {
    let opts = checkers_zero::play::PlayOptions::<G> {
        agent: parse_spec::<G>(&args.agent)?,
        human: match args.color {
            Side::Black => Color::Black,
            Side::White => Color::White,
        },
        start: start_position::<G>(args.fen.as_deref())?,
        seed: args.seed,
    };
    checkers_zero::play::run(&opts, std::io::stdin().lock(), std::io::stdout())?;
    Ok(())
}

fn run_tournament_cmd(args: TournamentArgs) -> Result<()> {
    for_game!(args.series.game, tournament_for(&args))
}

fn tournament_for<G: AgentGame + ArenaGame>(args: &TournamentArgs) -> Result<()> {
    let a = &args.series;
    let config = TournamentConfig::<G> {
        players: args
            .players
            .iter()
            .map(|p| parse_player::<G>(p))
            .collect::<Result<_>>()?,
        series: a.series(),
    };
    a.run(
        || Ok(run_tournament(&config)?),
        |r| (r.table(), r.pdn.clone()),
        false,
    )
}

fn run_match_cmd(args: MatchArgs) -> Result<()> {
    for_game!(args.series.game, match_for(&args))
}

fn match_for<G: AgentGame + ArenaGame>(args: &MatchArgs) -> Result<()> {
    let a = &args.series;
    let config = MatchConfig::<G> {
        first: parse_player(&args.agent1)?,
        second: parse_player(&args.agent2)?,
        series: a.series(),
    };
    if let (true, Some(path)) = (args.status, &args.journal) {
        let (so_far, total) = journal_status(&config, path)?;
        println!("{} of {total} games played so far", so_far.games.len());
        if !so_far.games.is_empty() {
            println!("{}", so_far.summary());
        }
        return Ok(());
    }
    a.run(
        || match &args.journal {
            Some(path) => run_match_journaled(&config, path),
            None => Ok(run_match(&config)?),
        },
        |r| (r.summary(), r.pdn()),
        false,
    )
}

fn run_gauntlet_cmd(args: GauntletArgs) -> Result<()> {
    for_game!(args.series.game, gauntlet_for(&args))
}

fn gauntlet_for<G: AgentGame + ArenaGame>(args: &GauntletArgs) -> Result<()> {
    let a = &args.series;
    let opponents = args
        .opponents
        .iter()
        .filter(|o| !o.trim().is_empty())
        .map(|o| parse_player::<G>(o).with_context(|| format!("--opponents {o:?}")))
        .collect::<Result<Vec<_>>>()?;
    let config = GauntletConfig::<G> {
        player: parse_player(&args.agent)?,
        opponents,
        series: a.series(),
    };
    let json = args.json;
    a.run(
        || Ok(run_gauntlet(&config)?),
        |r| {
            let text = if json { r.json_lines() } else { r.to_string() };
            (text, r.pdn.clone())
        },
        json,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every flag and argument of every subcommand says what it is for.
    #[test]
    fn every_argument_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if !matches!(id, "help" | "version") && arg.get_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_about().is_none() {
                    missing.push(format!("{path} {} (no about)", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "checkers-zero", &mut missing);
        assert!(missing.is_empty(), "without help: {missing:#?}");
    }

    #[test]
    fn errors_print_each_cause_once() {
        let os = std::io::Error::from(std::io::ErrorKind::NotFound);
        let inner = format!("runs/x/state.ckpt: {os}");
        let e = anyhow::Error::new(os)
            .context(inner)
            .context("--resume runs/x");
        let text = one_line(&e);
        assert_eq!(text.matches("not found").count(), 1, "{text}");
        assert!(
            text.starts_with("--resume runs/x: runs/x/state.ckpt"),
            "{text}"
        );
    }

    #[test]
    fn counts_of_zero_are_refused_by_the_parser() {
        for args in [
            &["checkers-zero", "bench", "perft", "--repeat", "0"][..],
            &[
                "checkers-zero",
                "match",
                "random",
                "random",
                "--max-plies",
                "0",
            ],
            &["checkers-zero", "match", "random", "random", "--games", "0"],
            &["checkers-zero", "bench", "selfplay", "--repeat", "0"],
            &["checkers-zero", "train-td", "--out", "r", "--games", "0"],
            &[
                "checkers-zero",
                "train-td",
                "--out",
                "r",
                "--eval-games",
                "0",
            ],
            &[
                "checkers-zero",
                "train-ga",
                "--out",
                "r",
                "--generations",
                "0",
            ],
            &[
                "checkers-zero",
                "train-pso",
                "--out",
                "r",
                "--iterations",
                "0",
            ],
        ] {
            let e = Cli::try_parse_from(args).err().expect("refused");
            assert!(e.to_string().contains("at least 1"), "{args:?}: {e}");
        }
    }

    /// Shell words of one example line: quotes group, `#` outside quotes starts a comment.
    fn shell_words(line: &str) -> Vec<String> {
        let (mut words, mut word, mut quote, mut in_word) =
            (Vec::new(), String::new(), None, false);
        for c in line.chars() {
            match (quote, c) {
                (None, '#') if !in_word => break,
                (None, '"' | '\'') => (quote, in_word) = (Some(c), true),
                (Some(q), c) if c == q => quote = None,
                (None, c) if c.is_whitespace() => {
                    if in_word {
                        words.push(std::mem::take(&mut word));
                    }
                    in_word = false;
                }
                (_, c) => (word, in_word) = (word + &c.to_string(), true),
            }
        }
        if in_word {
            words.push(word);
        }
        words
    }

    /// Every command line the README shows parses, and every agent spec in it that names no
    /// file of the reader's own builds.
    #[test]
    fn the_readme_examples_are_valid_command_lines() {
        let readme = include_str!("../README.md");
        let mut checked = 0;
        for line in readme.lines() {
            let words = shell_words(line);
            if words.first().map(String::as_str) != Some("checkers-zero") {
                continue;
            }
            let cli = Cli::try_parse_from(&words)
                .unwrap_or_else(|e| panic!("README example {line:?}: {e}"));
            let (game, specs): (GameName, Vec<String>) = match cli.command {
                Command::Play(a) => (a.game, vec![a.agent]),
                Command::Match(a) => (a.series.game, vec![a.agent1, a.agent2]),
                Command::Tournament(a) => (a.series.game, a.players),
                Command::Gauntlet(a) => (a.series.game, [vec![a.agent], a.opponents].concat()),
                _ => (GameName::Checkers, Vec::new()),
            };
            for spec in specs.iter().filter(|s| !s.contains("model=")) {
                for_game!(game, parse_spec(spec))
                    .unwrap_or_else(|e| panic!("README example {line:?}: {e}"));
            }
            checked += 1;
        }
        assert!(checked >= 20, "only {checked} examples found");
    }
}
