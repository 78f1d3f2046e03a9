//! Checkers' part of the alpha-beta search: the `alphabeta` agent's evaluation (material,
//! or material with the classic positional terms), and the game's search knobs (the capture
//! extension, captures and crowning first).
//!
//! The classic terms are those the hand-made checkers programs score (Samuel's, Chinook's
//! published description, and the many since), each the mover's minus the opponent's:
//! a guarded back rank, men and kings in the centre, kings kept off the edges, mobility,
//! men advancing once the board thins out (tempo), runaway men that nothing can stop
//! from crowning, kings with no move, and trading down when ahead. Each side's terms are
//! computed for Black on the position as that side sees it (the colour mirror), so the
//! score is the same whoever moves.

use super::AgentError;
use super::alphabeta::{AgentEval, MAN, SearchGame, StaticEval};
use super::checkers_patterns::CheckersPatterns;
use super::kinds::{self, AgentKind, LimitOptions};
use super::settings::CheckersEvalKind;
use crate::games::Checkers;
use crate::games::checkers::board::{Bitboard, Dir, ROW_1_TO_4, shift};
use crate::games::checkers::movegen::generate;
use crate::games::checkers::{Color, Move, Position, dedup_routes};

/// The classic terms' weights, in the search's units (`MAN` = 100 is one man). Together
/// they stay well under a man in ordinary positions, so material still decides trades.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassicWeights {
    /// Per man on its own back rank while the opponent still has men to crown.
    pub back_rank: i32,
    /// Per man on one of the four centre squares (14, 15, 18, 19).
    pub centre_man: i32,
    /// Per king on one of the four centre squares or the eight around them.
    pub centre_king: i32,
    /// Per king on a side edge (squares 4, 5, 12, 13, 20, 21, 28, 29), where it has two
    /// moves (a cost).
    pub edge_king: i32,
    /// Per non-capturing step a side's pieces could make.
    pub mobility: i32,
    /// Per king with no step to make (a cost).
    pub trapped_king: i32,
    /// Per row a man has advanced, once no more than `ENDING_PIECES` are left.
    pub tempo: i32,
    /// A man whose way to the crowning row no opposing piece can block: `runaway`, less
    /// `runaway_row` per row still to go.
    pub runaway: i32,
    pub runaway_row: i32,
    /// When ahead in material: this share of the lead (in per mille) per piece fewer than
    /// the 24 of the start, so trades are welcome to the side ahead.
    pub trade_per_mille: i32,
}

/// How many classic terms there are: the weights' fields, in order.
pub const TERMS: usize = 10;

impl ClassicWeights {
    /// The weights set by hand from the hand-made programs' practice.
    pub const HAND: ClassicWeights = ClassicWeights {
        back_rank: 8,
        centre_man: 5,
        centre_king: 6,
        edge_king: 8,
        mobility: 2,
        trapped_king: 25,
        tempo: 3,
        runaway: 60,
        runaway_row: 8,
        trade_per_mille: 12,
    };

    /// The weights in field order.
    pub fn to_array(self) -> [i32; TERMS] {
        let w = self;
        [
            w.back_rank,
            w.centre_man,
            w.centre_king,
            w.edge_king,
            w.mobility,
            w.trapped_king,
            w.tempo,
            w.runaway,
            w.runaway_row,
            w.trade_per_mille,
        ]
    }

    pub fn from_array(a: [i32; TERMS]) -> ClassicWeights {
        let [
            back_rank,
            centre_man,
            centre_king,
            edge_king,
            mobility,
            trapped_king,
            tempo,
            runaway,
            runaway_row,
            trade_per_mille,
        ] = a;
        ClassicWeights {
            back_rank,
            centre_man,
            centre_king,
            edge_king,
            mobility,
            trapped_king,
            tempo,
            runaway,
            runaway_row,
            trade_per_mille,
        }
    }
}

/// Pieces on the board at most for the ending's terms.
const ENDING_PIECES: u32 = 12;

/// Squares 14, 15, 18, 19 (bits 13, 14, 17, 18).
const CENTRE: Bitboard = (1 << 13) | (1 << 14) | (1 << 17) | (1 << 18);
/// The centre and squares 10-12 and 22-24 beside it.
const NEAR_CENTRE: Bitboard = CENTRE | (0b111 << 9) | (0b111 << 21);
/// Squares 4, 5, 12, 13, 20, 21, 28, 29: the left and right edges.
const SIDE_EDGES: Bitboard = 0x1818_1818;

/// Every square a Black man on each square could still reach going south (its forward
/// cone): where an opposing piece could stand in its way.
const CONES: [Bitboard; 32] = cones();

