//! The hop-level view of the game that MCTS and the network act in (docs/ARCHITECTURE.md, "The
//! network acts in hops"): a turn is one hop (a step) or a sequence of jumps by the same piece,
//! each jump a separate action. A [`HopState`] is a position part-way through a turn: the mover's
//! piece has already moved, the pieces it jumped are still on the board (they block landings and
//! cannot be jumped twice, as in the move generator) and are removed when the turn ends.

use super::board::{Bitboard, Dir, Squares, jump_landing, neighbour};
use super::movegen::jumpers;
use super::{Color, Move, Position};

/// One hop: the piece on `from` (0-based square) steps or jumps in `dir`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Hop {
    pub from: u8,
    pub dir: Dir,
}

/// A position at a hop boundary: a turn start, or part-way through a multi-jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct HopState {
    /// The board with the jumping piece on its current square and the jumped pieces still on
    /// it; the side to move is the side making the turn.
    pos: Position,
    /// The square of the piece that must continue a multi-jump.
    jumping: Option<u8>,
    /// Opponent pieces jumped so far this turn.
    captured: Bitboard,
}

impl HopState {
    /// The start of a turn in `pos`.
    pub const fn turn_start(pos: Position) -> HopState {
        HopState {
            pos,
            jumping: None,
            captured: 0,
        }
    }

    pub const fn position(&self) -> &Position {
        &self.pos
    }

    pub const fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// The square of the piece that must continue a multi-jump, if the turn is under way.
    pub const fn jumping(&self) -> Option<u8> {
        self.jumping
    }

    /// Opponent pieces jumped so far this turn (still on the board until it ends).
    pub const fn captured(&self) -> Bitboard {
        self.captured
    }

    /// The colour mirror (see [`Position::mirrored`]): the same state seen by the other
    /// side, the jumping piece and the jumped pieces moved with the board.
    pub fn mirrored(&self) -> HopState {
        HopState {
            pos: self.pos.mirrored(),
            jumping: self.jumping.map(|sq| 31 - sq),
            captured: self.captured.reverse_bits(),
        }
    }

    pub const fn is_turn_start(&self) -> bool {
        self.jumping.is_none()
    }

    pub fn is_king(&self, sq: u8) -> bool {
        self.pos.kings() & (1u32 << sq) != 0
    }

    /// True if `hop` (legal here) jumps: its first square holds an opponent piece.
    pub fn is_jump(&self, hop: Hop) -> bool {
        neighbour(hop.from, hop.dir).is_some_and(|over| self.pos.occupied() & (1u32 << over) != 0)
    }

    /// The directions the piece on `sq` may move in.
    fn dirs(&self, sq: u8) -> &'static [Dir] {
        if self.is_king(sq) {
            &Dir::ALL
        } else {
            match self.turn() {
                Color::Black => &Dir::SOUTH,
                Color::White => &Dir::NORTH,
            }
        }
    }

    /// The jumps open to the piece on `sq`.
    fn jumps_from(&self, sq: u8) -> impl Iterator<Item = Hop> + '_ {
        let opp = self.pos.pieces(self.turn().opposite()) & !self.captured;
        let empty = self.pos.empty();
        self.dirs(sq).iter().filter_map(move |&dir| {
            let over = neighbour(sq, dir)?;
            let land = jump_landing(sq, dir)?;
            (opp & (1u32 << over) != 0 && empty & (1u32 << land) != 0)
                .then_some(Hop { from: sq, dir })
        })
    }

    /// Appends every legal hop (none when the side to move has lost).
    pub fn legal_hops(&self, out: &mut Vec<Hop>) {
        if let Some(sq) = self.jumping {
            return out.extend(self.jumps_from(sq));
        }
        let jumping = jumpers(&self.pos);
        if jumping != 0 {
            return out.extend(Squares(jumping).flat_map(|sq| self.jumps_from(sq)));
        }
        let empty = self.pos.empty();
        for sq in Squares(self.pos.pieces(self.turn())) {
            for &dir in self.dirs(sq) {
                if neighbour(sq, dir).is_some_and(|to| empty & (1u32 << to) != 0) {
                    out.push(Hop { from: sq, dir });
                }
            }
        }
    }

    /// The legal hops in a new vector.
    pub fn hops(&self) -> Vec<Hop> {
        let mut out = Vec::with_capacity(16);
        self.legal_hops(&mut out);
        out
    }

    /// The state after `hop`, which must be legal here. The turn ends after a step, after a
    /// jump that crowns a man, and after a jump the piece cannot continue.
    pub fn apply(&self, hop: Hop) -> HopState {
        let turn = self.turn();
        if !self.is_jump(hop) {
            let to = neighbour(hop.from, hop.dir).expect("a legal step stays on the board");
            return HopState::turn_start(self.pos.apply(&Move::step(hop.from, to)));
        }
        let over = neighbour(hop.from, hop.dir).expect("a legal jump stays on the board");
        let land = jump_landing(hop.from, hop.dir).expect("a legal jump stays on the board");
        let was_man = !self.is_king(hop.from);
        // `apply` of a step-shaped move just relocates the piece (and crowns it on the far
        // row); the turn stays with the jumper until the jump ends.
        let moved = HopState {
            pos: self.pos.apply(&Move::step(hop.from, land)).with_turn(turn),
            jumping: Some(land),
            captured: self.captured | (1u32 << over),
        };
        let crowned = was_man && (1u32 << land) & turn.crown_row() != 0;
        if !crowned && moved.jumps_from(land).next().is_some() {
            return moved;
        }
        moved.end_turn()
    }

    /// Removes the jumped pieces and passes the turn.
    fn end_turn(&self) -> HopState {
        let cap = self.captured;
        let p = &self.pos;
        let (black, white) = (p.pieces(Color::Black), p.pieces(Color::White));
        let pos = Position::from_bitboards(
            black & !cap,
            white & !cap,
            p.kings() & !cap,
            self.turn().opposite(),
        )
        .expect("removing pieces keeps a position valid");
        HopState::turn_start(pos)
    }
}

