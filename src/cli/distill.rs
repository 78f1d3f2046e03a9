//! `distill`: a checkers network's value head taught the shipped patterns' alpha-beta
//! searched some plies deep, on the positions of games that search plays.

use anyhow::{Context, Result, bail};
use checkers_zero::files::{check_writable, checksum};
use checkers_zero::games::Checkers;
use checkers_zero::mcts::evaluator::{Evaluator, NetEvaluator};
use checkers_zero::net::NetGame;
use checkers_zero::net::{Lineage, model_from_bytes, save_model};
use checkers_zero::progress::progress;
use checkers_zero::tensor::Device;
use checkers_zero::train::checkers_patterns::{Play, label_by_search, play_games};
use checkers_zero::train::value_distill::{Teaching, samples, teach, value_error};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct DistillArgs {
    /// The network to teach (default: the built-in one).
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// Games whose positions are labelled and trained on (every tenth held out).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(10..))]
    games: u32,
    /// Plies of the patterns' alpha-beta that labels each position.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=12))]
    label_depth: u32,
    /// Passes over the positions.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    epochs: u32,
    /// Adam's learning rate (a fresh Adam: 0.0003 already undid more than it taught in
    /// trials on the built-in network).
    #[arg(long, default_value_t = 0.0001)]
    lr: f32,
    /// Positions a training step.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    batch_size: u32,
    /// Seed of the games' random moves and of the training order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The model file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

pub fn run(args: DistillArgs) -> Result<()> {
    // Before minutes of games, not after.
    check_writable(&args.out).with_context(|| format!("--out {}", args.out.display()))?;
    if !(args.lr > 0.0 && args.lr.is_finite()) {
        bail!("--lr {}: expected a positive learning rate", args.lr);
    }
    // One read gives both the network and the hash its lineage records.
    let (bytes, parent) = match &args.model {
        Some(path) => (
            std::fs::read(path).with_context(|| format!("--model {}", path.display()))?,
            path.display().to_string(),
        ),
        None => (Checkers::DEFAULT_MODEL.to_vec(), "built-in".to_string()),
    };
    let what = || format!("--model {parent}");
    let ckpt = model_from_bytes::<Checkers>(&bytes).with_context(what)?;
    let encoding = ckpt.arch.model.encoding;
    let (mut net, _) = (ckpt.arch.model.restore(&ckpt, &Device::Cpu)).with_context(what)?;
    let parent_hash = format!("{:016x}", checksum(&bytes));
    let mut before = NetEvaluator::<Checkers>::new(net.clone(), encoding, Device::Cpu)?;
    let play = Play::default();
    let start = Instant::now();
    eprintln!(
        "playing {} games from the ballots: depth {} of the classic evaluation, {}% random moves",
        args.games,
        play.depth,
        play.random_move * 100.0
    );
    let bar = progress(args.games as u64, 0, "games", true);
    let games = play_games(
        &play,
        args.games as usize,
        args.seed,
        before.history(),
        &bar,
    );
    bar.finish_and_clear();
    let positions: usize = games.iter().map(Vec::len).sum();
    eprintln!(
        "{positions} positions in {:.0} s; labelling them with the patterns' alpha-beta, {} plies deep",
        start.elapsed().as_secs_f64(),
        args.label_depth
    );
    let bar = progress(positions as u64, 0, "positions", true);
    let labels = label_by_search(&games, args.label_depth, &bar);
    bar.finish_and_clear();
    eprintln!(
        "labelled in {:.0} s; reading the network's priors",
        start.elapsed().as_secs_f64()
    );
    let bar = progress(positions as u64, 0, "positions", true);
    let games = samples(games, &labels, &mut before, &bar);
    bar.finish_and_clear();
    drop(labels);
    let held: Vec<_> = games.iter().skip(9).step_by(10).flatten().collect();
    let fitted: Vec<_> = (games.iter().enumerate())
        .filter(|(i, _)| i % 10 != 9)
        .flat_map(|(_, g)| g)
        .collect();
    let held_before = value_error(&mut before, &held);
    drop(before);
    let how = Teaching {
        epochs: args.epochs,
        batch_size: args.batch_size as usize,
        lr: args.lr,
        weight_decay: 1e-4,
        seed: args.seed,
    };
    eprintln!(
        "{} positions to train on, {} held out; training {} epoch(s) at batch {}, learning rate {}",
        fitted.len(),
        held.len(),
        how.epochs,
        how.batch_size,
        how.lr
    );
    let steps = how.epochs as u64 * (fitted.len() / how.batch_size).max(1) as u64;
    let bar = progress(steps, 0, "steps", true);
    let stats = teach(&mut net, &encoding, &fitted, &how, &bar);
    bar.finish_and_clear();
    let mut after = NetEvaluator::<Checkers>::new(net.clone(), encoding, Device::Cpu)?;
    let held_after = value_error(&mut after, &held);
    let lineage = Lineage {
        run: format!(
            "distill --label-depth {} --games {}",
            args.label_depth, args.games
        ),
        iteration: 0,
        parent,
        parent_hash,
        averaged: Vec::new(),
    };
    save_model::<Checkers>(&args.out, &net, encoding, &lineage, None)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "trained {} steps in {:.0} s in all: policy loss {:.4} (against its own priors), value \
         loss {:.4}; held-out squared error of the value against the labels {:.4} -> {:.4}",
        stats.steps,
        start.elapsed().as_secs_f64(),
        stats.policy_loss,
        stats.value_loss,
        held_before,
        held_after
    );
    println!("wrote {}", args.out.display());
    Ok(())
}
