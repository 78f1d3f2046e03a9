//! The command line: the subcommands (one file per family) and what they share. Only this
//! layer knows clap and anyhow; the library below it takes typed values.

mod agents;
mod arena;
mod average;
mod bench;
#[cfg(feature = "cluster")]
mod bench_ingest;
mod bench_runs;
mod book;
mod cluster;
mod distill;
mod egdb;
mod eval_fit;
mod export;
mod gui;
mod health;
mod keys;
mod perft;
mod play;
mod train;

use anyhow::{Context, Result, bail};
use checkers_zero::agents::{AgentGame, AgentSpec, Player};
use checkers_zero::events::{LogFormat, set_format};
use checkers_zero::games::{GameName, Rules};
use checkers_zero::names::{Named, parse_name};
use checkers_zero::tensor::{Device, DeviceChoice, Precision};
use clap::{Parser, Subcommand};

/// `$call` where the build has `$feature`, else an error that says how to enable it.
macro_rules! needs {
    ($feature:literal, $command:literal, $call:expr) => {{
        #[cfg(feature = $feature)]
        let result = $call;
        #[cfg(not(feature = $feature))]
        let result = Err(anyhow::anyhow!(
            "`{}` is not in this build: build with the `{}` feature (on by default), e.g. \
             cargo build --release --features {}",
            $command,
            $feature,
            $feature
        ));
        result
    }};
}
pub(crate) use needs;

#[derive(Parser)]
#[command(
    name = "checkers-zero",
    version,
    about = "Learns English checkers from zero knowledge; play, measure and compare agents."
)]
pub struct Cli {
    /// How long-running commands write their events (iterations, actors, Redis outages) on
    /// stdout: text lines, or JSON lines for log collectors.
    #[arg(long, global = true, env = "CHECKERS_ZERO_LOG_FORMAT", value_parser = named::<LogFormat>(), default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    #[command(subcommand)]
    pub(super) command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Count move sequences to a depth (checks the move generator).
    Perft(perft::PerftArgs),
    /// Benchmarks that print one JSON object per measurement.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// The agent kinds a game has, with every option, its values and its default.
    Agents(agents::AgentsArgs),
    /// Play a game against an agent in the terminal.
    Play(play::PlayArgs),
    /// Play two agents against each other over the ballot openings.
    Match(arena::MatchArgs),
    /// Round-robin of agents over the ballots: cross table and Elo (random anchored at 0).
    Tournament(arena::TournamentArgs),
    /// One agent against a list of opponents over the ballots: score and Elo per opponent.
    Gauntlet(arena::GauntletArgs),
    /// Play a training run's best networks, afterwards, against fixed opponents: its learning
    /// curve by hours and CPU hours of training (curve.jsonl in the run, drawn by `plot` and
    /// the dashboard).
    Curve(arena::CurveArgs),
    /// Speak the engine line protocol on stdin/stdout (see docs/engine.md).
    Engine {
        /// The game.
        #[arg(long, value_parser = named::<GameName>(), default_value_t = GameName::Checkers)]
        game: GameName,
    },
    /// Learn a game (checkers unless --game) from zero by AlphaZero self-play (no arguments:
    /// a fresh checkers run on the best device with its preset).
    Train(Box<train::AzArgs>),
    /// Train a TD(lambda) value network, for checkers or Othello (agent `td`).
    TrainTd(train::TdArgs),
    /// Evolve checkers networks with a genetic algorithm (agent `ga`).
    TrainGa(train::GaArgs),
    /// Train checkers networks by particle swarm optimisation (agent `pso`).
    TrainPso(train::PsoArgs),
    /// Fit checkers' classic evaluation (`alphabeta:eval=classic`) to the games of match
    /// journals (Texel's method): the weights that best predict the results.
    TrainEval(eval_fit::EvalFitArgs),
    /// Fit a pattern evaluation (`alphabeta:eval=patterns`) to games it plays: checkers' to
    /// a network's values, Othello's to the results, exact from the last empties.
    TrainPatterns(eval_fit::PatternFitArgs),
    /// Teach a checkers network's value head the patterns' alpha-beta searched some plies
    /// deep, on positions of games that search plays; its policy held to its own priors.
    Distill(distill::DistillArgs),
    /// Train as `train` does, on games from self-play actors on any machines, through Redis.
    Learner(Box<cluster::LearnerArgs>),
    /// Play self-play games for a learner with its latest network, through Redis.
    Actor(cluster::ActorArgs),
    /// Checkers' endgame databases: build, probe, verify, count, measure.
    #[command(subcommand)]
    Egdb(egdb::EgdbCommand),
    /// Serve the browser interface: play against the agents, analyse, watch training runs.
    Gui(gui::GuiArgs),
    /// Draw a training run's curves (losses, gating, gauntlet, throughput) as PNG and SVG.
    Plot(gui::PlotArgs),
    /// Write a model file's network as ONNX, to run in ONNX Runtime and other programs.
    Export(export::ExportArgs),
    /// Whether the long-running command in this container (gui, learner, actor, train) is
    /// well, from the file it keeps fresh (CHECKERS_ZERO_HEALTH_FILE): a container's health
    /// check.
    Health(health::HealthArgs),
    /// One network whose weights are the mean of several model files' (a run's later
    /// iterations): stochastic weight averaging.
    Average(average::AverageArgs),
    /// Grow an opening book (`az:book=FILE`) from deep searches of a game's openings.
    Book(book::BookArgs),
}

