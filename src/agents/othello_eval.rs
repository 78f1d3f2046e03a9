//! Othello's part of the alpha-beta search: a classic hand-made evaluation for the
//! `alphabeta` agent, and the game's search knobs (no horizon extension, corners first).
//!
//! The evaluation follows the usual features of hand-tuned Othello programs (Rosenbloom's
//! Iago, and the many since): in the opening and middle game the disc count misleads (who
//! has fewer discs often has more moves), so it scores what lasts instead: mobility, few
//! frontier discs, corners, not giving corners away, and discs that can never flip. The
//! disc count itself counts only in the last [`PARITY_EMPTIES`] empties, where it is about
//! to become the result. Every feature is the mover's minus the opponent's, so the score
//! is the same for either colour, and each is unchanged by the board's 8 symmetries.

use super::alphabeta::{AgentEval, MAN, SearchGame, StaticEval};
use super::kinds::{self, AgentKind, LimitOptions};
use super::othello_patterns::PatternWeights;
use super::settings::OthelloEvalKind;
use crate::games::Othello;
use crate::games::othello::board::Bitboard;
use crate::games::othello::moves::moves_mask;
use crate::games::othello::{Move, Position};

// Weights in the search's units: `MAN` is one disc of the final count. Their ratios are the
// classic ones: a corner is worth about ten moves of mobility, and a disc on an X-square
// beside an empty corner over a third of a corner lost. Even all at their extremes the terms
// add up to less than 25 000, a fortieth of a win, so no evaluation passes for a win.

/// Per legal move more than the opponent has: moves now, and fewer forced bad moves later.
const MOBILITY: i32 = 80;
/// Per frontier disc (next to an empty square) fewer than the opponent's: potential
/// mobility, as frontier discs give the opponent moves.
const FRONTIER: i32 = 40;
/// Per corner owned: a corner never flips and anchors its edges.
const CORNER: i32 = 8 * MAN;
/// Per own disc on an X-square (diagonally next to a corner) while that corner is empty:
/// it lets the opponent take the corner.
const X_SQUARE: i32 = 3 * MAN;
/// Per own disc on a C-square (beside a corner on an edge) while that corner is empty.
const C_SQUARE: i32 = 3 * MAN / 2;
/// Per disc on an edge that can never flip: a run of one colour from its own corner.
const STABLE_EDGE: i32 = MAN;
/// Per disc more than the opponent, once no more than `PARITY_EMPTIES` squares are empty.
const PARITY: i32 = MAN;
/// The empties at which the disc count starts to count.
pub const PARITY_EMPTIES: u32 = 14;

/// The four corners, each with its X-square, its two C-squares, and the steps along its two
/// edges: a1, h1, a8, h8.
const CORNERS: [Corner; 4] = [
    Corner::new(0, 9, [1, 8], [1, 8]),
    Corner::new(7, 14, [6, 15], [-1, 8]),
    Corner::new(56, 49, [57, 48], [1, -8]),
    Corner::new(63, 54, [62, 55], [-1, -8]),
];

struct Corner {
    square: Bitboard,
    x_square: Bitboard,
    c_squares: Bitboard,
    /// The square of the corner and the steps to walk its two edges.
    at: i8,
    steps: [i8; 2],
}

impl Corner {
    const fn new(at: u8, x: u8, c: [u8; 2], steps: [i8; 2]) -> Corner {
        Corner {
            square: 1 << at,
            x_square: 1 << x,
            c_squares: (1 << c[0]) | (1 << c[1]),
            at: at as i8,
            steps,
        }
    }
}

const CORNER_SQUARES: Bitboard = 0x8100_0000_0000_0081;
/// Bits that stay on the board when shifted one file east (file a cannot be reached) or
/// west (file h cannot be).
const NOT_FILE_A: Bitboard = 0xFEFE_FEFE_FEFE_FEFE;
const NOT_FILE_H: Bitboard = 0x7F7F_7F7F_7F7F_7F7F;

/// The squares next to (one king step from) a square of `b`.
fn neighbours(b: Bitboard) -> Bitboard {
    let east = (b << 1) & NOT_FILE_A;
    let west = (b >> 1) & NOT_FILE_H;
    let row = b | east | west;
    east | west | (row << 8) | (row >> 8)
}

/// The edge discs of `own` that can never flip: the runs of `own` along each edge from a
/// corner it holds (nothing can get between them and the corner).
fn stable_edge_discs(own: Bitboard) -> Bitboard {
    let mut stable = 0;
    for corner in &CORNERS {
        if own & corner.square == 0 {
            continue;
        }
        stable |= corner.square;
        for step in corner.steps {
            let mut sq = corner.at;
            for _ in 0..7 {
                sq += step;
                if own & (1 << sq) == 0 {
                    break;
                }
                stable |= 1 << sq;
            }
        }
    }
    stable
}

/// The features of one side that do not depend on whose turn it is, weighted.
fn static_score(own: Bitboard, empty: Bitboard) -> i32 {
    let count = |b: Bitboard| b.count_ones() as i32;
    let mut score = CORNER * count(own & CORNER_SQUARES);
    for corner in &CORNERS {
        if empty & corner.square != 0 {
            score -= X_SQUARE * count(own & corner.x_square);
            score -= C_SQUARE * count(own & corner.c_squares);
        }
    }
    score += STABLE_EDGE * count(stable_edge_discs(own));
    score - FRONTIER * count(own & neighbours(empty))
}

/// Othello's alpha-beta evaluation: the classic one described in the module doc, or the
/// fitted patterns ([`super::othello_patterns`]).
#[derive(Clone, Debug, Default)]
pub struct OthelloEval {
    kind: OthelloEvalKind,
    scratch: Vec<u32>,
}

