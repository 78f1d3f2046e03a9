//! `train-eval`: checkers' classic evaluation fitted to the games of match journals;
//! `train-patterns`: a pattern evaluation fitted to games it plays itself (checkers' to a
//! network's values, Othello's to the results).

use anyhow::{Context, Result, bail};
use checkers_zero::agents::checkers_eval::{CheckersEval, ClassicWeights};
use checkers_zero::agents::settings::CheckersEvalKind;
use checkers_zero::arena::journal_games;
use checkers_zero::games::{Checkers, GameName};
use checkers_zero::train::eval_fit::fit;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct EvalFitArgs {
    /// Match journals (`match --journal`) of checkers games, whatever their players.
    #[arg(required = true, value_name = "JOURNAL")]
    journals: Vec<PathBuf>,
    /// Full-batch steps of the descent.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..))]
    steps: u32,
    /// A king's value in men, as `alphabeta`'s `king=` gives it.
    #[arg(long, default_value_t = 1.5)]
    king: f32,
    /// How strongly each weight is held to the hand-set one: this times the squared
    /// difference (in the search's units, a man 100) is added to the mean squared error.
    #[arg(long, default_value_t = 0.0)]
    prior: f64,
    /// Plies of each game left out at its start (a ballot's three moves are 6).
    #[arg(long, default_value_t = 6)]
    skip: usize,
}

pub fn run(args: EvalFitArgs) -> Result<()> {
    let eval = CheckersEval::new(CheckersEvalKind::Classic, args.king)?;
    let mut games = Vec::new();
    for path in &args.journals {
        let read = journal_games::<Checkers>(path)?;
        eprintln!("{}: {} games", path.display(), read.len());
        games.extend(read.into_iter().map(|(game, _)| game));
    }
    if games.is_empty() {
        bail!("the journals hold no finished game");
    }
    let start = ClassicWeights::HAND;
    let r = fit(
        &games,
        eval.king_value(),
        args.skip,
        start,
        args.steps as usize,
        args.prior,
    );
    println!(
        "{} games: {} positions fitted, {} held out (every fifth game); scale {:.1}",
        games.len(),
        r.fitted_positions,
        r.held_positions,
        r.scale
    );
    println!(
        "mean squared error, fitted: {:.5} -> {:.5}; held out: {:.5} -> {:.5}",
        r.fitted_before, r.fitted_after, r.held_before, r.held_after
    );
    println!("hand:   {:?}", start);
    println!("fitted: {:?}", r.weights);
    Ok(())
}

#[derive(clap::Args)]
pub struct PatternFitArgs {
    /// The game whose pattern evaluation to fit: checkers' is fitted to a network's values,
    /// Othello's to the games' results.
    #[arg(long, value_parser = super::named::<GameName>(), default_value_t = GameName::Checkers)]
    game: GameName,
    /// Games to play and fit to (every tenth held out).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(10..))]
    games: u32,
    /// Passes of the descent over the positions.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    epochs: u32,
    /// Seed of the games' random moves and of the descent's order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Plies of the alpha-beta search that plays the games.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=6))]
    depth: u32,
    /// Othello: pattern weights (an earlier fit's file) for the search that plays the games,
    /// instead of the classic evaluation: better play gives truer labels.
    #[arg(long, value_name = "FILE")]
    player: Option<PathBuf>,
    /// Checkers: the network whose values label the positions (default: the built-in one).
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// Checkers: label the positions instead with the shipped patterns' own alpha-beta
    /// searched this many plies deep (0: the network's values).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=12))]
    label_depth: u32,
    /// The weights file to write (what the program ships: data/checkers-patterns.bin,
    /// data/othello-patterns.bin).
    #[arg(long)]
    out: PathBuf,
}

pub fn run_patterns(args: PatternFitArgs) -> Result<()> {
    // Before minutes of games, not after.
    checkers_zero::files::check_writable(&args.out)
        .with_context(|| format!("--out {}", args.out.display()))?;
    match args.game {
        GameName::Checkers => {
            if args.player.is_some() {
                bail!(
                    "--player is Othello's: checkers' games are played by the classic evaluation"
                );
            }
            run_checkers_patterns(&args)
        }
        GameName::Othello => {
            if args.model.is_some() || args.label_depth > 0 {
                let flag = if args.model.is_some() {
                    "--model"
                } else {
                    "--label-depth"
                };
                bail!(
                    "{flag} is checkers': Othello's positions are labelled by their games' results"
                );
            }
            run_othello_patterns(&args)
        }
    }
}