/// Carries out the subcommand.
pub fn run(cli: Cli) -> Result<()> {
    set_format(cli.log_format);
    match cli.command {
        Command::Perft(args) => perft::run(args),
        Command::Bench(command) => bench::run(command),
        Command::Agents(args) => agents::run(args),
        Command::Play(args) => play::run(args),
        Command::Match(args) => arena::run_match(args),
        Command::Tournament(args) => arena::run_tournament(args),
        Command::Gauntlet(args) => arena::run_gauntlet(args),
        Command::Curve(args) => arena::run_curve(args),
        Command::Train(args) => train::train_az(*args),
        Command::TrainTd(args) => train::train_td(args),
        Command::TrainGa(args) => train::train_ga(args),
        Command::TrainPso(args) => train::train_pso(args),
        Command::TrainEval(args) => eval_fit::run(args),
        Command::TrainPatterns(args) => eval_fit::run_patterns(args),
        Command::Distill(args) => distill::run(args),
        Command::Learner(_args) => needs!("cluster", "learner", cluster::learner(*_args)),
        Command::Actor(_args) => needs!("cluster", "actor", cluster::actor(_args)),
        Command::Gui(_args) => needs!("gui", "gui", gui::serve(_args)),
        Command::Plot(_args) => needs!("plot", "plot", gui::plot(_args)),
        Command::Engine { game } => play::engine(game),
        Command::Egdb(command) => egdb::run(command),
        Command::Export(args) => export::run(args),
        Command::Average(args) => average::run(args),
        Command::Book(args) => book::run(args),
        Command::Health(args) => health::run(args),
    }
}

/// The error and its causes on one line, each cause once: many messages already quote their
/// cause (`{path}: {source}`), and printing the chain again doubled them.
pub fn one_line(e: &anyhow::Error) -> String {
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

/// A worker pool of `threads` threads (default: one per core).
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

/// Items separated by `separator`, each read by `parse`; `what` says what was expected.
fn list<T>(
    text: &str,
    separator: char,
    what: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>> {
    text.split(separator)
        .map(|item| parse(item.trim()))
        .collect::<Option<Vec<_>>>()
        .with_context(|| format!("{text:?}: expected {what}"))
}

/// The value parser of a [`Named`] enum: its names, with their help, as clap's possible
/// values.
fn named<T: Named + Send + Sync>() -> impl clap::builder::TypedValueParser<Value = T> {
    let values = T::ALL
        .iter()
        .map(|v| clap::builder::PossibleValue::new(v.name()).help(v.help()));
    clap::builder::TypedValueParser::map(
        clap::builder::PossibleValuesParser::new(values),
        |name: String| parse_name::<T>(&name).expect("clap checked it is one of the names"),
    )
}

/// A whole number of at least 1, for [`list`].
fn positive(text: &str) -> Option<usize> {
    text.parse().ok().filter(|&n| n > 0)
}

/// The game's start position, or the one `--fen` gives in the game's text form.
fn start_position<G: Rules>(fen: Option<&str>) -> Result<G::Position> {
    fen.map_or(Ok(G::start()), |f| {
        G::parse_position(f).with_context(|| format!("bad --fen {f:?}"))
    })
}

/// The device `--device` names, opened, computing at `--precision`.
fn open_device(choice: DeviceChoice, precision: Precision) -> Result<Device> {
    let device = choice
        .open()
        .with_context(|| format!("--device {choice}"))?;
    (device.set_precision(precision)).with_context(|| format!("--precision {precision}"))?;
    // On the CPU the networks' evaluators take it (self-play's); training steps stay f32.
    if precision == Precision::Mixed && matches!(device, Device::Cpu) {
        checkers_zero::backend::cpu::amx::mix_evaluators();
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use checkers_zero::games::on_game;
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

    /// Every command line the README and docs/cli.md show parses, and every agent spec in it
    /// that names no file of the reader's own builds.
    #[test]
    fn the_readme_examples_are_valid_command_lines() {
        let docs = [
            include_str!("../../README.md"),
            include_str!("../../docs/cli.md"),
            include_str!("../../docs/engine.md"),
        ];
        let mut checked = 0;
        for line in docs.iter().flat_map(|d| d.lines()) {
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
            let names_own_file = |s: &&String| s.contains("model=") || s.contains("book=");
            for spec in specs.iter().filter(|s| !names_own_file(s)) {
                on_game!(game, G => parse_spec::<G>(spec))
                    .unwrap_or_else(|e| panic!("README example {line:?}: {e}"));
            }
            checked += 1;
        }
        assert!(checked >= 20, "only {checked} examples found");
    }
}
