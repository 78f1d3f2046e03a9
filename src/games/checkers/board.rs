//! Board geometry: the 32 playable squares as bits of a `u32` and the four diagonal shifts.
//!
//! Square `n` (1..=32, standard numbering) is bit `n - 1`. Rows run from Black's back rank
//! (squares 1-4, row 0) to White's (29-32, row 7). Seen from White's side, square 1 is the
//! top-left playable square and square 29 the bottom-left corner, so in even rows the playable
//! squares sit at columns 1,3,5,7 and in odd rows at 0,2,4,6. "South" is toward White's
//! side (higher numbers), the way Black's men move.

/// A set of squares, one bit per playable square.
pub type Bitboard = u32;

/// A diagonal direction on the fixed board (north = toward squares 1-4).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Dir {
    #[default]
    NorthWest = 0,
    NorthEast = 1,
    SouthWest = 2,
    SouthEast = 3,
}

impl Dir {
    pub const ALL: [Dir; 4] = [
        Dir::NorthWest,
        Dir::NorthEast,
        Dir::SouthWest,
        Dir::SouthEast,
    ];
    pub const NORTH: [Dir; 2] = [Dir::NorthWest, Dir::NorthEast];
    pub const SOUTH: [Dir; 2] = [Dir::SouthWest, Dir::SouthEast];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn opposite(self) -> Dir {
        match self {
            Dir::NorthWest => Dir::SouthEast,
            Dir::NorthEast => Dir::SouthWest,
            Dir::SouthWest => Dir::NorthEast,
            Dir::SouthEast => Dir::NorthWest,
        }
    }
}

const EVEN_ROWS: Bitboard = 0x0F0F_0F0F;
const ODD_ROWS: Bitboard = 0xF0F0_F0F0;
/// Squares in the last column of a row's four (5-square-wide shifts would leave the board).
const RIGHT_EDGE: Bitboard = 0x8888_8888;
const LEFT_EDGE: Bitboard = 0x1111_1111;

/// Squares 1-4: where White's men are crowned.
pub const ROW_1_TO_4: Bitboard = 0x0000_000F;
/// Squares 29-32: where Black's men are crowned.
pub const ROW_29_TO_32: Bitboard = 0xF000_0000;
pub const ALL_SQUARES: Bitboard = 0xFFFF_FFFF;

/// Moves every square of `b` one step in `dir`; squares that would leave the board vanish.
#[inline(always)]
pub const fn shift(b: Bitboard, dir: Dir) -> Bitboard {
    match dir {
        Dir::SouthEast => ((b & EVEN_ROWS & !RIGHT_EDGE) << 5) | ((b & ODD_ROWS) << 4),
        Dir::SouthWest => ((b & EVEN_ROWS) << 4) | ((b & ODD_ROWS & !LEFT_EDGE) << 3),
        Dir::NorthEast => ((b & EVEN_ROWS & !RIGHT_EDGE) >> 3) | ((b & ODD_ROWS) >> 4),
        Dir::NorthWest => ((b & EVEN_ROWS) >> 4) | ((b & ODD_ROWS & !LEFT_EDGE) >> 5),
    }
}

/// The square one step from `sq` (0-based) in `dir`, if it is on the board.
#[inline(always)]
pub const fn neighbour(sq: u8, dir: Dir) -> Option<u8> {
    NEIGHBOURS[dir.index()][sq as usize]
}

/// The landing square of a jump from `sq` in `dir`, if it is on the board.
#[inline(always)]
pub const fn jump_landing(sq: u8, dir: Dir) -> Option<u8> {
    JUMP_LANDINGS[dir.index()][sq as usize]
}

const fn neighbour_table() -> [[Option<u8>; 32]; 4] {
    let mut t = [[None; 32]; 4];
    let mut d = 0;
    while d < 4 {
        let mut sq = 0;
        while sq < 32 {
            let b = shift(1u32 << sq, Dir::ALL[d]);
            if b != 0 {
                t[d][sq] = Some(b.trailing_zeros() as u8);
            }
            sq += 1;
        }
        d += 1;
    }
    t
}

