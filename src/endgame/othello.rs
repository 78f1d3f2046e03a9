//! Othello's exact endgame solver: the final disc differential under perfect play from a
//! position with few empty squares (16 in well under a second on one core).
//!
//! A negamax alpha-beta (principal variation search, fail-soft) over the mover/opponent
//! bitboard pair, with no allocation below the root:
//! - above 6 empties (`SHALLOW`): fastest-first ordering (the move that leaves the opponent
//!   the fewest moves first, corners preferred) and a transposition table of bounds and best
//!   moves, probed first, replaced always;
//! - at 6 empties or fewer: no mobility count nor table (they cost more than they
//!   save there); the empty squares are tried in a fixed order, those of a quadrant with an
//!   odd number of empties first (parity: the last move in a region tends to be the
//!   mover's), corners first and the squares next to empty corners last;
//! - the last two empty squares are tried directly, and the last one is scored from flip
//!   counts without making the move.
//!
//! [`solve`] settles win, loss or draw with a null window around 0 first (what
//! [`solve_wld`] does alone), then searches for the margin on that side only, the table
//! carried over.
//!
//! Score convention: the mover's discs minus the opponent's at the end of the game, with
//! the empty squares of a game that ends before the board is full given to the winner (the
//! standard rule; a draw stays 0). So every score is even and in -64..=64.

use crate::games::othello::{Move, Position};
use std::sync::atomic::{AtomicBool, Ordering};

/// Empties at which agents should hand the game to [`solve`]. On a loaded 2-core Xeon
/// (`checkers-zero bench endgame`, 20 positions each) 16 empties take a median of 0.01-0.03
/// s and at most about 0.1 s, 18 at most about 0.5 s, 20 up to 2.5 s: 16 is reliably far
/// under a second, with room for slower machines and short clocks.
pub const DEFAULT_EMPTIES: u32 = 16;

/// A solved position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solved {
    /// The final disc difference for the side to move (see the module's score convention);
    /// from [`solve_wld`] only its sign: 1, 0 or -1.
    pub score: i32,
    /// A move that achieves `score` (a pass when the mover must pass); `None` when the game
    /// is over.
    pub best: Option<Move>,
    /// Positions visited, the measure of the work done.
    pub nodes: u64,
}

/// The empty squares of a position.
pub fn empties(pos: &Position) -> u32 {
    pos.empty().count_ones()
}

/// The exact final disc difference for the side to move under perfect play, and a move
/// that achieves it. `None` when `stop` became true during the search (it is read before
/// the search and every 4096 positions after).
pub fn solve(pos: &Position, stop: Option<&AtomicBool>) -> Option<Solved> {
    let mut solver = Solver::new(stop, empties(pos))?;
    // Win, loss or draw first (a null window is cheap), then the margin on the side the
    // first search bounded, with the table it filled.
    let (first, best) = solver.root(pos, -1, 1);
    let (score, best) = match first.signum() {
        1 => solver.root(pos, first - 1, SCORE_MAX + 1),
        -1 => solver.root(pos, -SCORE_MAX - 1, first + 1),
        _ => (first, best),
    };
    solver.finish(score, best)
}

/// Win, loss or draw for the side to move under perfect play: `score` is 1, 0 or -1 and
/// `best` a move that keeps that result. Faster than [`solve`]: one null window around 0
/// cuts every line that only changes the margin. `None` when `stop` became true.
pub fn solve_wld(pos: &Position, stop: Option<&AtomicBool>) -> Option<Solved> {
    let mut solver = Solver::new(stop, empties(pos))?;
    // Fail-soft on (-1, 1): a result <= -1 bounds a loss, >= 1 a win, and 0 is exact.
    let (score, best) = solver.root(pos, -1, 1);
    solver.finish(score.signum(), best)
}

/// The largest score: all 64 squares to one side.
const SCORE_MAX: i32 = 64;

/// Empties at or below which the search drops the table and mobility ordering.
const SHALLOW: u32 = 6;

