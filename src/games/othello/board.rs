//! Square numbering and the bit sets of squares.

/// A set of squares: bit `sq` for square `sq` (a1 = 0, h1 = 7, a2 = 8, h8 = 63).
pub type Bitboard = u64;

/// The square on `file` (0 = a) and `rank` (0 = rank 1).
pub const fn square(file: u8, rank: u8) -> u8 {
    rank * 8 + file
}

/// The file of a square, 0 = a.
pub const fn file_of(sq: u8) -> u8 {
    sq % 8
}

/// The rank of a square, 0 = rank 1.
pub const fn rank_of(sq: u8) -> u8 {
    sq / 8
}

/// The squares of a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Squares(pub Bitboard);

impl Iterator for Squares {
    type Item = u8;

    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let sq = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(sq)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_round_trip() {
        for sq in 0..64 {
            assert_eq!(square(file_of(sq), rank_of(sq)), sq);
        }
        assert_eq!(square(7, 7), 63);
        assert_eq!(
            Squares(0x8000_0000_0000_0101).collect::<Vec<_>>(),
            [0, 8, 63]
        );
    }
}