const fn jump_table() -> [[Option<u8>; 32]; 4] {
    let mut t = [[None; 32]; 4];
    let mut d = 0;
    while d < 4 {
        let mut sq = 0;
        while sq < 32 {
            let b = shift(shift(1u32 << sq, Dir::ALL[d]), Dir::ALL[d]);
            if b != 0 {
                t[d][sq] = Some(b.trailing_zeros() as u8);
            }
            sq += 1;
        }
        d += 1;
    }
    t
}

static NEIGHBOURS: [[Option<u8>; 32]; 4] = neighbour_table();
static JUMP_LANDINGS: [[Option<u8>; 32]; 4] = jump_table();

/// Row (0 = squares 1-4) and column (0..8, from the left as White sees the board) of a square.
pub const fn row_col(sq: u8) -> (u8, u8) {
    let row = sq / 4;
    let c = sq % 4;
    let col = if row.is_multiple_of(2) {
        2 * c + 1
    } else {
        2 * c
    };
    (row, col)
}

/// Iterates the squares (0-based) of a bitboard, lowest first.
#[derive(Clone, Copy)]
pub struct Squares(pub Bitboard);

impl Iterator for Squares {
    type Item = u8;
    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            None
        } else {
            let sq = self.0.trailing_zeros() as u8;
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(n: u8) -> u8 {
        n - 1
    }

    #[test]
    fn neighbours_match_the_standard_diagram() {
        // Black moves south: 1 -> 5,6; 4 -> 8 only (single corner side); 5 -> 9 only.
        assert_eq!(neighbour(sq(1), Dir::SouthWest), Some(sq(5)));
        assert_eq!(neighbour(sq(1), Dir::SouthEast), Some(sq(6)));
        assert_eq!(neighbour(sq(4), Dir::SouthWest), Some(sq(8)));
        assert_eq!(neighbour(sq(4), Dir::SouthEast), None);
        assert_eq!(neighbour(sq(5), Dir::SouthWest), None);
        assert_eq!(neighbour(sq(5), Dir::SouthEast), Some(sq(9)));
        assert_eq!(neighbour(sq(11), Dir::SouthWest), Some(sq(15)));
        assert_eq!(neighbour(sq(11), Dir::SouthEast), Some(sq(16)));
        // White moves north: 22 -> 17,18; 21 -> 17 only; 32 -> 27,28.
        assert_eq!(neighbour(sq(22), Dir::NorthWest), Some(sq(17)));
        assert_eq!(neighbour(sq(22), Dir::NorthEast), Some(sq(18)));
        assert_eq!(neighbour(sq(21), Dir::NorthWest), None);
        assert_eq!(neighbour(sq(21), Dir::NorthEast), Some(sq(17)));
        assert_eq!(neighbour(sq(32), Dir::NorthWest), Some(sq(27)));
        assert_eq!(neighbour(sq(32), Dir::NorthEast), Some(sq(28)));
        assert_eq!(neighbour(sq(29), Dir::SouthWest), None);
        assert_eq!(neighbour(sq(2), Dir::NorthEast), None);
    }

    #[test]
    fn jumps_are_two_steps_and_opposites_invert() {
        assert_eq!(jump_landing(sq(15), Dir::SouthEast), Some(sq(24)));
        assert_eq!(jump_landing(sq(22), Dir::NorthEast), Some(sq(15)));
        assert_eq!(jump_landing(sq(22), Dir::NorthWest), Some(sq(13)));
        assert_eq!(jump_landing(sq(4), Dir::SouthWest), Some(sq(11)));
        for s in 0..32u8 {
            for d in Dir::ALL {
                if let Some(n) = neighbour(s, d) {
                    assert_eq!(neighbour(n, d.opposite()), Some(s));
                    let (r0, c0) = row_col(s);
                    let (r1, c1) = row_col(n);
                    assert_eq!(r0.abs_diff(r1), 1);
                    assert_eq!(c0.abs_diff(c1), 1);
                }
            }
        }
    }
}
