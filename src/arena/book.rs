//! Growing an opening book (src/agents/book.rs) over a game's openings: one deep search of
//! each opening's position by the network's search alone, the positions of its tree that
//! gathered enough simulations kept with their most visited moves. Openings already searched
//! (named in the book) are skipped, so an interrupted build resumes where it stopped.

use super::openings::{ArenaGame, OpeningSet};
use super::series::on_one_core_each;
use crate::agents::book::Book;
use crate::agents::search::{AzAgent, AzConfig};
use crate::agents::{Agent, AgentError, Limits};
use crate::net::NetGame;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// What a book is grown from.
#[derive(Clone, Debug)]
pub struct BookPlan {
    /// The searching network and its search's settings (`az`'s options).
    pub config: AzConfig,
    /// Simulations of each opening's search.
    pub simulations: u64,
    /// The simulations a position's node needs for the book to keep it.
    pub min_visits: u32,
    pub openings: OpeningSet,
    pub seed: u64,
}

/// Searches every opening of `plan` that `book` has not searched, as many at a time as the
/// current rayon pool has threads, each on one core (as a match's games),
/// adding each search's positions to `book` and then calling `searched` with the book (the
/// caller writes the file there). Returns how many openings it searched.
pub fn grow_book<G: ArenaGame + NetGame>(
    plan: &BookPlan,
    book: &mut Book<G>,
    searched: impl Fn(&Book<G>) -> Result<(), AgentError> + Sync,
) -> Result<usize, AgentError> {
    let todo: Vec<_> = G::starting_games(plan.openings)
        .into_iter()
        .filter(|(_, game)| !book.searched(game.position()))
        .collect();
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let shared = Mutex::new(std::mem::take(book));
    let limits = Limits {
        nodes: Some(plan.simulations),
        ..Limits::default()
    };
    let worker = |pool: &rayon::ThreadPool| -> Result<(), AgentError> {
        let mut agent = AzAgent::<G>::new(plan.config.clone(), plan.seed)?;
        while !failed.load(Ordering::Relaxed) {
            let Some((_, game)) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            // Each search as the first of a game: the book is the same on any thread count.
            agent.new_game();
            let mut found = Book::default();
            pool.install(|| found.add_tree(agent.fresh_tree(game, &limits), plan.min_visits));
            found.mark_searched(*game.position());
            let mut book = shared.lock().unwrap_or_else(|e| e.into_inner());
            book.merge(found);
            searched(&book).inspect_err(|_| failed.store(true, Ordering::Relaxed))?;
        }
        Ok(())
    };
    let result = on_one_core_each(todo.len(), worker);
    *book = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    result.map(|()| todo.len())
}
