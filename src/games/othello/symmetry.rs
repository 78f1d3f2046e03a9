//! The 8 symmetries of the square board (the dihedral group), as bit tricks on whole
//! bitboards: mirror images and rotations map legal moves to legal moves, so a learner can
//! augment its data or share a cache entry between equivalent positions.
//!
//! In (file, rank) coordinates, 0-based from a1: the vertical flip swaps ranks (r -> 7-r),
//! the horizontal flip swaps files, the diagonal flip transposes along a1-h8 and the
//! anti-diagonal flip along a8-h1. The start position is unchanged by the identity, the
//! half turn and the two diagonal flips.

use super::board::{Bitboard, file_of, rank_of, square};
use super::moves::Move;
use super::position::Position;

/// Rank r to rank 7-r: the ranks are the bytes.
pub const fn flip_vertical(b: Bitboard) -> Bitboard {
    b.swap_bytes()
}

/// File f to file 7-f: reverse the bits within each byte, swapping halves, pairs, bits.
pub const fn flip_horizontal(b: Bitboard) -> Bitboard {
    const K1: u64 = 0x5555_5555_5555_5555;
    const K2: u64 = 0x3333_3333_3333_3333;
    const K4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    let b = ((b >> 1) & K1) | ((b & K1) << 1);
    let b = ((b >> 2) & K2) | ((b & K2) << 2);
    ((b >> 4) & K4) | ((b & K4) << 4)
}

/// (f, r) to (r, f), the transpose along a1-h8: swap 4x4 blocks, then 2x2, then single
/// squares, each step exchanging the bits on either side of the diagonal with a delta swap.
pub const fn flip_diagonal(b: Bitboard) -> Bitboard {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0F0F_0F0F_0000_0000;
    let mut b = b;
    let t = K4 & (b ^ (b << 28));
    b ^= t ^ (t >> 28);
    let t = K2 & (b ^ (b << 14));
    b ^= t ^ (t >> 14);
    let t = K1 & (b ^ (b << 7));
    b ^= t ^ (t >> 7);
    b
}

/// (f, r) to (7-r, 7-f), the transpose along a8-h1: the half turn of the a1-h8 transpose.
pub const fn flip_anti_diagonal(b: Bitboard) -> Bitboard {
    flip_diagonal(b).reverse_bits()
}

/// One of the 8 symmetries; `ALL` lists them, the identity first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    Identity,
    /// (f, r) to (r, 7-f): the transpose, then the vertical flip.
    Rotate90,
    /// (f, r) to (7-f, 7-r): reversing all 64 bits.
    Rotate180,
    /// (f, r) to (7-r, f): the inverse of `Rotate90`.
    Rotate270,
    FlipVertical,
    FlipHorizontal,
    FlipDiagonal,
    FlipAntiDiagonal,
}

impl Symmetry {
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rotate90,
        Symmetry::Rotate180,
        Symmetry::Rotate270,
        Symmetry::FlipVertical,
        Symmetry::FlipHorizontal,
        Symmetry::FlipDiagonal,
        Symmetry::FlipAntiDiagonal,
    ];

    /// The symmetry that undoes this one.
    pub const fn inverse(self) -> Symmetry {
        match self {
            Symmetry::Rotate90 => Symmetry::Rotate270,
            Symmetry::Rotate270 => Symmetry::Rotate90,
            other => other,
        }
    }

    /// The image of a set of squares.
    pub const fn bits(self, b: Bitboard) -> Bitboard {
        match self {
            Symmetry::Identity => b,
            Symmetry::Rotate90 => flip_vertical(flip_diagonal(b)),
            Symmetry::Rotate180 => b.reverse_bits(),
            Symmetry::Rotate270 => flip_diagonal(flip_vertical(b)),
            Symmetry::FlipVertical => flip_vertical(b),
            Symmetry::FlipHorizontal => flip_horizontal(b),
            Symmetry::FlipDiagonal => flip_diagonal(b),
            Symmetry::FlipAntiDiagonal => flip_anti_diagonal(b),
        }
    }

    /// The image of one square, by its coordinates.
    pub const fn square(self, sq: u8) -> u8 {
        let (f, r) = (file_of(sq), rank_of(sq));
        let (f, r) = match self {
            Symmetry::Identity => (f, r),
            Symmetry::Rotate90 => (r, 7 - f),
            Symmetry::Rotate180 => (7 - f, 7 - r),
            Symmetry::Rotate270 => (7 - r, f),
            Symmetry::FlipVertical => (f, 7 - r),
            Symmetry::FlipHorizontal => (7 - f, r),
            Symmetry::FlipDiagonal => (r, f),
            Symmetry::FlipAntiDiagonal => (7 - r, 7 - f),
        };
        square(f, r)
    }

    /// The image of a move; a pass stays a pass.
    pub const fn apply_move(self, mv: Move) -> Move {
        match mv {
            Move::Play(sq) => Move::Play(self.square(sq)),
            Move::Pass => Move::Pass,
        }
    }

    /// The image of a position: both sides' discs moved, the side to move kept.
    pub const fn position(self, pos: &Position) -> Position {
        Position::from_mover(
            self.bits(pos.mover()),
            self.bits(pos.opponent()),
            pos.turn(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_tricks_agree_with_coordinates() {
        for s in Symmetry::ALL {
            for sq in 0..64 {
                assert_eq!(s.bits(1 << sq), 1 << s.square(sq), "{s:?} on {sq}");
                assert_eq!(s.inverse().square(s.square(sq)), sq, "{s:?} inverse");
            }
        }
    }

    #[test]
    fn start_is_symmetric_under_four() {
        let start = Position::start();
        let fixed: Vec<Symmetry> = Symmetry::ALL
            .into_iter()
            .filter(|s| s.position(&start) == start)
            .collect();
        assert_eq!(
            fixed,
            [
                Symmetry::Identity,
                Symmetry::Rotate180,
                Symmetry::FlipDiagonal,
                Symmetry::FlipAntiDiagonal
            ]
        );
    }
}
