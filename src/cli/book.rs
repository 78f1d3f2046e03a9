//! `book`: an opening book grown from deep searches of a game's openings, for `az:book=FILE`.

use super::{at_least_one, named, parse_spec, thread_pool};
use anyhow::{Context, Result, bail};
use checkers_zero::agents::book::Book;
use checkers_zero::agents::kinds;
use checkers_zero::agents::search::AzConfig;
use checkers_zero::agents::spec::Options;
use checkers_zero::agents::{AgentError, AgentGame};
use checkers_zero::arena::book::{BookPlan, grow_book};
use checkers_zero::arena::{ArenaGame, OpeningSet};
use checkers_zero::files::{check_writable, file_error, write_atomic};
use checkers_zero::games::{GameName, on_game};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct BookArgs {
    /// Write the book here. A book already there is grown: the openings it names as
    /// searched are skipped, so a stopped build resumes.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// The game.
    #[arg(long, value_parser = named::<GameName>(), default_value_t = GameName::Checkers)]
    game: GameName,
    /// The network that searches and its search's settings: an `az` spec (its check,
    /// hand-off and book play no part: the tree search alone).
    #[arg(long, default_value = "az:device=cpu")]
    agent: String,
    /// Simulations of each opening's search.
    #[arg(long, default_value_t = 1_000_000, value_parser = at_least_one::<u64>)]
    simulations: u64,
    /// The simulations a position's node must have gathered for the book to keep it (the
    /// built-in network searches about 50,000 a second of play on one core).
    #[arg(long, default_value_t = 200_000, value_parser = at_least_one::<u32>)]
    min_visits: u32,
    /// The openings searched.
    #[arg(long, value_parser = named::<OpeningSet>(), default_value_t = OpeningSet::Standard)]
    openings: OpeningSet,
    /// Seed of the searches' random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Openings searched at a time, each on one core (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

pub fn run(args: BookArgs) -> Result<()> {
    on_game!(args.game, G => grow::<G>(&args))
}

fn grow<G: AgentGame + ArenaGame>(args: &BookArgs) -> Result<()> {
    let out = &args.out;
    check_writable(out).with_context(|| format!("--out {}", out.display()))?;
    let spec = parse_spec::<G>(&args.agent).context("--agent")?;
    if spec.kind != kinds::AZ.kind {
        bail!(
            "--agent {}: expected an az spec (a network's search), e.g. az:device=cpu",
            args.agent
        );
    }
    let config = AzConfig::from_options(&Options::new(&spec, &kinds::AZ))
        .context("--agent")?
        .for_game::<G>();
    if args.min_visits as u64 > args.simulations {
        bail!(
            "--min-visits {} is more than --simulations {}: the book would be empty",
            args.min_visits,
            args.simulations
        );
    }
    let mut book = read_existing::<G>(out)?;
    let openings = G::starting_games(args.openings);
    let done = openings.iter().filter(|(_, g)| book.searched(g.position()));
    let bar = checkers_zero::progress::progress(
        openings.len() as u64,
        done.count() as u64,
        "openings",
        std::io::stderr().is_terminal(),
    );
    bar.set_message(format!("book {}", out.display()));
    let plan = BookPlan {
        config,
        simulations: args.simulations,
        min_visits: args.min_visits,
        openings: args.openings,
        seed: args.seed,
    };
    let searched = |book: &Book<G>| -> Result<(), AgentError> {
        write_atomic(out, book.to_text().as_bytes())
            .map_err(file_error("write", out))
            .map_err(|e| AgentError::Invalid(e.to_string()))?;
        bar.inc(1);
        Ok(())
    };
    let pool = thread_pool(args.threads)?;
    let searches = pool.install(|| grow_book(&plan, &mut book, searched))?;
    bar.finish_and_clear();
    println!(
        "{}: {} positions, {searches} openings searched now ({} simulations each, positions \
         kept from {} simulations)",
        out.display(),
        book.len(),
        args.simulations,
        args.min_visits
    );
    Ok(())
}

/// The book at `path` to grow, or an empty one where there is no file.
fn read_existing<G: AgentGame>(path: &Path) -> Result<Book<G>> {
    if !path.exists() {
        return Ok(Book::default());
    }
    Ok(Book::load(path)?)
}
