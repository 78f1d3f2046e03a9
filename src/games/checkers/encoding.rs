//! What the network sees and how its outputs map to hops.
//!
//! The board is seen from the side to move: Black's board as it is, White's turned half a
//! turn (square `s` -> `31 - s`, each direction -> its opposite), so the mover's men always
//! advance toward higher tensor rows and one network serves both colours. A half turn keeps
//! dark squares dark, so frame square `f` sits at tensor row `f / 4` like a real square.
//!
//! Policy: index `d * 32 + f` is a hop from frame square `f` in frame direction `d`
//! ([`Dir`] order). That is exactly the order of the network's `dark_square_index` (plane-major, then
//! row, then column over dark squares), so policy index `i` is the network's logit `i`.
//!
//! Input planes (8 by default, [`BASE_PLANES`]), each 8x8 in the mover's frame:
//! 0 own men, 1 own kings, 2 opponent men, 3 opponent kings, 4 the piece that must continue a
//! multi-jump, 5 the pieces already jumped this turn (still on the board), 6 the draw counter
//! (plies without a man move or capture / 80, constant), 7 ones (lets convolutions, which pad
//! with zeros, find the board's edge). Options add 4 planes (pieces as in 0-3) per earlier
//! turn start, most recent first, and 4 legal-hop planes (from-squares of legal hops, one
//! plane per frame direction).
//!

use super::board::{Bitboard, Dir, Squares, row_col};
use super::hops::{Hop, HopState};
use super::record::FORTY_MOVE_PLIES;
use super::{Color, Position};

/// Policy outputs: 32 squares x 4 directions (the network's dark-square head gives them in
/// this order; net/model.rs checks it).
pub const POLICY_SIZE: usize = 128;
/// Planes every encoding has.
pub const BASE_PLANES: usize = 8;
const CELLS: usize = 64;

/// A square as the side to move sees it.
pub const fn frame_square(sq: u8, turn: Color) -> u8 {
    match turn {
        Color::Black => sq,
        Color::White => 31 - sq,
    }
}

/// A direction as the side to move sees it.
pub const fn frame_dir(dir: Dir, turn: Color) -> Dir {
    match turn {
        Color::Black => dir,
        Color::White => dir.opposite(),
    }
}

/// The policy index of `hop` when `turn` is to move.
pub const fn policy_index(hop: Hop, turn: Color) -> usize {
    frame_dir(hop.dir, turn).index() * 32 + frame_square(hop.from, turn) as usize
}

/// The hop at policy index `index` (below [`POLICY_SIZE`]) when `turn` is to move; the
/// mapping is its own inverse because both frame maps are.
pub const fn hop_at(index: usize, turn: Color) -> Hop {
    Hop {
        from: frame_square((index % 32) as u8, turn),
        dir: frame_dir(Dir::ALL[index / 32], turn),
    }
}

/// True at the policy indices of the legal hops of `state`.
pub fn legal_mask(state: &HopState) -> [bool; POLICY_SIZE] {
    let mut mask = [false; POLICY_SIZE];
    for hop in state.hops() {
        mask[policy_index(hop, state.turn())] = true;
    }
    mask
}

/// Which optional planes an encoding has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Encoding {
    /// Earlier turn-start positions to show (the original design used 5).
    pub history: usize,
    /// Add the legal-hop planes (as Checkers-MCTS did).
    pub legal_hops: bool,
}

impl Encoding {
    pub fn planes(&self) -> usize {
        BASE_PLANES + 4 * self.history + if self.legal_hops { 4 } else { 0 }
    }

    /// Writes the planes of `state` into `out` (length `planes() * 64`, all overwritten):
    /// `quiet` plies since the last irreversible move, the earlier turn-start positions
    /// (`history`, most recent first) and the legal `hops` of `state`.
    pub fn encode(
        &self,
        state: &HopState,
        quiet: u32,
        history: &[Position],
        hops: &[Hop],
        out: &mut [f32],
    ) {
        assert_eq!(out.len(), self.planes() * CELLS, "plane buffer size");
        out.fill(0.0);
        let turn = state.turn();
        let mut planes = out.chunks_exact_mut(CELLS);
        let mut next = || planes.next().expect("plane count matches planes()");
        write_pieces(state.position(), turn, &mut next);
        let jumping = state.jumping().map_or(0, |sq| 1u32 << sq);
        mark(next(), jumping, turn);
        mark(next(), state.captured(), turn);
        next().fill(quiet.min(FORTY_MOVE_PLIES) as f32 / FORTY_MOVE_PLIES as f32);
        next().fill(1.0);
        for k in 0..self.history {
            match history.get(k) {
                Some(pos) => write_pieces(pos, turn, &mut next),
                None => (0..4).for_each(|_| {
                    next();
                }),
            }
        }
        if self.legal_hops {
            let dirs: [&mut [f32]; 4] = [next(), next(), next(), next()];
            for hop in hops {
                let idx = policy_index(*hop, turn);
                dirs[idx / 32][cell(frame_square(hop.from, turn))] = 1.0;
            }
        }
    }
}