/// The table's size in bits for a position with `empties`: up to 2^20 entries of 24 bytes,
/// 24 MB, from 16 empties (which visit a few hundred thousand positions at the table's
/// depths, so a smaller table loses entries that would be hit again); fewer below, where
/// clearing the table would cost more than the search.
fn table_bits(empties: u32) -> u32 {
    (empties + 4).min(20)
}

/// How often (in positions) the stop flag is read: rarely enough to cost nothing, often
/// enough (a few hundred microseconds) that a stopped search returns at once.
const STOP_CHECK_MASK: u64 = 4095;

/// One table entry: the position in full (so a hit is never a collision), bounds on its
/// score and the move that gave the lower bound (64: none). All zeros is an empty entry
/// (no reachable position has no discs).
#[derive(Clone, Copy, Default)]
struct Entry {
    me: u64,
    opp: u64,
    lower: i8,
    upper: i8,
    best: u8,
}

struct Solver<'a> {
    nodes: u64,
    stop: Option<&'a AtomicBool>,
    stopped: bool,
    table: Vec<Entry>,
    /// 64 less the table's size in bits: the hash's top bits pick the slot.
    shift: u32,
}

impl<'a> Solver<'a> {
    /// A solver, or `None` when `stop` is already set. The table is only allocated when
    /// the position is deep enough to use it.
    fn new(stop: Option<&'a AtomicBool>, empties: u32) -> Option<Solver<'a>> {
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return None;
        }
        let bits = table_bits(empties);
        let size = if empties > SHALLOW { 1 << bits } else { 0 };
        Some(Solver {
            nodes: 0,
            stop,
            stopped: false,
            table: vec![Entry::default(); size],
            shift: 64 - bits,
        })
    }

    fn finish(&self, score: i32, best: Option<Move>) -> Option<Solved> {
        (!self.stopped).then_some(Solved {
            score,
            best,
            nodes: self.nodes,
        })
    }

