//! The games the engine can play, each a self-contained rules module, and the [`Rules`]
//! trait that the layers above the rules are generic over.
//!
//! # Adding a game
//!
//! A game is a marker type with its own folder here (as `checkers/`, `othello/`). Each layer
//! asks of a game what it needs through a trait of its own, implemented next to that layer's
//! code for the other games; the compiler lists what is missing. A new game:
//!
//! - is a variant of [`GameName`] and an arm of each form of [`on_game!`] (below): the one
//!   place a name chosen at run time becomes the game's type;
//! - implements [`Rules`] (rules.rs): positions, moves, states and actions, notation, the
//!   network's encoding;
//! - `EndgameGame` (src/endgame/mod.rs): its default perfect-endgame oracle, if any;
//! - `NetGame` (src/net/model.rs): its policy head, model-file kinds, built-in network;
//! - `SearchGame` (src/agents/alphabeta.rs, implemented beside the game's evaluation,
//!   e.g. src/agents/othello_eval.rs): alpha-beta's move buffers, quiescence and ordering;
//! - `AgentGame` (src/agents/spec.rs): its own agent kinds and how they are built;
//! - `ArenaGame` (src/arena/openings.rs): the openings a match starts from;
//! - `PlayGame` (src/play.rs): its board in the terminal and move help;
//! - `AzGame` (src/train/alphazero/config.rs): its encoding from a run's keys, run-state
//!   kinds;
//! - `TdGame` (src/train/td.rs): the value network TD(lambda) trains;
//! - `Board` (src/gui/boards.rs): what the browser page draws, and a variant of the
//!   browser's `Table` (src/gui/sessions.rs).

pub mod checkers;
pub mod othello;
mod pdn;
pub mod record;
pub mod rules;
pub mod side;
pub mod variations;

pub use checkers::Checkers;
pub use othello::Othello;
pub use pdn::PdnRecord;
pub use record::Game;
pub use rules::{NetInput, Rules, start_symmetries};
pub use side::{Color, DrawReason, NotationError, Outcome, WinReason};
pub use variations::{GAME, LineId, Node, SideLine, Variations};

crate::names::named_enum! {
    /// The games the program plays, as `--game` names them.
    pub enum GameName {
        /// English checkers (8x8 draughts).
        Checkers = "checkers",
        /// Othello (Reversi on 8x8, Black first).
        Othello = "othello",
    }
}

/// Runs generic code for the game chosen at run time: the one place that turns a
/// [`GameName`] into a game's type, so a new game is added here and nowhere else.
///
/// - `on_game!(name, G => body)`: `body` with the type `G` bound to the game `name` names
///   (`on_game!(game, G => play::<G>(args))`).
/// - `on_game!(name, G, Kind(new) => body)`: as above, with `new` also bound to the
///   constructor of `Kind`'s variant for the game, for an enum with one variant per game, each
///   named as [`GameName`]'s and holding a value of that game (the browser's games).
/// - `on_game!(Kind(v) in value => body)`: `body` with `v` bound to what such an enum's value
///   holds, whichever game it is.
#[macro_export]
macro_rules! on_game {
    ($game:expr, $g:ident => $body:expr) => {
        match $game {
            $crate::games::GameName::Checkers => {
                type $g = $crate::games::Checkers;
                $body
            }
            $crate::games::GameName::Othello => {
                type $g = $crate::games::Othello;
                $body
            }
        }
    };
    ($game:expr, $g:ident, $kind:ident($new:ident) => $body:expr) => {
        match $game {
            $crate::games::GameName::Checkers => {
                type $g = $crate::games::Checkers;
                let $new = $kind::Checkers;
                $body
            }
            $crate::games::GameName::Othello => {
                type $g = $crate::games::Othello;
                let $new = $kind::Othello;
                $body
            }
        }
    };
    ($kind:ident($v:ident) in $value:expr => $body:expr) => {
        match $value {
            $kind::Checkers($v) => $body,
            $kind::Othello($v) => $body,
        }
    };
}
pub use on_game;

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
