//! A position: who stands where, and whose turn it is.

use super::board::{Bitboard, Dir, ROW_1_TO_4, ROW_29_TO_32, Squares};
use super::moves::Move;
use super::zobrist;

/// The two sides; Black moves first and starts on squares 1-12.
pub use crate::games::side::Color;

/// Checkers' directions and rows of a side (an inherent impl beside the game's rules).
impl Color {
    /// The directions this side's men move in.
    pub const fn forward(self) -> [Dir; 2] {
        match self {
            Color::Black => Dir::SOUTH,
            Color::White => Dir::NORTH,
        }
    }

    /// The row where this side's men are crowned.
    pub const fn crown_row(self) -> Bitboard {
        match self {
            Color::Black => ROW_29_TO_32,
            Color::White => ROW_1_TO_4,
        }
    }
}

/// What stands on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub king: bool,
}

/// A position: three bitboards and the side to move (13 bytes, cheap to copy).
/// Invariants (kept by every constructor): `black & white == 0`, `kings ⊆ black | white`.
/// (Serialised only inside checksummed files this program wrote.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Position {
    black: Bitboard,
    white: Bitboard,
    kings: Bitboard,
    turn: Color,
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// The initial position: Black on 1-12, White on 21-32, Black to move.
    pub const fn start() -> Position {
        Position {
            black: 0x0000_0FFF,
            white: 0xFFF0_0000,
            kings: 0,
            turn: Color::Black,
        }
    }

    /// Builds a position from piece sets; `None` if a square is claimed twice or a king
    /// square holds no piece.
    pub fn from_bitboards(
        black: Bitboard,
        white: Bitboard,
        kings: Bitboard,
        turn: Color,
    ) -> Option<Position> {
        if black & white != 0 || kings & !(black | white) != 0 {
            return None;
        }
        Some(Position {
            black,
            white,
            kings,
            turn,
        })
    }

    #[inline(always)]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    #[inline(always)]
    pub const fn pieces(&self, color: Color) -> Bitboard {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    #[inline(always)]
    pub const fn kings(&self) -> Bitboard {
        self.kings
    }

    #[inline(always)]
    pub const fn men(&self, color: Color) -> Bitboard {
        self.pieces(color) & !self.kings
    }

    #[inline(always)]
    pub const fn kings_of(&self, color: Color) -> Bitboard {
        self.pieces(color) & self.kings
    }

    #[inline(always)]
    pub const fn occupied(&self) -> Bitboard {
        self.black | self.white
    }

    #[inline(always)]
    pub const fn empty(&self) -> Bitboard {
        !(self.black | self.white)
    }

    /// The piece on a 0-based square, if any.
    pub fn piece_at(&self, sq: u8) -> Option<Piece> {
        let bit = 1u32 << sq;
        let king = self.kings & bit != 0;
        if self.black & bit != 0 {
            Some(Piece {
                color: Color::Black,
                king,
            })
        } else if self.white & bit != 0 {
            Some(Piece {
                color: Color::White,
                king,
            })
        } else {
            None
        }
    }

    /// The colour mirror: colours swapped and the board turned half a turn (square s becomes
    /// 33 - s), the other side to move. Every rule is symmetric under it, so a mirrored
    /// position is the same situation seen by the other side.
    pub fn mirrored(&self) -> Position {
        Position {
            black: self.white.reverse_bits(),
            white: self.black.reverse_bits(),
            kings: self.kings.reverse_bits(),
            turn: self.turn.opposite(),
        }
    }

    /// The same pieces with the other side to move.
    pub const fn with_turn(self, turn: Color) -> Position {
        Position { turn, ..self }
    }

    /// The position after `mv`, which must be legal here (moves come from the generator or
    /// the notation parser, which only produce legal ones).
    #[inline(always)]
    pub fn apply(&self, mv: &Move) -> Position {
        let from = 1u32 << mv.from();
        let to = 1u32 << mv.to();
        let captured = mv.captured();
        let mut next = *self;
        // Clear then set (not xor): a king's multi-jump can end on the square it started from.
        match self.turn {
            Color::Black => {
                next.black = (next.black & !from) | to;
                next.white &= !captured;
            }
            Color::White => {
                next.white = (next.white & !from) | to;
                next.black &= !captured;
            }
        }
        next.kings &= !captured;
        if self.kings & from != 0 {
            next.kings = (next.kings & !from) | to;
        } else if to & self.turn.crown_row() != 0 {
            next.kings |= to;
        }
        next.turn = self.turn.opposite();
        next
    }

    /// True if `mv` moves a man or captures: no earlier position can recur after it, and the
    /// 40-move count starts again.
    #[inline]
    pub fn is_irreversible(&self, mv: &Move) -> bool {
        mv.is_capture() || self.kings & (1u32 << mv.from()) == 0
    }

    /// Zobrist hash of the position (pieces and side to move).
    pub fn hash(&self) -> u64 {
        let mut h = if self.turn == Color::White {
            zobrist::WHITE_TO_MOVE
        } else {
            0
        };
        for (color, set) in [(Color::Black, self.black), (Color::White, self.white)] {
            for sq in Squares(set & !self.kings) {
                h ^= zobrist::key(color, false, sq);
            }
            for sq in Squares(set & self.kings) {
                h ^= zobrist::key(color, true, sq);
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::{Color, Position};
    use crate::games::checkers::{legal_moves, parse_fen};

    #[test]
    fn mirroring_swaps_colours_and_turns_the_board() {
        let p = crate::games::checkers::parse_fen("B:WK10,22:B1,K14").unwrap();
        assert_eq!(
            crate::games::checkers::to_fen(&p.mirrored()),
            "W:WK19,32:B11,K23"
        );
        assert_eq!(p.mirrored().mirrored(), p);
        assert_eq!(
            Position::start().mirrored(),
            Position::start().with_turn(Color::White)
        );
    }

    #[test]
    fn a_king_capturing_round_to_its_own_square_stays_on_the_board() {
        // 10x17x26x19x10 takes four men and ends where the king started.
        let pos = parse_fen("W:WK10:B14,15,22,23").unwrap();
        let round = legal_moves(&pos).into_iter().find(|m| m.path().len() == 4);
        let after = pos.apply(&round.unwrap());
        assert_eq!(after, parse_fen("B:WK10:B").unwrap());
    }
}
