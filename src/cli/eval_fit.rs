//! `train-eval`: checkers' classic evaluation fitted to the games of match journals.

use anyhow::{Result, bail};
use checkers_zero::agents::checkers_eval::{CheckersEval, ClassicWeights};
use checkers_zero::agents::settings::CheckersEvalKind;
use checkers_zero::arena::journal_games;
use checkers_zero::games::Checkers;
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
        games.extend(read);
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