    /// Counts a position and reads the stop flag every [`STOP_CHECK_MASK`] + 1 of them;
    /// true when the search must unwind.
    #[inline(always)]
    fn visit(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & STOP_CHECK_MASK == 0
            && let Some(stop) = self.stop
            && stop.load(Ordering::Relaxed)
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// The root: like [`Solver::search`], but keeps the best move, which the table may
    /// not hold (it is skipped at few empties and entries are overwritten).
    fn root(&mut self, pos: &Position, alpha: i32, beta: i32) -> (i32, Option<Move>) {
        let (me, opp) = (pos.mover(), pos.opponent());
        let n = empties(pos);
        self.nodes += 1;
        let moves = mobility(me, opp);
        if moves == 0 {
            if mobility(opp, me) == 0 {
                return (final_score(me, opp), None);
            }
            let score = -self.search(opp, me, -beta, -alpha, n);
            return (score, Some(Move::Pass));
        }
        let mut list = MoveList::new();
        list.fill(me, opp, moves, NO_MOVE);
        let (best, best_sq) = self.best_move(&mut list, me, opp, alpha, beta, n);
        (best, Some(Move::Play(best_sq)))
    }

    /// Searches the moves of `list` in order on (alpha, beta): the best score and its
    /// square (the best so far when stopped).
    fn best_move(
        &mut self,
        list: &mut MoveList,
        me: u64,
        opp: u64,
        mut alpha: i32,
        beta: i32,
        n: u32,
    ) -> (i32, u8) {
        let (mut best, mut best_sq) = (-SCORE_MAX - 1, NO_MOVE);
        for i in 0..list.len {
            let (sq, flipped) = list.next_best(i);
            let (child_me, child_opp) = play(me, opp, sq, flipped);
            let score = self.pvs_child(child_me, child_opp, alpha, beta, n - 1, i == 0);
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                best_sq = sq;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_sq)
    }

    /// A child's score from the parent's view: the first move with the full window, the
    /// others with a null window first, searched again only when they may improve alpha.
    #[inline(always)]
    fn pvs_child(&mut self, me: u64, opp: u64, alpha: i32, beta: i32, n: u32, first: bool) -> i32 {
        if first || beta - alpha <= 1 {
            return -self.search(me, opp, -beta, -alpha, n);
        }
        let score = -self.search(me, opp, -alpha - 1, -alpha, n);
        if score > alpha && score < beta && !self.stopped {
            -self.search(me, opp, -beta, -score, n)
        } else {
            score
        }
    }

    /// Fail-soft negamax of `me` to move against `opp` with `n` empties, on (alpha, beta):
    /// a result <= alpha bounds the score from above, >= beta from below, else it is exact.
    fn search(&mut self, me: u64, opp: u64, mut alpha: i32, mut beta: i32, n: u32) -> i32 {
        if n <= SHALLOW {
            return self.shallow(me, opp, alpha, beta, n);
        }
        if self.visit() {
            return 0;
        }
        let moves = mobility(me, opp);
        if moves == 0 {
            if mobility(opp, me) == 0 {
                return final_score(me, opp);
            }
            // A pass: the same position for the other side, not counted twice.
            self.nodes -= 1;
            return -self.search(opp, me, -beta, -alpha, n);
        }

        let slot = table_index(me, opp, self.shift);
        let mut hint = NO_MOVE;
        let entry = self.table[slot];
        if entry.me == me && entry.opp == opp {
            let (lower, upper) = (i32::from(entry.lower), i32::from(entry.upper));
            if lower >= beta {
                return lower;
            }
            if upper <= alpha || lower == upper {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
            hint = entry.best;
        }

        let mut list = MoveList::new();
        list.fill(me, opp, moves, hint);
        let (best, best_sq) = self.best_move(&mut list, me, opp, alpha, beta, n);
        if self.stopped {
            return 0;
        }
        self.store(slot, me, opp, best, alpha, beta, best_sq);
        best
    }

    /// Records what a search on (alpha, beta) returned, merged with what the entry already
    /// knew of the same position.
    #[allow(clippy::too_many_arguments)]
    fn store(&mut self, slot: usize, me: u64, opp: u64, score: i32, alpha: i32, beta: i32, sq: u8) {
        let entry = &mut self.table[slot];
        let (mut lower, mut upper) = if entry.me == me && entry.opp == opp {
            (i32::from(entry.lower), i32::from(entry.upper))
        } else {
            (-SCORE_MAX, SCORE_MAX)
        };
        if score > alpha {
            lower = lower.max(score);
        }
        if score < beta {
            upper = upper.min(score);
        }
        // The move is only worth keeping when it raised alpha (otherwise it is the best of
        // moves that all failed low, no better a first try than the ordering's).
        let same = entry.me == me && entry.opp == opp;
        let best = match (score > alpha, same) {
            (true, _) => sq,
            (false, true) => entry.best,
            (false, false) => NO_MOVE,
        };
        *entry = Entry {
            me,
            opp,
            lower: lower as i8,
            upper: upper as i8,
            best,
        };
    }

    /// The search at few empties: squares in parity order, no table, no mobility counts.
    fn shallow(&mut self, me: u64, opp: u64, mut alpha: i32, beta: i32, n: u32) -> i32 {
        if n == 1 {
            self.nodes += 1;
            return last_one(me, opp, (!(me | opp)).trailing_zeros() as u8);
        }
        if n == 0 {
            self.nodes += 1;
            return final_score(me, opp);
        }
        if self.visit() {
            return 0;
        }
        if n == 2 {
            let empty = !(me | opp);
            let first = empty.trailing_zeros() as u8;
            let second = (63 - empty.leading_zeros()) as u8;
            return self.last_two(me, opp, first, second, alpha, beta, false);
        }
        let empty = !(me | opp);
        let odd = odd_quadrants(empty);
        let mut best = -SCORE_MAX - 1;
        for region in [empty & odd, empty & !odd] {
            for class in SQUARE_CLASSES {
                let mut squares = region & class & neighbours_of(opp);
                while squares != 0 {
                    let sq = squares.trailing_zeros() as u8;
                    squares &= squares - 1;
                    let flipped = flips(me, opp, sq);
                    if flipped == 0 {
                        continue;
                    }
                    let (child_me, child_opp) = play(me, opp, sq, flipped);
                    let score = -self.shallow(child_me, child_opp, -beta, -alpha, n - 1);
                    if self.stopped {
                        return 0;
                    }
                    if score > best {
                        best = score;
                        if score > alpha {
                            alpha = score;
                            if score >= beta {
                                return best;
                            }
                        }
                    }
                }
            }
        }
        if best > -SCORE_MAX - 1 {
            return best;
        }
        // No move: a pass, or the end.
        if mobility(opp, me) == 0 {
            return final_score(me, opp);
        }
        self.nodes -= 1;
        -self.shallow(opp, me, -beta, -alpha, n)
    }
}

impl Solver<'_> {
    /// The score with the two empty squares `a` and `b`, each child scored by
    /// [`last_one`]; `passed` when the opponent has just passed (so a second pass ends
    /// the game).
    #[allow(clippy::too_many_arguments)]
    fn last_two(
        &mut self,
        me: u64,
        opp: u64,
        a: u8,
        b: u8,
        alpha: i32,
        beta: i32,
        passed: bool,
    ) -> i32 {
        let mut best = -SCORE_MAX - 1;
        let flipped = flips(me, opp, a);
        if flipped != 0 {
            let (child_me, child_opp) = play(me, opp, a, flipped);
            self.nodes += 1;
            best = -last_one(child_me, child_opp, b);
            if best >= beta {
                return best;
            }
        }
        let flipped = flips(me, opp, b);
        if flipped != 0 {
            let (child_me, child_opp) = play(me, opp, b, flipped);
            self.nodes += 1;
            best = best.max(-last_one(child_me, child_opp, a));
        }
        if best > -SCORE_MAX - 1 {
            return best;
        }
        if passed {
            return final_score(me, opp);
        }
        -self.last_two(opp, me, a, b, -beta, -alpha, true)
    }
}

/// "No move" in a table entry or move list.
const NO_MOVE: u8 = 64;

/// The four corners.
const CORNERS: u64 = 0x8100_0000_0000_0081;
/// The squares diagonally next to a corner (b2, g2, b7, g7).
const X_SQUARES: u64 = 0x0042_0000_0000_4200;
/// The edge squares next to a corner (b1, g1, a2, h2, a7, h7, b8, g8).
const C_SQUARES: u64 = 0x4281_0000_0000_8142;

/// The fixed order of squares near the leaves: corners, then the rest, then the squares
/// next to corners, which tend to give a corner away.
const SQUARE_CLASSES: [u64; 4] = [
    CORNERS,
    !(CORNERS | X_SQUARES | C_SQUARES),
    C_SQUARES,
    X_SQUARES,
];

/// The squares in the four 4x4 quadrants.
const QUADRANTS: [u64; 4] = [
    0x0000_0000_0F0F_0F0F,
    0x0000_0000_F0F0_F0F0,
    0x0F0F_0F0F_0000_0000,
    0xF0F0_F0F0_0000_0000,
];

/// The quadrants with an odd number of the `empty` squares.
#[inline(always)]
fn odd_quadrants(empty: u64) -> u64 {
    let mut odd = 0;
    for q in QUADRANTS {
        if (empty & q).count_ones() & 1 == 1 {
            odd |= q;
        }
    }
    odd
}

/// The squares next to any of `discs` (a move must be next to an opponent disc).
#[inline(always)]
fn neighbours_of(discs: u64) -> u64 {
    const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
    const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let horizontal = discs | ((discs << 1) & NOT_A) | ((discs >> 1) & NOT_H);
    horizontal | (horizontal << 8) | (horizontal >> 8)
}

/// The position after `me` plays `sq` flipping `flipped`, from the new mover's view.
#[inline(always)]
fn play(me: u64, opp: u64, sq: u8, flipped: u64) -> (u64, u64) {
    (opp ^ flipped, me | flipped | (1 << sq))
}

/// The score of a finished game (the module's convention: empties to the winner).
#[inline]
pub fn final_score(me: u64, opp: u64) -> i32 {
    let (mine, theirs) = (me.count_ones() as i32, opp.count_ones() as i32);
    let diff = mine - theirs;
    let empty = 64 - mine - theirs;
    match diff.signum() {
        1 => diff + empty,
        -1 => diff - empty,
        _ => 0,
    }
}

/// The exact score with one empty square `sq`: the mover plays it if it can, else the
/// opponent does, else the game ends with it empty. Only flips are counted.
#[inline]
fn last_one(me: u64, opp: u64, sq: u8) -> i32 {
    let mine = me.count_ones() as i32;
    let flipped = flips(me, opp, sq).count_ones() as i32;
    if flipped > 0 {
        // The board is full: mine + flipped + 1 discs against the rest of 64.
        return 2 * (mine + flipped + 1) - 64;
    }
    let theirs = opp.count_ones() as i32;
    let flipped = flips(opp, me, sq).count_ones() as i32;
    if flipped > 0 {
        return 64 - 2 * (theirs + flipped + 1);
    }
    // 63 discs: never a draw, and the empty square goes to the winner.
    let diff = mine - theirs;
    if diff > 0 { diff + 1 } else { diff - 1 }
}

/// The moves of one node, ordered lazily: each call takes the best of the rest, since a
/// cut-off usually comes within the first few.
struct MoveList {
    len: usize,
    squares: [u8; 64],
    flips: [u64; 64],
    keys: [i32; 64],
}

impl MoveList {
    #[inline(always)]
    fn new() -> MoveList {
        MoveList {
            len: 0,
            squares: [0; 64],
            flips: [0; 64],
            keys: [0; 64],
        }
    }

