//! Moves (whole turns), and folding capture routes with the same result.
//!
//! A capture is generated once per route: two routes over the same pieces to the same square
//! are different moves (as in the published perft counts); [`dedup_routes`] folds them when
//! only the resulting position matters.

use super::board::Bitboard;

/// Most landing squares one move can have (a side has at most 12 pieces to lose).
pub const MAX_PATH: usize = 12;

/// A whole turn: the starting square, each landing square, and the pieces captured.
/// Squares are 0-based (square number - 1).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    from: u8,
    len: u8,
    path: [u8; MAX_PATH],
    captured: Bitboard,
}

impl Move {
    pub const fn step(from: u8, to: u8) -> Move {
        let mut path = [0; MAX_PATH];
        path[0] = to;
        Move {
            from,
            len: 1,
            path,
            captured: 0,
        }
    }

    #[inline(always)]
    pub const fn from(&self) -> u8 {
        self.from
    }

    #[inline(always)]
    pub const fn to(&self) -> u8 {
        self.path[self.len as usize - 1]
    }

    /// Landing squares in order; one square for a step or a single jump.
    pub fn path(&self) -> &[u8] {
        &self.path[..self.len as usize]
    }

    #[inline(always)]
    pub const fn captured(&self) -> Bitboard {
        self.captured
    }

    #[inline(always)]
    pub const fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// A capture from `from` before its first jump: the generator's route so far.
    pub(super) const fn capture_from(from: u8) -> Move {
        Move {
            from,
            len: 0,
            path: [0; MAX_PATH],
            captured: 0,
        }
    }

    /// Adds a jump over the piece `over` (a bit) to `land`.
    #[inline(always)]
    pub(super) fn push_jump(&mut self, land: u8, over: Bitboard) {
        self.path[self.len as usize] = land;
        self.len += 1;
        self.captured |= over;
    }

    /// Takes back the last jump, which went over `over`.
    #[inline(always)]
    pub(super) fn pop_jump(&mut self, over: Bitboard) {
        self.len -= 1;
        self.captured &= !over;
    }

    /// Same start, end and captured pieces: the same resulting position.
    pub fn same_effect(&self, other: &Move) -> bool {
        self.from == other.from && self.to() == other.to() && self.captured == other.captured
    }
}

/// The moves with one route kept for each distinct result (see [`dedup_routes`]).
pub fn dedup_routes_of(mut moves: Vec<Move>) -> Vec<Move> {
    dedup_routes(&mut moves);
    moves
}

/// Keeps one move of each group with the same start, end and captured pieces.
pub fn dedup_routes(moves: &mut Vec<Move>) {
    // Steps are always distinct, and a move list is all steps or all captures.
    if moves.first().is_none_or(|m| !m.is_capture()) {
        return;
    }
    let mut i = 1;
    while i < moves.len() {
        if moves[..i].iter().any(|m| m.same_effect(&moves[i])) {
            moves.remove(i);
        } else {
            i += 1;
        }
    }
}
