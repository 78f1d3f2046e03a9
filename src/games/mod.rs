//! The games the engine can play, each a self-contained rules module.

pub mod othello;
pub mod side;

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
