//! English checkers under [`Rules`]: positions, moves and notation from `game`, the hop-level
//! states and actions from `mcts::hops`, the network's view from `mcts::encoding`.

use super::encoding::{self, Encoding, frame_dir, frame_square};
use super::hops::{Hop, HopState, hops_of};
use super::movegen::count_moves;
use super::record::FORTY_MOVE_PLIES;
use super::{self as checkers, Move, Position};
use crate::games::GameName;
use crate::games::rules::{NetInput, Rules};
use crate::games::side::{Color, NotationError, Outcome, WinReason};

/// English checkers (8x8 draughts); the network acts in hops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checkers;

/// Checkers' symmetries. No reflection or rotation of the board keeps the double corners
/// where they are, so the only one besides the identity is the colour mirror: colours
/// swapped and the board turned half a turn. The network's mover-relative frame already
/// shows a position and its mirror identically, so augmenting with the mirror repeats a
/// sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    Identity,
    ColourMirror,
}

impl Rules for Checkers {
    const NAME: GameName = GameName::Checkers;

    type Position = Position;
    type Move = Move;

    fn start() -> Position {
        Position::start()
    }

    fn legal_moves(pos: &Position) -> Vec<Move> {
        checkers::legal_moves(pos)
    }

    fn apply_move(pos: &Position, mv: &Move) -> Position {
        pos.apply(mv)
    }

    fn distinct_moves(pos: &Position) -> Vec<Move> {
        checkers::dedup_routes_of(checkers::legal_moves(pos))
    }

    fn move_is_irreversible(pos: &Position, mv: &Move) -> bool {
        pos.is_irreversible(mv)
    }

    fn adjudicate(pos: &Position) -> Outcome {
        checkers::adjudicate(pos)
    }

    /// Men 1, kings 1.5; a lead of two men is tanh(1), 0.76.
    fn material_lead(pos: &Position, side: Color) -> f32 {
        let count = |c: Color| {
            pos.pieces(c).count_ones() as f32 + 0.5 * pos.kings_of(c).count_ones() as f32
        };
        ((count(side) - count(side.opposite())) / 2.0).tanh()
    }

    fn hash(pos: &Position) -> u64 {
        pos.hash()
    }

    fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
        checkers::parse_move(pos, text)
    }

    fn format_move(mv: &Move) -> String {
        checkers::move_to_pdn(mv)
    }

    fn parse_position(text: &str) -> Result<Position, NotationError> {
        checkers::parse_fen(text)
    }

    fn format_position(pos: &Position) -> String {
        checkers::to_fen(pos)
    }

    type State = HopState;
    type Action = Hop;

    fn turn_start(pos: &Position) -> HopState {
        HopState::turn_start(*pos)
    }

    fn position(state: &HopState) -> Option<Position> {
        state.is_turn_start().then(|| *state.position())
    }

    fn turn(state: &HopState) -> Color {
        state.turn()
    }

    fn legal_actions(state: &HopState, out: &mut Vec<Hop>) {
        state.legal_hops(out)
    }

    fn apply(state: &HopState, action: Hop) -> HopState {
        state.apply(action)
    }

    /// The side to move loses when it cannot move; a turn under way can always continue.
    fn outcome(state: &HopState) -> Option<Outcome> {
        // `count_moves` counts without building moves (the buffer is only for folding routes).
        let stuck =
            state.is_turn_start() && count_moves(state.position(), false, &mut Vec::new()) == 0;
        stuck.then_some(Outcome::Win(state.turn().opposite(), WinReason::NoMoves))
    }

    fn actions_of(_pos: &Position, mv: &Move) -> Vec<Hop> {
        hops_of(mv)
    }

    const QUIET_DRAW_PLIES: Option<u32> = Some(FORTY_MOVE_PLIES);
    const REPETITION_DRAW: Option<usize> = Some(3);

    /// As `Position::is_irreversible` for whole moves: every jump captures, and only a king's
    /// step can be undone.
    fn is_irreversible(state: &HopState, action: Hop) -> bool {
        state.is_jump(action) || !state.is_king(action.from)
    }

    type Symmetry = Symmetry;
    const SYMMETRIES: &'static [Symmetry] = &[Symmetry::Identity, Symmetry::ColourMirror];

    fn transform_state(sym: Symmetry, state: &HopState) -> HopState {
        match sym {
            Symmetry::Identity => *state,
            Symmetry::ColourMirror => state.mirrored(),
        }
    }

    /// The mirror turns the board half a turn: the same map as White's network frame.
    fn transform_action(sym: Symmetry, hop: Hop) -> Hop {
        match sym {
            Symmetry::Identity => hop,
            Symmetry::ColourMirror => Hop {
                from: frame_square(hop.from, Color::White),
                dir: frame_dir(hop.dir, Color::White),
            },
        }
    }

    type Encoding = Encoding;
    const BOARD: [usize; 2] = [8, 8];
    const POLICY_SIZE: usize = encoding::POLICY_SIZE;

    fn planes(enc: &Encoding) -> usize {
        enc.planes()
    }

    fn history(enc: &Encoding) -> usize {
        enc.history
    }

    fn encode(enc: &Encoding, input: &NetInput<Self>, out: &mut [f32]) {
        enc.encode(input.state, input.quiet, input.history, input.actions, out)
    }

    fn policy_index(state: &HopState, hop: Hop) -> usize {
        encoding::policy_index(hop, state.turn())
    }

    fn action_at(state: &HopState, index: usize) -> Hop {
        encoding::hop_at(index, state.turn())
    }
}