fn run_checkers_patterns(args: &PatternFitArgs) -> Result<()> {
    use checkers_zero::mcts::evaluator::{Evaluator, NetEvaluator};
    use checkers_zero::net::{NetGame, load_model};
    use checkers_zero::tensor::Device;
    use checkers_zero::train::checkers_patterns::{Play, fit, label, label_by_search, play_games};
    if args.label_depth > 0 && args.model.is_some() {
        bail!("--model labels with a network's values and --label-depth with a search: give one");
    }
    let mut evaluator = if args.label_depth > 0 {
        None
    } else {
        let (net, encoding, _) = match &args.model {
            Some(path) => load_model::<Checkers>(path, &Device::Cpu)
                .with_context(|| format!("--model {}", path.display()))?,
            None => Checkers::default_model(&Device::Cpu)?,
        };
        Some(NetEvaluator::<Checkers>::new(net, encoding, Device::Cpu)?)
    };
    let play = Play {
        depth: args.depth,
        ..Play::default()
    };
    eprintln!(
        "playing {} games from the ballots: depth {} of the classic evaluation, {}% random moves",
        args.games,
        play.depth,
        play.random_move * 100.0
    );
    let start = std::time::Instant::now();
    let bar = checkers_zero::progress::progress(args.games as u64, 0, "games", true);
    let history = evaluator.as_ref().map_or(0, |e| e.history());
    let games = play_games(&play, args.games as usize, args.seed, history, &bar);
    bar.finish_and_clear();
    let positions: usize = games.iter().map(Vec::len).sum();
    let judge = match (&args.model, args.label_depth) {
        (_, d @ 1..) => format!("the shipped patterns' alpha-beta, {d} plies deep"),
        (Some(p), _) => p.display().to_string(),
        (None, _) => "the built-in network".into(),
    };
    eprintln!(
        "{positions} positions in {:.0} s; labelling them with {judge}",
        start.elapsed().as_secs_f64(),
    );
    let bar = checkers_zero::progress::progress(positions as u64, 0, "positions", true);
    let samples = match &mut evaluator {
        Some(evaluator) => label(&games, evaluator, 512, &bar),
        None => label_by_search(&games, args.label_depth, &bar),
    };
    bar.finish_and_clear();
    drop(games);
    eprintln!(
        "labelled in {:.0} s; fitting",
        start.elapsed().as_secs_f64()
    );
    let (weights, r) = fit(&samples, args.epochs as usize, args.seed);
    checkers_zero::files::write_atomic(&args.out, &weights.to_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "{} positions fitted, {} held out (every tenth game); mean squared error against the \
         labels, held out: {:.4} (material alone {:.4}, the classic evaluation \
         {:.4}); fitted {:.4}",
        r.fitted_positions,
        r.held_positions,
        r.held_mse,
        r.held_material_mse,
        r.held_classic_mse,
        r.fitted_mse
    );
    println!("wrote {}", args.out.display());
    Ok(())
}

fn run_othello_patterns(args: &PatternFitArgs) -> Result<()> {
    use checkers_zero::agents::othello_patterns::Layout;
    use checkers_zero::agents::othello_patterns::PatternWeights;
    use checkers_zero::train::othello_patterns::{EXACT_EMPTIES, Play, fit, play_games};
    let patterns = match &args.player {
        Some(path) => {
            let bytes = std::fs::read(path)
                .with_context(|| format!("--player: cannot read {}", path.display()))?;
            Some(PatternWeights::from_bytes(&bytes).with_context(|| {
                format!(
                    "--player {}: expected a file train-patterns wrote",
                    path.display()
                )
            })?)
        }
        None => None,
    };
    let play = Play {
        depth: args.depth,
        patterns,
        ..Play::default()
    };
    eprintln!(
        "playing {} games: up to {} random moves, then depth {} of {} ({}% random moves), \
         exact from {EXACT_EMPTIES} empties",
        args.games,
        play.random_opening,
        play.depth,
        match &args.player {
            Some(p) => format!("the patterns of {}", p.display()),
            None => "the classic evaluation".into(),
        },
        play.random_move * 100.0
    );
    let start = std::time::Instant::now();
    let bar = checkers_zero::progress::progress(args.games as u64, 0, "games", true);
    let games = play_games(&play, args.games as usize, args.seed, &bar);
    bar.finish_and_clear();
    let positions: usize = games.iter().map(Vec::len).sum();
    eprintln!(
        "{positions} positions in {:.0} s; fitting {}",
        start.elapsed().as_secs_f64(),
        Layout::get().describe()
    );
    let (weights, r) = fit(&games, args.epochs as usize, args.seed);
    checkers_zero::files::write_atomic(&args.out, &weights.to_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "{} positions fitted, {} held out (every tenth game); mean squared error in discs²: \
         fitted {:.1}, held out {:.1} (every weight zero: {:.1})",
        r.fitted_positions, r.held_positions, r.fitted_mse, r.held_mse, r.held_zero_mse
    );
    println!("wrote {}", args.out.display());
    Ok(())
}
