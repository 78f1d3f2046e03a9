//! `perft`: count move sequences to a depth (checks the move generator).

use super::{start_position, thread_pool};
use anyhow::{Result, bail};
use checkers_zero::games::checkers::perft;
use checkers_zero::games::{Checkers, GameName, Othello, othello};
use std::time::Instant;

#[derive(clap::Args)]
pub struct PerftArgs {
    /// The game.
    #[arg(long, value_parser = super::named::<GameName>(), default_value_t = GameName::Checkers)]
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

pub fn run(args: PerftArgs) -> Result<()> {
    let pool = thread_pool(args.threads)?;
    let t = Instant::now();
    let (depth, unique) = (args.depth, args.unique);
    // With --divide: the count under each root move, printed; else the parallel total. A bar
    // over the root moves or the work items (on a terminal; depth 15 and up take minutes).
    type OnItem<'a> = &'a (dyn Fn(usize, usize) + Sync);
    let count = |divide: &(dyn Fn(OnItem) -> Vec<(String, u64)> + Sync),
                 total: &(dyn Fn(OnItem) -> u64 + Sync)| {
        let unit = if args.divide {
            "root moves"
        } else {
            "subtrees"
        };
        let bar = checkers_zero::progress::progress(0, 0, unit, true);
        bar.set_message(format!("perft {depth}"));
        let on_item = |done: usize, all: usize| {
            bar.set_length(all as u64);
            bar.set_position(done as u64);
        };
        if !args.divide {
            let nodes = pool.install(|| total(&on_item));
            bar.finish_and_clear();
            return nodes;
        }
        let rows = pool.install(|| divide(&on_item));
        bar.finish_and_clear();
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
            count(
                &|on| named(perft::divide_with(&pos, depth, unique, on)),
                &|on| perft::perft_parallel_with(&pos, depth, unique, on),
            )
        }
        GameName::Othello => {
            if unique {
                bail!("--unique folds checkers capture routes; Othello has none");
            }
            let pos = start_position::<Othello>(args.fen.as_deref())?;
            count(
                &|on| named(othello::perft::divide_with(&pos, depth, on)),
                &|on| othello::perft::perft_parallel_with(&pos, depth, on),
            )
        }
    };
    let secs = t.elapsed().as_secs_f64();
    println!(
        "perft({depth}) = {nodes}  ({secs:.3} s, {:.1} M nodes/s)",
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}