    /// The moves in `moves`, each keyed by how good it looks (lower first): the table's
    /// move first, then the fewest replies for the opponent, its corner replies counted
    /// twice, own corners earlier and squares in odd quadrants a little earlier.
    #[inline(always)]
    fn fill(&mut self, me: u64, opp: u64, moves: u64, hint: u8) {
        let odd = odd_quadrants(!(me | opp));
        let mut rest = moves;
        while rest != 0 {
            let sq = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let flipped = flips(me, opp, sq);
            let key = if sq == hint {
                i32::MIN
            } else {
                let (child_me, child_opp) = play(me, opp, sq, flipped);
                let replies = mobility(child_me, child_opp);
                let bit = 1u64 << sq;
                let mut key = 16 * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
                if bit & CORNERS != 0 {
                    key -= 12;
                }
                if bit & odd != 0 {
                    key -= 4;
                }
                key
            };
            self.squares[self.len] = sq;
            self.flips[self.len] = flipped;
            self.keys[self.len] = key;
            self.len += 1;
        }
    }

    /// The `i`th move in order (the moves before it are already taken), moved to slot `i`.
    #[inline(always)]
    fn next_best(&mut self, i: usize) -> (u8, u64) {
        let mut pick = i;
        for j in i + 1..self.len {
            if self.keys[j] < self.keys[pick] {
                pick = j;
            }
        }
        self.squares.swap(i, pick);
        self.flips.swap(i, pick);
        self.keys.swap(i, pick);
        (self.squares[i], self.flips[i])
    }
}

/// The table slot of a position: a multiplicative hash of both bitboards.
#[inline(always)]
fn table_index(me: u64, opp: u64, shift: u32) -> usize {
    let h = me.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ opp.rotate_left(23).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (h >> shift) as usize
}

/// The squares where `me` may play against `opp`: each direction's runs of opponent discs
/// grown by doubling (a run is at most 6 long), as Edax does; a-file and h-file opponent
/// discs are left out of the sideways runs so they cannot wrap to the next rank.
#[inline]
fn mobility(me: u64, opp: u64) -> u64 {
    let inner = opp & 0x7E7E_7E7E_7E7E_7E7E;
    let moves = direction_moves(me, inner, 1)
        | direction_moves(me, opp, 8)
        | direction_moves(me, inner, 7)
        | direction_moves(me, inner, 9);
    moves & !(me | opp)
}

/// The squares just past runs of `opp` from `me` along `shift`, both ways.
#[inline(always)]
fn direction_moves(me: u64, opp: u64, shift: u32) -> u64 {
    let mut up = opp & (me << shift);
    let mut down = opp & (me >> shift);
    up |= opp & (up << shift);
    down |= opp & (down >> shift);
    let pairs_up = opp & (opp << shift);
    let pairs_down = opp & (opp >> shift);
    let double = 2 * shift;
    up |= pairs_up & (up << double);
    down |= pairs_down & (down >> double);
    up |= pairs_up & (up << double);
    down |= pairs_down & (down >> double);
    (up << shift) | (down >> shift)
}

/// For each square, the squares beyond it in each direction to the board's edge: the
/// four directions towards higher squares first (east, north, north-east, north-west),
/// then the four towards lower.
static LINES: [[u64; 8]; 64] = lines();

const fn lines() -> [[u64; 8]; 64] {
    const STEPS: [(i32, i32); 8] = [
        (1, 0),
        (0, 1),
        (1, 1),
        (-1, 1),
        (-1, 0),
        (0, -1),
        (-1, -1),
        (1, -1),
    ];
    let mut out = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (df, dr) = STEPS[d];
            let (mut f, mut r) = (sq as i32 % 8 + df, sq as i32 / 8 + dr);
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                out[sq][d] |= 1 << (r * 8 + f);
                f += df;
                r += dr;
            }
            d += 1;
        }
        sq += 1;
    }
    out
}