/// The hops of a whole move, in order.
pub fn hops_of(mv: &Move) -> Vec<Hop> {
    let mut at = mv.from();
    mv.path()
        .iter()
        .map(|&land| {
            let dir = Dir::ALL
                .into_iter()
                .find(|&d| {
                    let target = if mv.is_capture() {
                        jump_landing(at, d)
                    } else {
                        neighbour(at, d)
                    };
                    target == Some(land)
                })
                .expect("a move's path is made of diagonal hops");
            let hop = Hop { from: at, dir };
            at = land;
            hop
        })
        .collect()
}

/// The move among `moves` made of exactly these hops from a turn start.
pub fn move_of_hops<'a>(moves: &'a [Move], hops: &[Hop]) -> Option<&'a Move> {
    moves.iter().find(|m| hops_of(m) == hops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::{legal_moves, parse_fen};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Every complete hop sequence from a turn start: (hops, resulting position).
    fn all_turns(state: HopState) -> Vec<(Vec<Hop>, Position)> {
        let mut out = Vec::new();
        let mut stack = vec![(state, Vec::new())];
        while let Some((s, hops)) = stack.pop() {
            for hop in s.hops() {
                let next = s.apply(hop);
                let mut seq = hops.clone();
                seq.push(hop);
                if next.is_turn_start() {
                    assert_ne!(next.turn(), state.turn(), "a finished turn passes the move");
                    out.push((seq, *next.position()));
                } else {
                    assert_eq!(next.turn(), state.turn(), "a multi-jump keeps the mover");
                    stack.push((next, seq));
                }
            }
        }
        out
    }

    fn assert_turns_match_moves(pos: &Position) {
        let mut from_hops = all_turns(HopState::turn_start(*pos));
        let mut from_moves: Vec<(Vec<Hop>, Position)> = legal_moves(pos)
            .iter()
            .map(|m| (hops_of(m), pos.apply(m)))
            .collect();
        let key = |t: &(Vec<Hop>, Position)| {
            t.0.iter()
                .map(|h| (h.from, h.dir.index()))
                .collect::<Vec<_>>()
        };
        from_hops.sort_by_key(key);
        from_moves.sort_by_key(key);
        assert_eq!(
            from_hops,
            from_moves,
            "{}",
            crate::games::checkers::to_fen(pos)
        );
    }

    /// A random position with men and kings anywhere a man could stand.
    fn random_position(rng: &mut StdRng) -> Position {
        let (mut black, mut white, mut kings) = (0u32, 0u32, 0u32);
        let density = rng.random_range(0.15..0.6);
        for sq in 0..32 {
            if !rng.random_bool(density) {
                continue;
            }
            let bit = 1u32 << sq;
            if rng.random_bool(0.5) {
                black |= bit;
            } else {
                white |= bit;
            }
            if rng.random_bool(0.3) {
                kings |= bit;
            }
        }
        let turn = if rng.random_bool(0.5) {
            Color::Black
        } else {
            Color::White
        };
        Position::from_bitboards(black, white, kings, turn).unwrap()
    }

    #[test]
    fn hop_sequences_reproduce_legal_moves_on_random_positions() {
        let mut rng = StdRng::seed_from_u64(4);
        let mut captures = 0;
        for _ in 0..3000 {
            let pos = random_position(&mut rng);
            captures += legal_moves(&pos).iter().any(|m| m.path().len() > 1) as u32;
            assert_turns_match_moves(&pos);
        }
        // The sample must exercise multi-jumps, or the test proves little.
        assert!(captures > 100, "only {captures} positions with multi-jumps");
    }

    #[test]
    fn hop_sequences_reproduce_legal_moves_along_random_games() {
        let mut rng = StdRng::seed_from_u64(5);
        for _ in 0..200 {
            let mut pos = Position::start();
            for _ in 0..120 {
                assert_turns_match_moves(&pos);
                let moves = legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                pos = pos.apply(&moves[rng.random_range(0..moves.len())]);
            }
        }
    }

    #[test]
    fn a_king_multi_jump_is_a_sequence_of_hops_by_one_piece() {
        // White king on 10 can take 14, 22 and 23 (routes over the same pieces both ways round).
        let pos = parse_fen("W:WK10:B14,15,22,23").unwrap();
        assert_turns_match_moves(&pos);
        let moves = legal_moves(&pos);
        let long = moves.iter().max_by_key(|m| m.path().len()).unwrap();
        let mut state = HopState::turn_start(pos);
        for (i, hop) in hops_of(long).into_iter().enumerate() {
            assert!(state.hops().contains(&hop));
            state = state.apply(hop);
            if i + 1 < long.path().len() {
                assert_eq!(state.jumping(), Some(long.path()[i]));
                assert_eq!(state.captured().count_ones() as usize, i + 1);
            }
        }
        assert_eq!(*state.position(), pos.apply(long));
        assert_eq!(move_of_hops(&moves, &hops_of(long)), Some(long));
    }
}
