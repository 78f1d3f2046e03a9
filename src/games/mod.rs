//! The games the engine can play, each a self-contained rules module, and the [`Rules`]
//! trait that the layers above the rules will be generic over.

pub mod checkers;
pub mod othello;
mod pdn;
pub mod record;
pub mod rules;
pub mod side;

pub use checkers::Checkers;
pub use othello::Othello;
pub use pdn::PdnRecord;
pub use record::Game;
pub use rules::{NetInput, Rules};
pub use side::{Color, DrawReason, NotationError, Outcome, WinReason};

crate::names::named_enum! {
    /// The games the program plays, as `--game` names them.
    pub enum GameName {
        /// English checkers (8x8 draughts).
        Checkers = "checkers",
        /// Othello (Reversi on 8x8, Black first).
        Othello = "othello",
    }
}

/// `f` of every item, in order, computed on the current rayon pool, calling
/// `on_item(done, total)` as each item ends: the parallel split of every game's perft.
pub(crate) fn map_items<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    on_item: &(dyn Fn(usize, usize) + Sync),
) -> Vec<R> {
    use rayon::prelude::*;
    let done = std::sync::atomic::AtomicUsize::new(0);
    items
        .par_iter()
        .map(|item| {
            let r = f(item);
            on_item(
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
                items.len(),
            );
            r
        })
        .collect()
}

/// The sum of `count` over `items` by [`map_items`].
pub(crate) fn sum_items<T: Sync>(
    items: &[T],
    count: impl Fn(&T) -> u64 + Sync,
    on_item: &(dyn Fn(usize, usize) + Sync),
) -> u64 {
    map_items(items, count, on_item).into_iter().sum()
}
