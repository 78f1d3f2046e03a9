//! What every two-player game here shares: the two sides, how a game ends, the error of
//! move and position text, and fixed random keys for hashing positions.

/// The two sides. Black moves first in both games.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub const fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    pub const fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "Black",
            Color::White => "White",
        }
    }
}

impl std::fmt::Display for Color {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a game ended by its rules: a winner, or a draw. (Checkers' game record has its own
/// `game::Outcome`, which adds the reason, e.g. repetition or adjudication.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Color),
    Draw,
}

/// A one-line explanation of why some text is not a valid move or position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotationError(pub String);

const fn splitmix64(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (next, z ^ (z >> 31))
}

/// `N` Zobrist keys and then one for White to move, drawn by splitmix64 from `seed` at
/// compile time, so hashes are the same in every run and build; each game has its own seed.
pub const fn zobrist_keys<const N: usize>(seed: u64) -> ([u64; N], u64) {
    let mut keys = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (s, k) = splitmix64(state);
        state = s;
        keys[i] = k;
        i += 1;
    }
    let (_, side) = splitmix64(state);
    (keys, side)
}
