//! Checkers' pattern evaluation (`alphabeta:eval=patterns`), in the manner of Othello's
//! ([`super::othello_patterns`]) and of the checkers programs that replaced hand-made terms
//! with tables fitted to data: the board, seen by the side to move, is read through fixed
//! groups of eight squares (each pair of neighbouring rows, and each of the four files of
//! squares that are the same in every row's count), each group's contents (3^8 of them:
//! empty, the mover's piece, the opponent's) indexing a table of weights; beside them a
//! table by square for each kind of piece (the mover's men and kings, the opponent's), which
//! holds the material, and a bias. One table set per stage of the game, by pieces left.
//! The weights were fitted to the values the built-in network gives, then refitted to their
//! own alpha-beta's scores a few plies deep ([`crate::train::checkers_patterns`]): alpha-beta
//! searching them deep sees what the network sees, and a little further, at the speed of a
//! table lookup.

use super::alphabeta::MAN;
use super::pattern_file::{Format, WeightsError};
use crate::games::checkers::{Color, Position};
use std::sync::OnceLock;

/// Stages of the game, by pieces on the board: up to 8, 9-12, 13-16, 17 and more.
pub const STAGES: usize = 4;

/// The stage of a position with `pieces` pieces.
pub fn stage(pieces: u32) -> usize {
    (pieces.saturating_sub(5) as usize / 4).min(STAGES - 1)
}

/// Squares in a group.
const GROUP: usize = 8;
/// Contents of a group: 3^8.
const CONTENTS: usize = 6561;
/// Groups: the seven pairs of neighbouring rows, then the four files of squares `f`,
/// `f + 4`, ..., `f + 28` (a file of the 4-a-row numbering: two board columns).
const ROW_PAIRS: usize = 7;
const FILES: usize = 4;
const GROUPS: usize = ROW_PAIRS + FILES;
/// Where the piece-square table starts in a stage's table: the mover's men, the mover's
/// kings, the opponent's men, the opponent's kings, 32 squares each.
const PIECE_SQUARES: usize = GROUPS * CONTENTS;
/// Weights a stage: the groups, the piece-square tables, the bias.
pub const PER_STAGE: usize = PIECE_SQUARES + 4 * 32 + 1;

/// Each byte's bits as base-3 digits worth 1: bit i counts 3^i.
const TERNARY: [u16; 256] = ternary();

const fn ternary() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        let (mut i, mut power, mut sum) = (0, 1u16, 0u16);
        while i < GROUP {
            if b >> i & 1 == 1 {
                sum += power;
            }
            power *= 3;
            i += 1;
        }
        t[b] = sum;
        b += 1;
    }
    t
}

/// The file `f`'s eight squares (one a row, from row 0) as the bits of a byte.
fn file_byte(b: u32, f: usize) -> usize {
    let mut x = (b >> f) & 0x1111_1111;
    // Every fourth bit packed together: 0x1111_1111 -> 0xff.
    x = (x | x >> 3) & 0x0303_0303;
    x = (x | x >> 6) & 0x000f_000f;
    x = (x | x >> 12) & 0xff;
    x as usize
}

/// The table entries (within a stage's table) that `pos` reads, seen by its side to move:
/// one a group, one a piece, then the bias; and the stage.
pub fn features(pos: &Position, out: &mut Vec<u32>) -> usize {
    // The colour mirror makes the side to move Black, so both colours read the same tables.
    let view = if pos.turn() == Color::Black {
        *pos
    } else {
        pos.mirrored()
    };
    let (me, opp) = (view.pieces(Color::Black), view.pieces(Color::White));
    out.clear();
    for r in 0..ROW_PAIRS {
        let (m, o) = ((me >> (4 * r)) & 0xff, (opp >> (4 * r)) & 0xff);
        let index = TERNARY[m as usize] as usize + 2 * TERNARY[o as usize] as usize;
        out.push((r * CONTENTS + index) as u32);
    }
    for f in 0..FILES {
        let index = TERNARY[file_byte(me, f)] as usize + 2 * TERNARY[file_byte(opp, f)] as usize;
        out.push(((ROW_PAIRS + f) * CONTENTS + index) as u32);
    }
    let kinds = [
        view.men(Color::Black),
        view.kings_of(Color::Black),
        view.men(Color::White),
        view.kings_of(Color::White),
    ];
    for (k, mut bits) in kinds.into_iter().enumerate() {
        while bits != 0 {
            let sq = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            out.push((PIECE_SQUARES + 32 * k + sq) as u32);
        }
    }
    out.push((PER_STAGE - 1) as u32);
    stage((me | opp).count_ones())
}

/// The piece-square entry of the mover's men (`kind` 0), kings (1), the opponent's men (2)
/// and kings (3) on `sq`, within a stage's table.
pub fn piece_square(kind: usize, sq: usize) -> usize {
    PIECE_SQUARES + 32 * kind + sq
}

/// Fitted weights, in the search's units ([`MAN`] is a man).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckersPatterns {
    /// `STAGES` tables of `PER_STAGE` entries.
    pub tables: Vec<Vec<i16>>,
}