/// The opponent discs `me` flips by playing on empty `sq`. Along a line towards higher
/// squares, the first square that is not an opponent disc is the lowest bit of the line
/// without them; if it is `me`'s, every line square below it flips. Towards lower squares
/// the same with the highest bit.
#[inline(always)]
fn flips(me: u64, opp: u64, sq: u8) -> u64 {
    let lines = &LINES[sq as usize];
    let mut flipped = 0;
    for &line in &lines[..4] {
        let stop = line & !opp;
        let first = stop & stop.wrapping_neg();
        if first & me != 0 {
            flipped |= (first - 1) & line;
        }
    }
    for &line in &lines[4..] {
        let stop = line & !opp;
        if stop != 0 {
            let first = 1u64 << (63 - stop.leading_zeros());
            if first & me != 0 {
                flipped |= line & !((first << 1) - 1);
            }
        }
    }
    flipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::othello::Color;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// What the plain minimax saw, so the tests can insist the hard cases were exercised.
    #[derive(Default)]
    struct Seen {
        passes: u64,
        early_ends: u64,
    }

    /// The reference: exhaustive minimax through the rules' own Position API, scored by
    /// the same convention (empties to the winner), written independently of the solver.
    fn minimax(pos: &Position, seen: &mut Seen) -> i32 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            let me = pos.count(pos.turn()) as i32;
            let them = pos.count(pos.turn().opposite()) as i32;
            let empty = 64 - me - them;
            if empty > 0 {
                seen.early_ends += 1;
            }
            return if me > them {
                me - them + empty
            } else if me < them {
                me - them - empty
            } else {
                0
            };
        }
        if moves == [Move::Pass] {
            seen.passes += 1;
        }
        moves
            .iter()
            .map(|&mv| -minimax(&pos.apply(mv), seen))
            .max()
            .unwrap()
    }

    /// A random playout from the start to `target` empties with the game still going, or
    /// `None` when the game ended first.
    fn playout(rng: &mut StdRng, target: u32) -> Option<Position> {
        let mut pos = Position::start();
        while empties(&pos) > target {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                return None;
            }
            pos = pos.apply(moves[rng.random_range(0..moves.len())]);
        }
        (!pos.is_terminal()).then_some(pos)
    }

    fn random_positions(
        seed: u64,
        count: usize,
        empties: std::ops::RangeInclusive<u32>,
    ) -> Vec<Position> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let target = rng.random_range(empties.clone());
            if let Some(pos) = playout(&mut rng, target) {
                out.push(pos);
            }
        }
        out
    }

    #[test]
    fn flips_and_mobility_match_the_rules() {
        for pos in random_positions(11, 300, 1..=58) {
            let (me, opp) = (pos.mover(), pos.opponent());
            assert_eq!(mobility(me, opp), pos.legal_moves_mask());
            assert_eq!(mobility(opp, me), pos.opponent_moves_mask());
            for sq in 0..64u8 {
                if pos.empty() & (1 << sq) != 0 {
                    let expected = crate::games::othello::moves::flips(me, opp, sq);
                    assert_eq!(flips(me, opp, sq), expected, "{pos:?} at {sq}");
                }
            }
        }
    }

    #[test]
    fn solve_matches_minimax_on_random_endgames() {
        let mut seen = Seen::default();
        let mut wins_losses_draws = [0; 3];
        let positions: Vec<Position> = random_positions(1, 240, 6..=8)
            .into_iter()
            .chain(random_positions(2, 40, 9..=10))
            .collect();
        for pos in &positions {
            let expected = minimax(pos, &mut seen);
            let solved = solve(pos, None).unwrap();
            assert_eq!(solved.score, expected, "{pos:?}");
            assert!(solved.nodes > 0);
            wins_losses_draws[(expected.signum() + 1) as usize] += 1;
            let wld = solve_wld(pos, None).unwrap();
            assert_eq!(wld.score, expected.signum(), "{pos:?}");
            // The best moves achieve what they claim.
            let best = solved.best.expect("the game is not over");
            assert!(pos.is_legal(best));
            assert_eq!(-solve(&pos.apply(best), None).unwrap().score, expected);
            let best = wld.best.expect("the game is not over");
            assert!(pos.is_legal(best));
            assert_eq!(
                -minimax(&pos.apply(best), &mut Seen::default()).signum(),
                expected.signum()
            );
        }
        // Not a trivial pass: passes and games ending with empties were in the trees, and
        // every result occurred.
        assert!(
            seen.passes > 100 && seen.early_ends > 100,
            "{} passes, {} early ends",
            seen.passes,
            seen.early_ends
        );
        assert!(
            wins_losses_draws.iter().all(|&n| n > 0),
            "{wins_losses_draws:?}"
        );
    }

    #[test]
    fn positions_that_must_pass_or_are_over() {
        // White to move on a1..c1 = Black, White, empty: White must pass, then Black takes
        // c1 and owns the board's three discs: 0 - 3, and the 61 empties go to Black.
        let pass = Position::from_discs(1, 2, Color::White).unwrap();
        let solved = solve(&pass, None).unwrap();
        assert_eq!(solved.best, Some(Move::Pass));
        assert_eq!(solved.score, -64);
        assert_eq!(solve_wld(&pass, None).unwrap().score, -1);
        // Over with empties: 1 disc each is a draw; 2 to 1 takes the 61 empties.
        let draw = Position::from_discs(1, 1 << 63, Color::White).unwrap();
        let solved = solve(&draw, None).unwrap();
        assert_eq!((solved.score, solved.best), (0, None));
        let over = Position::from_discs(1 | (1 << 63), 1 << 7, Color::White).unwrap();
        // White to move: 1 - 2 discs, and the 61 empties to Black.
        assert_eq!(solve(&over, None).unwrap().score, -62);
        // A full board.
        let full = Position::from_discs(u64::MAX >> 20, !(u64::MAX >> 20), Color::Black).unwrap();
        let solved = solve(&full, None).unwrap();
        assert_eq!((solved.score, solved.best), (44 - 20, None));
    }

    #[test]
    fn deeper_positions_agree_between_solve_and_wld() {
        // Beyond minimax's reach: the exact solver and the null-window one must agree, and
        // the best move's child must give back the score.
        for pos in random_positions(3, 12, 12..=14) {
            let solved = solve(&pos, None).unwrap();
            let wld = solve_wld(&pos, None).unwrap();
            assert_eq!(wld.score, solved.score.signum(), "{pos:?}");
            assert!(wld.nodes <= solved.nodes, "the null window is no slower");
            let child = pos.apply(solved.best.unwrap());
            assert_eq!(-solve(&child, None).unwrap().score, solved.score);
        }
    }

    #[test]
    fn stop_flag_returns_none() {
        let pos = random_positions(4, 1, 22..=22)[0];
        let set = AtomicBool::new(true);
        assert_eq!(solve(&pos, Some(&set)), None);
        assert_eq!(solve_wld(&pos, Some(&set)), None);
        // Set while the search runs: 22 empties take far longer than the delay.
        let stop = AtomicBool::new(false);
        let started = std::time::Instant::now();
        let result = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(50));
                stop.store(true, Ordering::Relaxed);
            });
            solve(&pos, Some(&stop))
        });
        assert_eq!(result, None);
        assert!(started.elapsed().as_secs_f64() < 5.0);
        // A flag that stays clear changes nothing.
        let clear = AtomicBool::new(false);
        let small = random_positions(5, 1, 8..=8)[0];
        assert_eq!(
            solve(&small, Some(&clear)).unwrap().score,
            solve(&small, None).unwrap().score
        );
    }
}

