//! A position: both sides' discs and whose turn it is.

use super::board::{Bitboard, Squares, square};
use super::zobrist;

/// In Othello more discs wins a finished game, and equal counts draw.
pub use crate::games::side::{Color, Outcome};

/// A position: the discs of the side to move, the opponent's discs, and the side to move
/// (17 bytes, cheap to copy). Stored relative to the mover because every rule is symmetric
/// in the two sides, so move generation needs no branch on colour.
/// Invariant (kept by every constructor): `mover & opponent == 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Position {
    mover: Bitboard,
    opponent: Bitboard,
    turn: Color,
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// The standard start: White on d4 and e5, Black on d5 and e4, Black to move.
    pub const fn start() -> Position {
        let white = (1 << square(3, 3)) | (1 << square(4, 4));
        let black = (1 << square(3, 4)) | (1 << square(4, 3));
        Position {
            mover: black,
            opponent: white,
            turn: Color::Black,
        }
    }

    /// A position from each colour's discs; `None` when a square is given to both.
    pub fn from_discs(black: Bitboard, white: Bitboard, turn: Color) -> Option<Position> {
        if black & white != 0 {
            return None;
        }
        let (mover, opponent) = match turn {
            Color::Black => (black, white),
            Color::White => (white, black),
        };
        Some(Position {
            mover,
            opponent,
            turn,
        })
    }

    /// Internal constructor from the mover's view; callers keep the disjointness invariant.
    pub(super) const fn from_mover(mover: Bitboard, opponent: Bitboard, turn: Color) -> Self {
        Position {
            mover,
            opponent,
            turn,
        }
    }

    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// The discs of the side to move.
    pub const fn mover(&self) -> Bitboard {
        self.mover
    }

    /// The discs of the side not to move.
    pub const fn opponent(&self) -> Bitboard {
        self.opponent
    }

    /// One colour's discs. (Compared as numbers: `==` on enums is not yet allowed in a
    /// const fn.)
    pub const fn discs(&self, color: Color) -> Bitboard {
        if color as u8 == self.turn as u8 {
            self.mover
        } else {
            self.opponent
        }
    }

    /// How many discs `color` has.
    pub const fn count(&self, color: Color) -> u32 {
        self.discs(color).count_ones()
    }

    pub const fn occupied(&self) -> Bitboard {
        self.mover | self.opponent
    }

    pub const fn empty(&self) -> Bitboard {
        !self.occupied()
    }

    /// The colour of the disc on `sq`, if any.
    pub fn disc_at(&self, sq: u8) -> Option<Color> {
        let bit = 1u64 << sq;
        if self.mover & bit != 0 {
            Some(self.turn)
        } else if self.opponent & bit != 0 {
            Some(self.turn.opposite())
        } else {
            None
        }
    }

    /// Zobrist hash of the discs by colour and the side to move, computed from scratch
    /// (at most 64 discs), with keys fixed at compile time.
    pub fn hash(&self) -> u64 {
        let mut h = match self.turn {
            Color::White => zobrist::WHITE_TO_MOVE,
            Color::Black => 0,
        };
        for color in [Color::Black, Color::White] {
            for sq in Squares(self.discs(color)) {
                h ^= zobrist::key(color, sq);
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position() {
        let p = Position::start();
        assert_eq!(p.turn(), Color::Black);
        assert_eq!(p.discs(Color::Black), (1 << 35) | (1 << 28), "d5, e4");
        assert_eq!(p.discs(Color::White), (1 << 27) | (1 << 36), "d4, e5");
        assert_eq!((p.count(Color::Black), p.count(Color::White)), (2, 2));
        assert_eq!(p.disc_at(27), Some(Color::White));
        assert_eq!(p.disc_at(0), None);
        assert_eq!(p.empty().count_ones(), 60);
    }

    #[test]
    fn from_discs_refuses_overlap_and_hash_sees_the_side() {
        assert!(Position::from_discs(1, 1, Color::Black).is_none());
        let b = Position::from_discs(1, 2, Color::Black).unwrap();
        let w = Position::from_discs(1, 2, Color::White).unwrap();
        assert_ne!(b, w);
        assert_ne!(b.hash(), w.hash());
        assert_eq!(b.discs(Color::Black), w.discs(Color::Black));
        let swapped = Position::from_discs(2, 1, Color::Black).unwrap();
        assert_ne!(b.hash(), swapped.hash());
    }
}
