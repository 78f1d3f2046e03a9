//! Othello under [`Rules`]. A turn is one action, so states are positions and actions are
//! moves; no position can recur (every placement adds a disc, and a pass is followed by a
//! placement or ends the game), so there are no draws by history.

use super::moves::Move;
use super::notation::{move_to_text, parse_move, parse_position, to_text};
use super::position::{Color, Outcome, Position};
use super::symmetry::Symmetry;
use crate::games::GameName;
use crate::games::rules::{NetInput, Rules};
use crate::games::side::{DrawReason, NotationError, WinReason};

/// Othello (Reversi on 8x8, Black first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Othello;

/// The input planes: own discs, opponent discs, the squares the mover may play, and ones
/// (lets convolutions, which pad with zeros, find the board's edge). Cell `sq` of a plane is
/// square `sq` (a1 = 0, h8 = 63); the rules are the same for both colours, so the board
/// needs no turning for White.
const PLANES: usize = 4;
const CELLS: usize = 64;
/// The policy index of a pass, after the 64 squares'.
const PASS_INDEX: usize = 64;

impl Rules for Othello {
    const NAME: GameName = GameName::Othello;

    type Position = Position;
    type Move = Move;

    fn start() -> Position {
        Position::start()
    }

    fn legal_moves(pos: &Position) -> Vec<Move> {
        pos.legal_moves()
    }

    fn apply_move(pos: &Position, mv: &Move) -> Position {
        pos.apply(*mv)
    }

    fn move_is_irreversible(_pos: &Position, _mv: &Move) -> bool {
        true
    }

    /// More discs wins (a game cannot outlast 60 placements and its passes, so a cap rarely
    /// cuts one short).
    fn adjudicate(pos: &Position) -> Outcome {
        let (black, white) = (pos.count(Color::Black), pos.count(Color::White));
        match black.cmp(&white) {
            std::cmp::Ordering::Greater => Outcome::Win(Color::Black, WinReason::Adjudication),
            std::cmp::Ordering::Less => Outcome::Win(Color::White, WinReason::Adjudication),
            std::cmp::Ordering::Equal => Outcome::Draw(DrawReason::Adjudication),
        }
    }

    /// Discs; a lead of 16 is tanh(1), 0.76.
    fn material_lead(pos: &Position, side: Color) -> f32 {
        ((pos.count(side) as f32 - pos.count(side.opposite()) as f32) / 16.0).tanh()
    }

    fn hash(pos: &Position) -> u64 {
        pos.hash()
    }

    fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
        parse_move(pos, text)
    }

    fn format_move(mv: &Move) -> String {
        move_to_text(*mv)
    }

    fn parse_position(text: &str) -> Result<Position, NotationError> {
        parse_position(text)
    }

    fn format_position(pos: &Position) -> String {
        to_text(pos)
    }

    type State = Position;
    type Action = Move;

    fn turn_start(pos: &Position) -> Position {
        *pos
    }

    fn position(state: &Position) -> Option<Position> {
        Some(*state)
    }

    fn turn(state: &Position) -> Color {
        state.turn()
    }

    fn legal_actions(state: &Position, out: &mut Vec<Move>) {
        state.legal_moves_into(out)
    }

    fn apply(state: &Position, action: Move) -> Position {
        state.apply(action)
    }

    fn outcome(state: &Position) -> Option<Outcome> {
        state.outcome()
    }

    fn actions_of(_pos: &Position, mv: &Move) -> Vec<Move> {
        vec![*mv]
    }

    const QUIET_DRAW_PLIES: Option<u32> = None;
    const REPETITION_DRAW: Option<usize> = None;

    fn is_irreversible(_state: &Position, _action: Move) -> bool {
        true
    }

    type Symmetry = Symmetry;
    const SYMMETRIES: &'static [Symmetry] = &Symmetry::ALL;

    fn transform_state(sym: Symmetry, state: &Position) -> Position {
        sym.position(state)
    }

    fn transform_action(sym: Symmetry, action: Move) -> Move {
        sym.apply_move(action)
    }

    type Encoding = ();
    const BOARD: [usize; 2] = [8, 8];
    const POLICY_SIZE: usize = CELLS + 1;

    fn planes(_enc: &()) -> usize {
        PLANES
    }

    fn history(_enc: &()) -> usize {
        0
    }

    fn encode(_enc: &(), input: &NetInput<Self>, out: &mut [f32]) {
        assert_eq!(out.len(), PLANES * CELLS, "plane buffer size");
        let state = input.state;
        let (own, rest) = out.split_at_mut(CELLS);
        let (opponent, rest) = rest.split_at_mut(CELLS);
        let (legal, ones) = rest.split_at_mut(CELLS);
        for (plane, set) in [
            (own, state.mover()),
            (opponent, state.opponent()),
            (legal, state.legal_moves_mask()),
        ] {
            for (sq, cell) in plane.iter_mut().enumerate() {
                *cell = (set >> sq & 1) as f32;
            }
        }
        ones.fill(1.0);
    }

    fn policy_index(_state: &Position, action: Move) -> usize {
        match action {
            Move::Play(sq) => sq as usize,
            Move::Pass => PASS_INDEX,
        }
    }

    fn action_at(_state: &Position, index: usize) -> Move {
        if index == PASS_INDEX {
            Move::Pass
        } else {
            Move::Play(index as u8)
        }
    }
}
