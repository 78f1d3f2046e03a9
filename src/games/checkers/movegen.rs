//! The move generator. Pieces jumped during a multi-jump stay on the board until the move
//! ends: they cannot be jumped twice and cannot be landed on.

use super::board::{Bitboard, Dir, Squares, jump_landing, neighbour, shift};
use super::moves::{Move, dedup_routes};
use super::position::{Color, Position};

/// Pieces of the side to move that may move in `dir` (men only forward).
#[inline(always)]
fn movers(pos: &Position, dir: Dir) -> Bitboard {
    let side = pos.turn();
    let mine = pos.pieces(side);
    if side.forward().contains(&dir) {
        mine
    } else {
        mine & pos.kings()
    }
}

/// Pieces of the side to move that have a jump available.
#[inline]
pub fn jumpers(pos: &Position) -> Bitboard {
    let opp = pos.pieces(pos.turn().opposite());
    let empty = pos.empty();
    let mut out = 0;
    for dir in Dir::ALL {
        let back = dir.opposite();
        out |= shift(shift(empty, back) & opp, back) & movers(pos, dir);
    }
    out
}

/// Appends every legal move of the side to move to `out` (all capture routes).
pub fn generate(pos: &Position, out: &mut Vec<Move>) {
    let jumping = jumpers(pos);
    if jumping != 0 {
        generate_captures(pos, jumping, out);
    } else {
        generate_steps(pos, out);
    }
}

/// The legal moves in a new vector.
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut out = Vec::with_capacity(32);
    generate(pos, &mut out);
    out
}

fn generate_steps(pos: &Position, out: &mut Vec<Move>) {
    let empty = pos.empty();
    for dir in Dir::ALL {
        let can = movers(pos, dir) & shift(empty, dir.opposite());
        for sq in Squares(can) {
            // The neighbour exists: `can` only holds squares whose `dir` neighbour is empty.
            let to = neighbour(sq, dir).expect("neighbour of a mover");
            out.push(Move::step(sq, to));
        }
    }
}

/// Number of legal moves (perft leaves), without building the step moves.
pub fn count_moves(pos: &Position, unique: bool, scratch: &mut Vec<Move>) -> u64 {
    let jumping = jumpers(pos);
    if jumping == 0 {
        let empty = pos.empty();
        return Dir::ALL
            .iter()
            .map(|&d| (movers(pos, d) & shift(empty, d.opposite())).count_ones() as u64)
            .sum();
    }
    count_captures(pos, jumping, unique, scratch)
}

/// One possible jump from a square: the square jumped over and the landing square (bits),
/// or zero bits where the jump would leave the board.
#[derive(Clone, Copy)]
struct Jump {
    over: Bitboard,
    land: Bitboard,
    land_sq: u8,
}

const fn jump_table() -> [[Jump; 4]; 32] {
    let mut t = [[Jump {
        over: 0,
        land: 0,
        land_sq: 0,
    }; 4]; 32];
    let mut sq = 0;
    while sq < 32 {
        let mut d = 0;
        while d < 4 {
            if let (Some(over), Some(land)) = (
                neighbour(sq as u8, Dir::ALL[d]),
                jump_landing(sq as u8, Dir::ALL[d]),
            ) {
                t[sq][d] = Jump {
                    over: 1 << over,
                    land: 1 << land,
                    land_sq: land,
                };
            }
            d += 1;
        }
        sq += 1;
    }
    t
}

static JUMPS: [[Jump; 4]; 32] = jump_table();

/// The state shared by one piece's multi-jump search.
struct JumpSearch {
    dirs: &'static [Dir],
    king: bool,
    crown: Bitboard,
    /// Opponent pieces not yet jumped in this move.
    opp: Bitboard,
    /// Empty squares, the jumping piece's own start square included.
    empty: Bitboard,
}

impl JumpSearch {
    fn new(pos: &Position, sq: u8) -> Self {
        let side = pos.turn();
        let king = pos.kings() & (1u32 << sq) != 0;
        JumpSearch {
            dirs: if king { &Dir::ALL } else { forward_dirs(side) },
            king,
            crown: side.crown_row(),
            opp: pos.pieces(side.opposite()),
            // The jumping piece has left its square, so a king may pass back over it.
            empty: pos.empty() | (1u32 << sq),
        }
    }

    #[inline(always)]
    fn jumps_from(&self, at: u8, captured: Bitboard) -> impl Iterator<Item = Jump> + '_ {
        let table = &JUMPS[at as usize];
        self.dirs
            .iter()
            .map(move |d| table[d.index()])
            .filter(move |j| self.opp & !captured & j.over != 0 && self.empty & j.land != 0)
    }

    /// A man that reaches the king row is crowned and its move ends there.
    #[inline(always)]
    fn ends_on(&self, j: &Jump) -> bool {
        !self.king && j.land & self.crown != 0
    }

    fn extend(&self, mv: &mut Move, at: u8, out: &mut Vec<Move>) {
        let mut continued = false;
        for j in self.jumps_from(at, mv.captured()) {
            continued = true;
            mv.push_jump(j.land_sq, j.over);
            if self.ends_on(&j) {
                out.push(*mv);
            } else {
                self.extend(mv, j.land_sq, out);
            }
            mv.pop_jump(j.over);
        }
        if !continued && !mv.path().is_empty() {
            out.push(*mv);
        }
    }

    /// Number of complete routes from `at` (1 if no jump continues the move).
    fn count(&self, at: u8, captured: Bitboard) -> u64 {
        let mut n = 0;
        for j in self.jumps_from(at, captured) {
            n += if self.ends_on(&j) {
                1
            } else {
                self.count(j.land_sq, captured | j.over)
            };
        }
        n.max(1)
    }
}

/// The forward directions of a side as a static slice.
fn forward_dirs(side: Color) -> &'static [Dir] {
    match side {
        Color::Black => &Dir::SOUTH,
        Color::White => &Dir::NORTH,
    }
}

fn generate_captures(pos: &Position, jumping: Bitboard, out: &mut Vec<Move>) {
    for sq in Squares(jumping) {
        let search = JumpSearch::new(pos, sq);
        search.extend(&mut Move::capture_from(sq), sq, out);
    }
}

/// Number of capture moves. Only a king can reach one square over the same pieces by two
/// routes, so `unique` needs the routes themselves only when a king can jump.
fn count_captures(pos: &Position, jumping: Bitboard, unique: bool, scratch: &mut Vec<Move>) -> u64 {
    if unique && jumping & pos.kings() != 0 {
        scratch.clear();
        generate_captures(pos, jumping, scratch);
        dedup_routes(scratch);
        return scratch.len() as u64;
    }
    Squares(jumping)
        .map(|sq| JumpSearch::new(pos, sq).count(sq, 0))
        .sum()
}