impl OthelloEval {
    pub fn new(kind: OthelloEvalKind) -> OthelloEval {
        OthelloEval {
            kind,
            scratch: Vec::new(),
        }
    }

    /// The score of `pos` for its side to move (see [`StaticEval::evaluate`]).
    pub fn score(pos: &Position) -> i32 {
        let (me, opp) = (pos.mover(), pos.opponent());
        let empty = pos.empty();
        let moves = |a, b| moves_mask(a, b).count_ones() as i32;
        let mut score = MOBILITY * (moves(me, opp) - moves(opp, me));
        score += static_score(me, empty) - static_score(opp, empty);
        if empty.count_ones() <= PARITY_EMPTIES {
            score += PARITY * (me.count_ones() as i32 - opp.count_ones() as i32);
        }
        score
    }
}

impl StaticEval<Othello> for OthelloEval {
    fn evaluate(&mut self, pos: &Position) -> i32 {
        match self.kind {
            OthelloEvalKind::Classic => OthelloEval::score(pos),
            OthelloEvalKind::Patterns => PatternWeights::shipped().score(pos, &mut self.scratch),
        }
    }
}

impl AgentEval<Othello> for OthelloEval {
    const KIND: &'static AgentKind = &kinds::OTHELLO_ALPHABETA;
    const LIMITS: &'static LimitOptions = &kinds::alphabeta::OTHELLO_LIMITS;

    fn options(&self) -> Vec<(&'static str, Option<String>)> {
        vec![kinds::alphabeta::OTHELLO_EVAL.with(Some(self.kind))]
    }
}

impl SearchGame for Othello {
    /// One per square.
    const HISTORY_SLOTS: usize = 64;

    /// Every move reaches its own position, so the legal moves are the distinct ones.
    fn distinct_moves_into(pos: &Position, out: &mut Vec<Move>) {
        out.clear();
        pos.legal_moves_into(out);
    }

    /// No quiescence search: a disc count changes at every move, so no position is quieter
    /// than another in the sense checkers' pending captures are.
    fn unsettled(_pos: &Position, _moves: &[Move]) -> bool {
        false
    }

    /// Corners first: rarely wrong, and they cut the most.
    fn urgency(_pos: &Position, mv: &Move) -> u32 {
        match mv {
            Move::Play(sq) if CORNER_SQUARES & (1 << sq) != 0 => 1,
            _ => 0,
        }
    }

    /// By square; a pass is always the only move, so there is nothing to order.
    fn history_slot(mv: &Move) -> Option<usize> {
        match mv {
            Move::Play(sq) => Some(*sq as usize),
            Move::Pass => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Rules;
    use crate::games::othello::Color;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Positions with moves from random games, from the opening to the last empties.
    fn random_positions(count: usize, seed: u64) -> Vec<Position> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let mut pos = Position::start();
            for _ in 0..rng.random_range(0..64) {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos = pos.apply(moves[rng.random_range(0..moves.len())]);
            }
            if !pos.legal_moves().is_empty() {
                out.push(pos);
            }
        }
        out
    }

    #[test]
    fn neighbours_stay_on_the_board() {
        // a1: b1, a2, b2. h1: g1, g2, h2 (no wrap to a2 or h2 from a1).
        assert_eq!(neighbours(1), (1 << 1) | (1 << 8) | (1 << 9));
        assert_eq!(neighbours(1 << 7), (1 << 6) | (1 << 14) | (1 << 15));
        assert_eq!(neighbours(1 << 27).count_ones(), 8);
    }

    #[test]
    fn the_score_is_the_same_for_either_colour_and_under_the_board_symmetries() {
        for pos in random_positions(300, 1) {
            let score = OthelloEval::score(&pos);
            let (black, white) = (pos.discs(Color::Black), pos.discs(Color::White));
            let swapped = Position::from_discs(white, black, pos.turn().opposite()).unwrap();
            assert_eq!(OthelloEval::score(&swapped), score, "{pos:?}");
            for &sym in Othello::SYMMETRIES {
                let image = Othello::transform_state(sym, &pos);
                assert_eq!(OthelloEval::score(&image), score, "{sym:?} of {pos:?}");
            }
            assert!(score.abs() < 25_000, "{score} in {pos:?}");
        }
    }

    #[test]
    fn edge_runs_from_an_owned_corner_are_stable() {
        // Own a1, b1, c1, e1 and a2, a3: e1 is cut off from the corner by the empty d1.
        let own = 0b1_0111 | (1 << 8) | (1 << 16);
        assert_eq!(stable_edge_discs(own), 0b111 | (1 << 8) | (1 << 16));
        assert_eq!(
            stable_edge_discs(own & !1),
            0,
            "no corner, nothing anchored"
        );
        // A full edge from h8 both ways.
        let top: Bitboard = 0xFF << 56;
        assert_eq!(stable_edge_discs(top), top);
    }

    #[test]
    fn squares_next_to_an_empty_corner_cost() {
        // Alone on the board with a1, a disc on b2 (a1's X-square: a1 is taken), on g2
        // (h1's X-square, h1 empty) or on g1 (h1's C-square); every other feature is equal.
        let score = |own: Bitboard| static_score(own, !own);
        let (b2, g2, g1) = (score(1 | 1 << 9), score(1 | 1 << 14), score(1 | 1 << 6));
        assert_eq!(b2 - g2, X_SQUARE);
        assert_eq!(b2 - g1, C_SQUARE);
        assert_eq!(score(1) - score(0), CORNER + STABLE_EDGE - FRONTIER);
    }
}
