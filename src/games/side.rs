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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// The same position with the same side to move occurred a third time.
    Repetition,
    /// Checkers' 40-move rule: 40 moves by each side without a man moving or a piece being
    /// captured.
    FortyMoveRule,
    /// Othello: the game ended with as many discs of each colour.
    EqualDiscs,
    /// A game driver's length cap ended the game level (see `Rules::adjudicate`).
    Adjudication,
    /// The players agreed to a draw (a draw offer accepted).
    Agreement,
    /// Perfect endgames (checkers' databases) know the position is drawn.
    Proven,
    /// A side's time ran out where the other side could not win by any series of moves.
    TimeNoWin,
    /// A game record says so (a loaded game whose end the board does not show).
    Recorded,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// Checkers: the loser had no legal move on its turn.
    NoMoves,
    /// Othello: neither side could move and the winner had more discs.
    MoreDiscs,
    /// A game driver's length cap ended the game and the winner was ahead (see
    /// `Rules::adjudicate`).
    Adjudication,
    /// The loser resigned.
    Resignation,
    /// The loser's time ran out.
    Time,
    /// Perfect endgames (checkers' databases) know the position is won.
    Proven,
    /// A game record says so (a loaded game whose end the board does not show).
    Recorded,
}

/// How a game ended, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Color, WinReason),
    Draw(DrawReason),
}

impl Outcome {
    /// The PDN result tag ("1-0" White won, "0-1" Black won, "1/2-1/2").
    pub fn pdn_result(&self) -> &'static str {
        match self {
            Outcome::Win(Color::White, _) => "1-0",
            Outcome::Win(Color::Black, _) => "0-1",
            Outcome::Draw(_) => "1/2-1/2",
        }
    }

    /// Score for `color`: 1 win, 0.5 draw, 0 loss.
    pub fn score_for(&self, color: Color) -> f64 {
        match self {
            Outcome::Win(c, _) if *c == color => 1.0,
            Outcome::Win(..) => 0.0,
            Outcome::Draw(_) => 0.5,
        }
    }

    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Win(c, _) => Some(*c),
            Outcome::Draw(_) => None,
        }
    }

    /// The result as a value for `color`: 1 win, 0 draw, -1 loss.
    pub fn value_for(&self, color: Color) -> f32 {
        match self.winner() {
            None => 0.0,
            Some(c) if c == color => 1.0,
            Some(_) => -1.0,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Win(c, WinReason::NoMoves) => {
                write!(f, "{c} wins: {} has no legal move", c.opposite())
            }
            Outcome::Win(c, WinReason::MoreDiscs) => write!(f, "{c} wins on discs"),
            Outcome::Win(c, WinReason::Adjudication) => {
                write!(f, "{c} wins on adjudication (ahead at the length cap)")
            }
            Outcome::Win(c, WinReason::Resignation) => {
                write!(f, "{c} wins: {} resigned", c.opposite())
            }
            Outcome::Win(c, WinReason::Time) => {
                write!(f, "{c} wins on time: {}'s clock ran out", c.opposite())
            }
            Outcome::Draw(DrawReason::TimeNoWin) => {
                write!(
                    f,
                    "draw: a clock ran out, but the other side could not have won"
                )
            }
            Outcome::Draw(DrawReason::Repetition) => write!(f, "draw by threefold repetition"),
            Outcome::Draw(DrawReason::FortyMoveRule) => write!(f, "draw by the 40-move rule"),
            Outcome::Draw(DrawReason::EqualDiscs) => write!(f, "draw: as many discs each"),
            Outcome::Draw(DrawReason::Adjudication) => {
                write!(f, "draw on adjudication (level at the length cap)")
            }
            Outcome::Draw(DrawReason::Agreement) => write!(f, "draw by agreement"),
            Outcome::Win(c, WinReason::Proven) => {
                write!(f, "{c} wins: the endgame databases prove it")
            }
            Outcome::Draw(DrawReason::Proven) => {
                write!(f, "draw: the endgame databases prove it")
            }
            Outcome::Win(c, WinReason::Recorded) => write!(f, "{c} wins, as the record says"),
            Outcome::Draw(DrawReason::Recorded) => write!(f, "draw, as the record says"),
        }
    }
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