/// Empties at which searches take a position's value from a solve at every node (a few
/// microseconds: no table below 7 empties).
pub const EXACT_EMPTIES: u32 = 6;

/// Othello's perfect endgames as an oracle: exact values at [`EXACT_EMPTIES`], the perfect
/// move from [`DEFAULT_EMPTIES`].
#[derive(Clone, Copy, Debug)]
pub struct Endgame;

fn exact_of(score: i32) -> super::Exact {
    let value = match score.signum() {
        1 => super::Value::Win,
        -1 => super::Value::Loss,
        _ => super::Value::Draw,
    };
    super::Exact { value, distance: 0 }
}

impl super::Perfect<crate::games::Othello> for Endgame {
    fn exact(&self, pos: &Position, _quiet: u32) -> Option<super::Exact> {
        if empties(pos) > EXACT_EMPTIES {
            return None;
        }
        solve_wld(pos, None).map(|s| exact_of(s.score))
    }

    fn perfect_move(
        &self,
        pos: &Position,
        _quiet: u32,
        stop: Option<&AtomicBool>,
    ) -> Option<(Move, super::Exact)> {
        if empties(pos) > DEFAULT_EMPTIES {
            return None;
        }
        let solved = solve(pos, stop)?;
        Some((solved.best?, exact_of(solved.score)))
    }

    fn plies_until_perfect(&self, pos: &Position) -> Option<u32> {
        Some(empties(pos).saturating_sub(DEFAULT_EMPTIES))
    }

    fn describe(&self, pos: &Position, _quiet: u32) -> Option<String> {
        if empties(pos) > DEFAULT_EMPTIES {
            return None;
        }
        let score = solve(pos, None)?.score;
        let mover = pos.turn();
        Some(match score.signum() {
            0 => "exact: a draw".to_string(),
            1 => format!("exact: {mover} wins by {score} discs"),
            _ => format!("exact: {} wins by {} discs", mover.opposite(), -score),
        })
    }
}
