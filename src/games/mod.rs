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
pub use record::Game;
pub use rules::{NetInput, Rules};
pub use side::{Color, DrawReason, NotationError, Outcome, WinReason};

/// The games the program plays, as `--game` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GameName {
    /// English checkers (8x8 draughts).
    Checkers,
    /// Othello (Reversi on 8x8, Black first).
    Othello,
}

impl GameName {
    pub fn as_str(self) -> &'static str {
        match self {
            GameName::Checkers => "checkers",
            GameName::Othello => "othello",
        }
    }
}