/// Own men, own kings, opponent men, opponent kings of `pos`, in the frame of `turn`.
fn write_pieces<'a>(pos: &Position, turn: Color, next: &mut impl FnMut() -> &'a mut [f32]) {
    let opp = turn.opposite();
    for set in [
        pos.men(turn),
        pos.kings_of(turn),
        pos.men(opp),
        pos.kings_of(opp),
    ] {
        mark(next(), set, turn);
    }
}

fn mark(plane: &mut [f32], set: Bitboard, turn: Color) {
    for sq in Squares(set) {
        plane[cell(frame_square(sq, turn))] = 1.0;
    }
}

/// The 8x8 cell (row * 8 + column) of a frame square.
fn cell(f: u8) -> usize {
    let (r, c) = row_col(f);
    r as usize * 8 + c as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::parse_fen;

    struct Input {
        state: HopState,
        history: Vec<Position>,
        hops: Vec<Hop>,
    }

    fn input(state: HopState) -> Input {
        Input {
            hops: state.hops(),
            state,
            history: vec![Position::start()],
        }
    }

    fn encode(enc: &Encoding, i: &Input, out: &mut [f32]) {
        enc.encode(&i.state, 10, &i.history, &i.hops, out);
    }

    #[test]
    fn both_colours_see_a_mirrored_position_identically() {
        let enc = Encoding {
            history: 1,
            legal_hops: true,
        };
        assert_eq!(enc.planes(), 16);
        for fen in [
            "B:W18,22,K30:B9,K14",
            "W:WK10:B14,15,22,23",
            "B:W21,22,23,24,25:B1,2,3,K20",
        ] {
            let pos = parse_fen(fen).unwrap();
            let a = input(HopState::turn_start(pos));
            let mut b = input(HopState::turn_start(pos.mirrored()));
            b.history = vec![Position::start().mirrored()];
            let (mut pa, mut pb) = (vec![0.0; 16 * 64], vec![0.0; 16 * 64]);
            encode(&enc, &a, &mut pa);
            encode(&enc, &b, &mut pb);
            assert_eq!(pa, pb, "{fen}");
            let mut ia: Vec<usize> = a
                .hops
                .iter()
                .map(|h| policy_index(*h, a.state.turn()))
                .collect();
            let mut ib: Vec<usize> = b
                .hops
                .iter()
                .map(|h| policy_index(*h, b.state.turn()))
                .collect();
            ia.sort();
            ib.sort();
            assert_eq!(ia, ib, "{fen}");
        }
    }

    #[test]
    fn planes_show_the_mover_the_continuing_piece_and_the_jumped_pieces() {
        // White to move: 26x17 must go on over 14.
        let pos = parse_fen("W:W26:B22,14,K5").unwrap();
        let start = HopState::turn_start(pos);
        let hop = start.hops()[0];
        let mid = start.apply(hop);
        assert_eq!(mid.jumping(), Some(17 - 1), "26x17 continues");
        let enc = Encoding::default();
        assert_eq!(enc.planes(), 8);
        let mut p = vec![0.0; 8 * 64];
        let inp = input(mid);
        encode(&enc, &inp, &mut p);
        let at = |plane: usize, sq: u8| p[plane * 64 + cell(frame_square(sq - 1, Color::White))];
        assert_eq!(at(0, 17), 1.0, "own man on 17");
        assert_eq!(at(2, 22), 1.0, "the jumped man is still on the board");
        assert_eq!(at(3, 5), 1.0, "opponent king");
        assert_eq!(at(4, 17), 1.0, "the piece that must continue");
        assert_eq!(at(5, 22), 1.0, "jumped this turn");
        assert_eq!(p[6 * 64], 10.0 / 80.0, "draw counter");
        assert!(p[7 * 64..].iter().all(|&x| x == 1.0));
        assert_eq!(p.iter().filter(|&&x| x == 1.0).count(), 6 + 64);
        // White's men move up the board; in the frame they advance to higher rows.
        let f_from = frame_square(16, Color::White);
        let f_to = frame_square(10 - 1, Color::White);
        assert!(row_col(f_to).0 > row_col(f_from).0);
        let mask = legal_mask(&mid);
        assert_eq!(mask.iter().filter(|&&m| m).count(), 1);
    }
}
