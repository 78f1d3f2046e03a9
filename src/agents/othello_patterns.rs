//! Othello's pattern evaluation (`alphabeta:eval=patterns`), as strong Othello programs
//! evaluate since Buro's Logistello: the board is read through fixed groups of squares (an
//! edge with its two X-squares, the corner 3x3 and 2x5 blocks, the rows and the diagonals),
//! each group's contents (3^n of them: empty, the mover's, the opponent's) indexing a table
//! of weights fitted to games ([`crate::train::othello_patterns`]), one table set per stage
//! of the game (by empty squares), plus the mobility difference and a bias.
//!
//! Every group is read in each of its distinct images under the board's 8 symmetries, and a
//! group that a symmetry maps onto itself (an edge mirrored) reads its contents in one
//! canonical order, so the score is the same for a position and each of its images.

use super::alphabeta::MAN;
use super::pattern_file::{Format, WeightsError};
use crate::games::othello::Position;
use crate::games::othello::board::{Bitboard, square};
use crate::games::othello::moves::moves_mask;
use crate::games::othello::symmetry::Symmetry;
use std::sync::OnceLock;

/// A group of squares by (file, rank), read in this order, in its base orientation.
struct Shape {
    name: &'static str,
    cells: &'static [(u8, u8)],
}

macro_rules! cells {
    ($($f:expr, $r:expr);+ $(;)?) => { &[$(($f, $r)),+] };
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "edge and X-squares",
        cells: cells![0,0; 1,0; 2,0; 3,0; 4,0; 5,0; 6,0; 7,0; 1,1; 6,1],
    },
    Shape {
        name: "corner 3x3",
        cells: cells![0,0; 1,0; 2,0; 0,1; 1,1; 2,1; 0,2; 1,2; 2,2],
    },
    Shape {
        name: "corner 2x5",
        cells: cells![0,0; 1,0; 2,0; 3,0; 4,0; 0,1; 1,1; 2,1; 3,1; 4,1],
    },
    Shape {
        name: "second row",
        cells: cells![0,1; 1,1; 2,1; 3,1; 4,1; 5,1; 6,1; 7,1],
    },
    Shape {
        name: "third row",
        cells: cells![0,2; 1,2; 2,2; 3,2; 4,2; 5,2; 6,2; 7,2],
    },
    Shape {
        name: "fourth row",
        cells: cells![0,3; 1,3; 2,3; 3,3; 4,3; 5,3; 6,3; 7,3],
    },
    Shape {
        name: "diagonal of 8",
        cells: cells![0,0; 1,1; 2,2; 3,3; 4,4; 5,5; 6,6; 7,7],
    },
    Shape {
        name: "diagonal of 7",
        cells: cells![0,1; 1,2; 2,3; 3,4; 4,5; 5,6; 6,7],
    },
    Shape {
        name: "diagonal of 6",
        cells: cells![0,2; 1,3; 2,4; 3,5; 4,6; 5,7],
    },
    Shape {
        name: "diagonal of 5",
        cells: cells![0,3; 1,4; 2,5; 3,6; 4,7],
    },
    Shape {
        name: "diagonal of 4",
        cells: cells![0,4; 1,5; 2,6; 3,7],
    },
];

/// Stages of the game, by empty squares: 1-10, 11-20, ..., 51-60.
pub const STAGES: usize = 6;

/// The stage of a position with `empties` empty squares.
pub fn stage(empties: u32) -> usize {
    (empties.saturating_sub(1) as usize / 10).min(STAGES - 1)
}

/// One image of a shape on the board: its squares in reading order, and where its weights
/// start in a stage's table.
struct Instance {
    squares: Vec<u8>,
    shape: usize,
}

/// The shapes' images and their canonical indices, built once.
pub struct Layout {
    instances: Vec<Instance>,
    /// Per shape: each contents' index to its canonical one (the least among the indices
    /// of its readings under the symmetries that map the shape onto itself).
    canonical: Vec<Vec<u32>>,
    /// Per shape: where its weights start in a stage's table.
    offsets: Vec<usize>,
    /// Weights a stage: every shape's table, then mobility, then the bias.
    per_stage: usize,
}

