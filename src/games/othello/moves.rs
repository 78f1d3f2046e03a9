//! Moves and their generation with bitboard shifts: each of the 8 directions floods from
//! the mover's discs over runs of opponent discs, and an empty square just past a run is a
//! move. Flips are found the same way, flooding from the placed disc.

use super::board::{Bitboard, Squares};
use super::position::{Outcome, Position};
use crate::games::side::{DrawReason, WinReason};

/// A move: a disc placed on a square (0..64, see the board module), or a pass, which is
/// legal exactly when the mover has no square to play and the opponent has one.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Move {
    Play(u8),
    #[default]
    Pass,
}

/// Files a and h, which a horizontal or diagonal run of flipped discs can never include.
const NOT_EDGE_FILES: Bitboard = 0x7E7E_7E7E_7E7E_7E7E;

/// The 8 directions as (shift, mask of opponent discs a run may cross). Positive shifts
/// move towards h8. The mask keeps a run from wrapping from one rank's edge to the next;
/// vertical shifts fall off the board instead.
const DIRECTIONS: [(i32, Bitboard); 8] = [
    (1, NOT_EDGE_FILES),  // east
    (-1, NOT_EDGE_FILES), // west
    (8, !0),              // north (towards rank 8)
    (-8, !0),             // south
    (9, NOT_EDGE_FILES),  // north-east
    (7, NOT_EDGE_FILES),  // north-west
    (-7, NOT_EDGE_FILES), // south-east
    (-9, NOT_EDGE_FILES), // south-west
];

#[inline(always)]
fn shift(b: Bitboard, s: i32) -> Bitboard {
    if s > 0 { b << s } else { b >> -s }
}

/// The opponent discs in a line from `from` (exclusive) in direction `s`, as far as they
/// run; at most 6 fit between two squares of a line, hence 5 steps after the first.
#[inline(always)]
fn run(from: Bitboard, opp: Bitboard, s: i32) -> Bitboard {
    let mut x = shift(from, s) & opp;
    for _ in 0..5 {
        x |= shift(x, s) & opp;
    }
    x
}

/// The squares where `mover` may place a disc against `opponent`.
#[inline]
pub fn moves_mask(mover: Bitboard, opponent: Bitboard) -> Bitboard {
    let empty = !(mover | opponent);
    let mut moves = 0;
    for (s, edge) in DIRECTIONS {
        moves |= shift(run(mover, opponent & edge, s), s) & empty;
    }
    moves
}

/// The opponent discs flipped by `mover` placing a disc on `sq` (0 when the placement
/// flips nothing, i.e. is not a legal move if `sq` is empty).
#[inline]
pub fn flips(mover: Bitboard, opponent: Bitboard, sq: u8) -> Bitboard {
    let placed = 1u64 << sq;
    let mut flipped = 0;
    for (s, edge) in DIRECTIONS {
        let x = run(placed, opponent & edge, s);
        if shift(x, s) & mover != 0 {
            flipped |= x;
        }
    }
    flipped
}

impl Position {
    /// The squares the side to move may play (empty when it must pass or the game is over).
    pub fn legal_moves_mask(&self) -> Bitboard {
        moves_mask(self.mover(), self.opponent())
    }

    /// The squares the side not to move could play if it were its turn.
    pub fn opponent_moves_mask(&self) -> Bitboard {
        moves_mask(self.opponent(), self.mover())
    }