/// Checkers' weights file.
fn format() -> Format {
    Format {
        game: "checkers",
        magic: b"CZCP",
        stages: STAGES,
        per_stage: PER_STAGE,
    }
}

impl CheckersPatterns {
    pub fn zero() -> CheckersPatterns {
        CheckersPatterns {
            tables: vec![vec![0; PER_STAGE]; STAGES],
        }
    }

    /// The file ([`Format::to_bytes`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        format().to_bytes(&self.tables)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<CheckersPatterns, WeightsError> {
        Ok(CheckersPatterns {
            tables: format().from_bytes(bytes)?,
        })
    }

    /// The weights fitted and shipped with the program (data/checkers-patterns.bin).
    pub fn shipped() -> &'static CheckersPatterns {
        static SHIPPED: OnceLock<CheckersPatterns> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            CheckersPatterns::from_bytes(include_bytes!("../../data/checkers-patterns.bin"))
                .expect("the shipped pattern weights match this build's layout")
        })
    }

    /// The score of `pos` for its side to move.
    pub fn score(&self, pos: &Position, scratch: &mut Vec<u32>) -> i32 {
        let t = &self.tables[features(pos, scratch)];
        let sum: i32 = scratch.iter().map(|&i| t[i as usize] as i32).sum();
        // Well inside a win's score, as the classic evaluation's terms are.
        sum.clamp(-30 * MAN, 30 * MAN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::{legal_moves, parse_fen};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn files_pack_every_fourth_bit() {
        // Squares 1, 5 and 29 are file 1's rows 0, 1 and 7.
        let b = 1 << 1 | 1 << 5 | 1 << 29 | 1 << 2;
        assert_eq!(file_byte(b, 1), 0b1000_0011);
        assert_eq!(file_byte(b, 2), 0b0000_0001);
        assert_eq!(file_byte(u32::MAX, 3), 0xff);
        assert_eq!(TERNARY[0b101], 1 + 9);
        assert_eq!(TERNARY[0xff] as usize, (CONTENTS - 1) / 2);
        assert_eq!(stage(24), 3);
        assert_eq!(stage(17), 3);
        assert_eq!(stage(16), 2);
        assert_eq!(stage(8), 0);
        assert_eq!(stage(2), 0);
    }

    /// Every group reads each of its squares as its own base-3 digit: each contents of a
    /// group has its own entry, and the mover's and the opponent's pieces read differently.
    #[test]
    fn each_group_reads_its_squares_as_digits() {
        let mut seen = std::collections::HashSet::new();
        let mut rng = StdRng::seed_from_u64(2);
        let mut out = Vec::new();
        let mut pos = Position::start();
        for _ in 0..2000 {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                pos = Position::start();
                continue;
            }
            features(&pos, &mut out);
            assert_eq!(out.len(), GROUPS + pos.occupied().count_ones() as usize + 1);
            for (g, &i) in out[..GROUPS].iter().enumerate() {
                let i = i as usize;
                assert!(
                    i >= g * CONTENTS && i < (g + 1) * CONTENTS,
                    "group {g}: {i}"
                );
                seen.insert(i);
            }
            pos = pos.apply(&moves[rng.random_range(0..moves.len())]);
        }
        // The start position's first row pair: the mover's men on all eight squares.
        features(&Position::start(), &mut out);
        assert_eq!(out[0] as usize, (CONTENTS - 1) / 2);
        assert!(seen.len() > 1000, "{}", seen.len());
    }

    /// The same situation seen by the other side scores the same: the colour mirror.
    #[test]
    fn the_score_is_the_same_for_either_colour() {
        let mut rng = StdRng::seed_from_u64(3);
        let mut w = CheckersPatterns::zero();
        for t in &mut w.tables {
            for x in t.iter_mut() {
                *x = rng.random_range(-50..=50);
            }
        }
        let mut scratch = Vec::new();
        let mut pos = Position::start();
        for _ in 0..500 {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                pos = Position::start();
                continue;
            }
            assert_eq!(
                w.score(&pos, &mut scratch),
                w.score(&pos.mirrored(), &mut scratch),
                "{pos:?}"
            );
            pos = pos.apply(&moves[rng.random_range(0..moves.len())]);
        }
        // A piece-square weight moves the score of a position with that piece on it.
        let pos = parse_fen("B:W29:B5").unwrap();
        let before = w.score(&pos, &mut scratch);
        w.tables[0][piece_square(0, 4)] += 7;
        assert_eq!(w.score(&pos, &mut scratch), before + 7);
    }

    #[test]
    fn weights_survive_their_file_and_a_damaged_file_is_refused() {
        let mut w = CheckersPatterns::zero();
        w.tables[1][7] = -12;
        w.tables[3][PER_STAGE - 1] = 300;
        let bytes = w.to_bytes();
        assert_eq!(CheckersPatterns::from_bytes(&bytes).unwrap(), w);
        assert!(CheckersPatterns::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let othello = crate::agents::othello_patterns::PatternWeights::zero().to_bytes();
        let e = CheckersPatterns::from_bytes(&othello)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a file of checkers pattern weights"), "{e}");
        CheckersPatterns::shipped();
    }
}