/// 3^n.
fn states(n: usize) -> usize {
    3usize.pow(n as u32)
}

impl Layout {
    fn build() -> Layout {
        let mut instances = Vec::new();
        let mut canonical = Vec::new();
        let mut offsets = Vec::new();
        let mut at = 0;
        for (s, shape) in SHAPES.iter().enumerate() {
            let base: Vec<u8> = shape.cells.iter().map(|&(f, r)| square(f, r)).collect();
            let set = |sq: &[u8]| sq.iter().fold(0u64, |b, &q| b | 1 << q);
            let mut seen = Vec::new();
            let mut perms = Vec::new();
            for sym in Symmetry::ALL {
                let image: Vec<u8> = base.iter().map(|&q| sym.square(q)).collect();
                if set(&image) == set(&base) {
                    // A symmetry of the shape itself: where each cell of the base goes.
                    perms.push(
                        image
                            .iter()
                            .map(|q| base.iter().position(|b| b == q).expect("same set"))
                            .collect::<Vec<_>>(),
                    );
                }
                if !seen.contains(&set(&image)) {
                    seen.push(set(&image));
                    instances.push(Instance {
                        squares: image,
                        shape: s,
                    });
                }
            }
            let n = base.len();
            let table = (0..states(n) as u32)
                .map(|index| {
                    let digits = digits_of(index, n);
                    (perms.iter())
                        .map(|p| {
                            (0..n).fold(0u32, |acc, i| acc + digits[i] * 3u32.pow(p[i] as u32))
                        })
                        .min()
                        .expect("the identity")
                })
                .collect();
            canonical.push(table);
            offsets.push(at);
            at += states(n);
        }
        Layout {
            instances,
            canonical,
            offsets,
            per_stage: at + 2,
        }
    }