const fn cones() -> [Bitboard; 32] {
    let mut cones = [0; 32];
    let mut sq = 32;
    while sq > 0 {
        sq -= 1;
        let here: Bitboard = 1 << sq;
        let mut cone = 0;
        let mut front = here;
        while front != 0 {
            front = shift(front, Dir::SouthWest) | shift(front, Dir::SouthEast);
            cone |= front;
        }
        cones[sq] = cone;
    }
    cones
}

/// Alpha-beta's leaf score for checkers: man 100, king `king_value`, own minus the
/// opponent's, and with `kind` classic the positional terms above.
pub struct CheckersEval {
    kind: CheckersEvalKind,
    king_weight: f32,
    king_value: i32,
    /// The pattern evaluation's table entries, reused from leaf to leaf.
    scratch: Vec<u32>,
}

impl CheckersEval {
    /// The evaluation `kind` with a king worth `king_weight` men, checked as a spec's
    /// `king=` would be (evaluators may come from code).
    pub fn new(kind: CheckersEvalKind, king_weight: f32) -> Result<CheckersEval, AgentError> {
        kinds::alphabeta::KING.check(&kinds::CHECKERS_ALPHABETA, king_weight)?;
        Ok(CheckersEval {
            kind,
            king_weight,
            king_value: (king_weight * MAN as f32).round() as i32,
            scratch: Vec::new(),
        })
    }

    /// A king's value in the search's units.
    pub fn king_value(&self) -> i32 {
        self.king_value
    }
}

/// Non-capturing steps the pieces `men` (moving south) and `kings` could make into `empty`,
/// and the kings among them that have none.
fn steps(men: Bitboard, kings: Bitboard, empty: Bitboard) -> (i32, u32) {
    let mut count = 0;
    let mut free_kings = 0;
    for dir in Dir::ALL {
        let back = dir.opposite();
        let movers = if matches!(dir, Dir::SouthWest | Dir::SouthEast) {
            men | kings
        } else {
            kings
        };
        let open = shift(empty, back) & movers;
        count += open.count_ones() as i32;
        free_kings |= open & kings;
    }
    (count, (kings & !free_kings).count_ones())
}

/// Black's classic terms in `pos` (the side to move does not matter), in the weights'
/// order, each signed as the weight counts it (costs negative); the trade term is left 0.
fn black_terms(pos: &Position, pieces: u32) -> [i32; TERMS] {
    let (men, kings) = (pos.men(Color::Black), pos.kings_of(Color::Black));
    let their_pieces = pos.pieces(Color::White);
    let mut t = [0; TERMS];
    if pos.men(Color::White) != 0 {
        t[0] = (men & ROW_1_TO_4).count_ones() as i32;
    }
    t[1] = (men & CENTRE).count_ones() as i32;
    t[2] = (kings & NEAR_CENTRE).count_ones() as i32;
    t[3] = -((kings & SIDE_EDGES).count_ones() as i32);
    let (moves, trapped) = steps(men, kings, pos.empty());
    t[4] = moves;
    t[5] = -(trapped as i32);
    let mut m = men;
    while m != 0 {
        let sq = m.trailing_zeros() as usize;
        m &= m - 1;
        let row = (sq / 4) as i32;
        if pieces <= ENDING_PIECES {
            t[6] += row;
        }
        if CONES[sq] & their_pieces == 0 {
            t[7] += 1;
            t[8] -= 7 - row;
        }
    }
    t
}

/// The side to move's lead in material, a man `MAN` and a king `king_value`.
pub fn material_lead(pos: &Position, king_value: i32) -> i32 {
    let material = |c: Color| {
        pos.men(c).count_ones() as i32 * MAN + pos.kings_of(c).count_ones() as i32 * king_value
    };
    material(pos.turn()) - material(pos.turn().opposite())
}

/// The classic terms of `pos` for the side to move, its own minus its opponent's, given
/// its material `lead`: the score is the lead plus the weights times the terms, the trade
/// term (the lead times the pieces gone) counted in per mille.
pub fn classic_terms(pos: &Position, lead: i32) -> [i32; TERMS] {
    let me = pos.turn();
    let pieces = pos.occupied().count_ones();
    // Each side's terms as Black: the colour mirror turns White into Black.
    let (black, white) = (
        black_terms(pos, pieces),
        black_terms(&pos.mirrored(), pieces),
    );
    let (mine, theirs) = if me == Color::Black {
        (black, white)
    } else {
        (white, black)
    };
    let mut terms: [i32; TERMS] = std::array::from_fn(|i| mine[i] - theirs[i]);
    terms[TERMS - 1] = lead * (24 - pieces.min(24) as i32);
    terms
}