    /// The legal moves, squares lowest first; `[Pass]` when only the opponent can move,
    /// empty when the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        self.legal_moves_into(&mut out);
        out
    }

    /// Appends the legal moves, in the order of [`Position::legal_moves`], to `out` (a
    /// buffer search reuses).
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        let mask = self.legal_moves_mask();
        if mask != 0 {
            out.extend(Squares(mask).map(Move::Play));
        } else if self.opponent_moves_mask() != 0 {
            out.push(Move::Pass);
        }
    }

    pub fn is_legal(&self, mv: Move) -> bool {
        let mask = self.legal_moves_mask();
        match mv {
            Move::Play(sq) => sq < 64 && mask & (1 << sq) != 0,
            Move::Pass => mask == 0 && self.opponent_moves_mask() != 0,
        }
    }

    /// The position after a legal move (a pass only hands over the turn). An illegal move
    /// gives a position that no game reaches; in debug builds it panics.
    pub fn apply(&self, mv: Move) -> Position {
        debug_assert!(self.is_legal(mv), "illegal move {mv:?} in {self:?}");
        let (me, opp) = (self.mover(), self.opponent());
        let next = self.turn().opposite();
        match mv {
            Move::Pass => Position::from_mover(opp, me, next),
            Move::Play(sq) => {
                let f = flips(me, opp, sq);
                Position::from_mover(opp & !f, me | f | (1 << sq), next)
            }
        }
    }

    /// Neither side can move: the board is full, or no empty square flips anything.
    pub fn is_terminal(&self) -> bool {
        self.legal_moves_mask() == 0 && self.opponent_moves_mask() == 0
    }

    /// The result of a finished game by disc count; `None` while either side can move.
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.is_terminal() {
            return None;
        }
        let (me, opp) = (self.mover().count_ones(), self.opponent().count_ones());
        Some(match me.cmp(&opp) {
            std::cmp::Ordering::Greater => Outcome::Win(self.turn(), WinReason::MoreDiscs),
            std::cmp::Ordering::Less => Outcome::Win(self.turn().opposite(), WinReason::MoreDiscs),
            std::cmp::Ordering::Equal => Outcome::Draw(DrawReason::EqualDiscs),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::othello::Color;

    #[test]
    fn start_moves_and_first_flip() {
        let p = Position::start();
        // d3, c4, f5, e6: each flips one White disc.
        let expected = vec![
            Move::Play(19),
            Move::Play(26),
            Move::Play(37),
            Move::Play(44),
        ];
        assert_eq!(p.legal_moves(), expected);
        let after = p.apply(Move::Play(19));
        assert_eq!(after.turn(), Color::White);
        assert_eq!(after.count(Color::Black), 4);
        assert_eq!(after.count(Color::White), 1);
        assert_eq!(after.disc_at(27), Some(Color::Black), "d4 flipped");
        assert!(!p.is_legal(Move::Pass) && !p.is_legal(Move::Play(0)));
        assert!(!p.is_legal(Move::Play(64)));
    }

    #[test]
    fn runs_do_not_wrap_around_the_edge() {
        // Black h1, White a2 b2: without the edge mask the run h1 -> a2 -> b2 -> c2 would
        // make c2 look legal for Black.
        let p = Position::from_discs(1 << 7, (1 << 8) | (1 << 9), Color::Black).unwrap();
        assert_eq!(p.legal_moves_mask(), 0);
        assert!(p.is_terminal());
        assert_eq!(
            p.outcome(),
            Some(Outcome::Win(Color::White, WinReason::MoreDiscs))
        );
    }

    #[test]
    fn pass_and_game_end() {
        // Black a1, White b1, c1 empty: White has no move, Black has c1.
        let white_to_move = Position::from_discs(1, 2, Color::White).unwrap();
        assert_eq!(white_to_move.legal_moves(), vec![Move::Pass]);
        let black = white_to_move.apply(Move::Pass);
        assert_eq!(black.turn(), Color::Black);
        assert_eq!(black.legal_moves(), vec![Move::Play(2)]);
        let end = black.apply(Move::Play(2));
        assert_eq!(end.count(Color::Black), 3);
        assert!(end.is_terminal() && end.legal_moves().is_empty());
        assert_eq!(
            end.outcome(),
            Some(Outcome::Win(Color::Black, WinReason::MoreDiscs))
        );
        let draw = Position::from_discs(1, 1 << 63, Color::White).unwrap();
        assert_eq!(draw.outcome(), Some(Outcome::Draw(DrawReason::EqualDiscs)));
        assert_eq!(Position::start().outcome(), None);
    }
}