    /// The shared layout.
    pub fn get() -> &'static Layout {
        static LAYOUT: OnceLock<Layout> = OnceLock::new();
        LAYOUT.get_or_init(Layout::build)
    }

    /// Weights a stage: every shape's contents, mobility, bias.
    pub fn per_stage(&self) -> usize {
        self.per_stage
    }

    /// The position's features: the stage and the table entries (in a stage's table) it
    /// reads, one an instance, then the mobility difference (the mover's legal moves less
    /// the opponent's).
    pub fn features(&self, pos: &Position, out: &mut Vec<u32>) -> (usize, i32) {
        let (me, opp) = (pos.mover(), pos.opponent());
        out.clear();
        out.extend(self.instances.iter().map(|inst| {
            let index = read(&inst.squares, me, opp);
            (self.offsets[inst.shape] as u32) + self.canonical[inst.shape][index as usize]
        }));
        let mobility =
            moves_mask(me, opp).count_ones() as i32 - moves_mask(opp, me).count_ones() as i32;
        (stage(pos.empty().count_ones()), mobility)
    }

    /// Names of the shapes and their instance counts, for reports.
    pub fn describe(&self) -> String {
        SHAPES
            .iter()
            .enumerate()
            .map(|(s, shape)| {
                let n = self.instances.iter().filter(|i| i.shape == s).count();
                format!("{} x{n}", shape.name)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The base-3 digits of `index`, least significant first.
fn digits_of(mut index: u32, n: usize) -> Vec<u32> {
    (0..n)
        .map(|_| {
            let d = index % 3;
            index /= 3;
            d
        })
        .collect()
}

/// The contents of `squares` as a base-3 number: 0 empty, 1 the mover's, 2 the opponent's,
/// the first square the least significant digit.
fn read(squares: &[u8], me: Bitboard, opp: Bitboard) -> u32 {
    squares.iter().rev().fold(0, |acc, &q| {
        acc * 3 + ((me >> q) & 1) as u32 + 2 * ((opp >> q) & 1) as u32
    })
}

/// Fitted weights, in the search's units ([`MAN`] is one disc of the final difference).
#[derive(Clone, Debug, PartialEq)]
pub struct PatternWeights {
    /// `STAGES` tables of `Layout::per_stage` entries.
    pub tables: Vec<Vec<i16>>,
}

/// Othello's weights file.
fn format() -> Format {
    Format {
        game: "othello",
        magic: b"CZOP",
        stages: STAGES,
        per_stage: Layout::get().per_stage(),
    }
}

impl PatternWeights {
    pub fn zero() -> PatternWeights {
        PatternWeights {
            tables: vec![vec![0; Layout::get().per_stage()]; STAGES],
        }
    }

    /// The file ([`Format::to_bytes`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        format().to_bytes(&self.tables)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<PatternWeights, WeightsError> {
        Ok(PatternWeights {
            tables: format().from_bytes(bytes)?,
        })
    }

    /// The weights fitted and shipped with the program (data/othello-patterns.bin).
    pub fn shipped() -> &'static PatternWeights {
        static SHIPPED: OnceLock<PatternWeights> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            PatternWeights::from_bytes(include_bytes!("../../data/othello-patterns.bin"))
                .expect("the shipped pattern weights match this build's layout")
        })
    }

    /// The score of `pos` for its side to move.
    pub fn score(&self, pos: &Position, scratch: &mut Vec<u32>) -> i32 {
        let layout = Layout::get();
        let (stage, mobility) = layout.features(pos, scratch);
        let t = &self.tables[stage];
        let per = layout.per_stage();
        let patterns: i32 = scratch.iter().map(|&i| t[i as usize] as i32).sum();
        // Well inside a win's score, as the classic evaluation's terms are.
        (patterns + mobility * t[per - 2] as i32 + t[per - 1] as i32).clamp(-64 * MAN, 64 * MAN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Othello, Rules};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn each_shape_has_its_distinct_images() {
        let layout = Layout::get();
        let count = |s: usize| layout.instances.iter().filter(|i| i.shape == s).count();
        // Edges, 3x3 corners, rows and the long diagonals: 4, 4, 4, 2; the 2x5 corners 8.
        assert_eq!(count(0), 4);
        assert_eq!(count(1), 4);
        assert_eq!(count(2), 8);
        assert_eq!(count(3), 4);
        assert_eq!(count(6), 2);
        assert_eq!(count(10), 4);
        assert_eq!(layout.instances.len(), 46);
    }

    #[test]
    fn the_score_is_the_same_under_the_board_symmetries() {
        // Random weights, so that every entry counts.
        let mut rng = StdRng::seed_from_u64(3);
        let mut w = PatternWeights::zero();
        for t in &mut w.tables {
            for x in t.iter_mut() {
                *x = rng.random_range(-50..=50);
            }
        }
        let mut scratch = Vec::new();
        let mut pos = Position::start();
        for _ in 0..300 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                pos = Position::start();
                continue;
            }
            let score = w.score(&pos, &mut scratch);
            for &sym in Othello::SYMMETRIES {
                let image = Othello::transform_state(sym, &pos);
                assert_eq!(w.score(&image, &mut scratch), score, "{sym:?} of {pos:?}");
            }
            pos = pos.apply(moves[rng.random_range(0..moves.len())]);
        }
    }

    #[test]
    fn weights_survive_their_file_and_a_damaged_file_is_refused() {
        let mut w = PatternWeights::zero();
        w.tables[2][7] = -12;
        w.tables[5][Layout::get().per_stage() - 1] = 300;
        let bytes = w.to_bytes();
        assert_eq!(PatternWeights::from_bytes(&bytes).unwrap(), w);
        assert!(PatternWeights::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(PatternWeights::from_bytes(b"CZXX").is_err());
        PatternWeights::shipped();
    }

    #[test]
    fn contents_read_in_base_three() {
        // a1 the mover's, b1 empty, c1 the opponent's: 1 + 0 * 3 + 2 * 9.
        assert_eq!(read(&[0, 1, 2], 1, 1 << 2), 19);
        assert_eq!(stage(60), 5);
        assert_eq!(stage(1), 0);
        assert_eq!(stage(10), 0);
        assert_eq!(stage(11), 1);
    }
}
