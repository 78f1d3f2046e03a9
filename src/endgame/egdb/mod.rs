//! Checkers' endgame databases: the value (win, loss or draw for the side to move) and the
//! distance to conversion of every position of up to N pieces, built by retrograde analysis
//! (solve.rs) one slice of material at a time (build.rs), stored compressed (file.rs) and
//! probed through memory maps with a small cache of decompressed blocks (probe.rs).
//!
//! The values are those of checkers without the 40-move rule: a position is won when the
//! winner can force the win however long it takes, and drawn when neither side can force a
//! win (play that goes round forever is a draw, as repetition makes it). The distance, in
//! plies, is how long the winner needs (or the loser can hold out) until the next conversion:
//! a capture or a man move, the moves that restart the 40-move count.

mod build;
mod file;
mod index;
mod probe;
mod solve;

pub use build::{BuildOptions, SliceReport, build, indexed_positions, verify};
pub use file::Summary;
pub use index::{Material, random_position};
pub use probe::{Endgames, Probe, ScoredMove};

/// A position's game-theoretic value for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win = 0,
    Loss = 1,
    Draw = 2,
}

impl Value {
    /// Its code in tables and files (0 is "no position").
    pub fn code(self) -> u8 {
        self as u8 + 1
    }

    pub fn from_code(code: u8) -> Option<Value> {
        match code {
            1 => Some(Value::Win),
            2 => Some(Value::Loss),
            3 => Some(Value::Draw),
            _ => None,
        }
    }

    /// The value for the other side.
    pub fn flipped(self) -> Value {
        match self {
            Value::Win => Value::Loss,
            Value::Loss => Value::Win,
            Value::Draw => Value::Draw,
        }
    }
}

/// The most pieces `egdb build` builds for (the index reaches further; memory and time do not).
pub const MAX_BUILD_PIECES: u32 = 8;

#[derive(Debug, thiserror::Error)]
pub enum EgdbError {
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error("{0} is not an endgame database file (its first bytes are not CZ-EGDB)")]
    NotDatabase(String),
    #[error("{0} is in database format {1}; this program reads format {FORMAT}", FORMAT = file::FORMAT)]
    Format(String, u32),
    #[error("{0} was built for other rules ({1:?}); this program's are {RULES:?}", RULES = file::RULES)]
    Rules(String, String),
    #[error("{0} is damaged: {1}; build it again with egdb build")]
    Damaged(String, String),
    #[error("{0} is not an endgame database folder: {1}")]
    NotFolder(String, String),
    #[error("{0} lacks the slice {1}; build the folder with egdb build {2} --out {0}")]
    Missing(String, String, String),
    #[error("--pieces must be 1 to {MAX_BUILD_PIECES}, not {0}")]
    Pieces(u32),
    #[error(
        "--kings-only must be more than --pieces ({1}) and at most {MAX_BUILD_PIECES}, not {0}"
    )]
    KingsOnly(u32, u32),
}