/// The score of a position's lead and classic terms under `weights`.
pub fn classic_score(weights: &ClassicWeights, lead: i32, terms: &[i32; TERMS]) -> i32 {
    let w = weights.to_array();
    let positional: i32 = (0..TERMS - 1).map(|i| w[i] * terms[i]).sum();
    lead + positional + w[TERMS - 1] * terms[TERMS - 1] / 1000
}

impl StaticEval<Checkers> for CheckersEval {
    fn evaluate(&mut self, pos: &Position) -> i32 {
        let weights = match self.kind {
            CheckersEvalKind::Material => return material_lead(pos, self.king_value),
            // Its own piece values: `king` plays no part.
            CheckersEvalKind::Patterns => {
                return CheckersPatterns::shipped().score(pos, &mut self.scratch);
            }
            CheckersEvalKind::Classic => &ClassicWeights::HAND,
        };
        let lead = material_lead(pos, self.king_value);
        classic_score(weights, lead, &classic_terms(pos, lead))
    }
}

impl AgentEval<Checkers> for CheckersEval {
    const KIND: &'static AgentKind = &kinds::CHECKERS_ALPHABETA;
    const LIMITS: &'static LimitOptions = &kinds::alphabeta::CHECKERS_LIMITS;

    fn options(&self) -> Vec<(&'static str, Option<String>)> {
        vec![
            kinds::alphabeta::EVAL.with(Some(self.kind)),
            kinds::alphabeta::KING.with(Some(self.king_weight)),
        ]
    }
}

impl SearchGame for Checkers {
    /// From-square by to-square of a step.
    const HISTORY_SLOTS: usize = 32 * 32;

    fn distinct_moves_into(pos: &Position, out: &mut Vec<Move>) {
        out.clear();
        generate(pos, out);
        dedup_routes(out);
    }

    /// A pending capture: material is about to change, so it is searched out. Captures
    /// are compulsory, so the first move tells.
    fn unsettled(_pos: &Position, moves: &[Move]) -> bool {
        moves[0].is_capture()
    }

    /// Captures (all or none of a position's moves) by pieces taken, then a man's step to
    /// the crowning row.
    fn urgency(pos: &Position, mv: &Move) -> u32 {
        if mv.is_capture() {
            1 + mv.captured().count_ones()
        } else if pos.kings() & (1 << mv.from()) == 0
            && (1 << mv.to()) & pos.turn().crown_row() != 0
        {
            1
        } else {
            0
        }
    }

    /// Steps by from and to squares; captures are ordered by what they take instead.
    fn history_slot(mv: &Move) -> Option<usize> {
        (!mv.is_capture()).then(|| mv.from() as usize * 32 + mv.to() as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::{legal_moves, parse_fen};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn classic() -> CheckersEval {
        CheckersEval::new(CheckersEvalKind::Classic, 1.5).expect("a valid king value")
    }

    /// The same situation seen by the other side scores the same: the colour mirror of any
    /// position reached in random play.
    #[test]
    fn the_classic_score_is_the_same_for_either_colour() {
        let mut rng = StdRng::seed_from_u64(5);
        for _ in 0..200 {
            let mut pos = Position::start();
            for _ in 0..rng.random_range(0..60) {
                let moves = legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                pos = pos.apply(&moves[rng.random_range(0..moves.len())]);
            }
            assert_eq!(
                classic().evaluate(&pos),
                classic().evaluate(&pos.mirrored()),
                "{pos:?}"
            );
        }
    }

    /// Each term pulls the way the hand-made programs meant it to, other things equal.
    #[test]
    fn the_terms_point_the_right_way() {
        let score = |fen: &str| classic().evaluate(&parse_fen(fen).expect("a FEN"));
        // A Black man two steps from crowning with nothing in its way, against the same
        // man with the White king standing in front of it.
        assert!(score("B:WK1:B25") > score("B:WK30:B25"), "a runaway man");
        // A king in the centre against the same king on the edge.
        assert!(score("B:WK1:BK15") > score("B:WK1:BK12"), "a central king");
        // Material still decides: a man up outweighs the positional terms.
        assert!(
            score("B:WK1,K2:B25") < score("B:WK1:B5,6"),
            "material first"
        );
    }

    /// Material scores nothing but men and kings.
    #[test]
    fn material_is_men_and_kings() {
        let mut eval = CheckersEval::new(CheckersEvalKind::Material, 1.5).unwrap();
        let pos = parse_fen("B:W5,K2:B25,26,27").unwrap();
        assert_eq!(eval.evaluate(&pos), 3 * MAN - MAN - 150);
    }
}
