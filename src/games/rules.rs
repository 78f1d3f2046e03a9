//! The one interface every game implements, so search, self-play, training, the learners,
//! arena, engine and play can be written once, generic over the game (docs/ARCHITECTURE.md,
//! "The Rules trait").
//!
//! A game is seen at two levels:
//! - **positions and moves**: what people read and write, what game records, perft and the
//!   draw rules count. A move is a whole turn.
//! - **states and actions**: what search and the network act in. An action is one decision
//!   of the network; a turn is one or more actions by the same side (checkers' multi-jump is
//!   several hops, see `mcts::hops`; in Othello an action is a move). A state is a
//!   position at a turn boundary or part-way through a turn.
//!
//! Everything is an associated type, constant or function without `self`: a game is a
//! zero-sized marker type (`Checkers`, `Othello`), and generic code over `G: Rules` is
//! monomorphised, with no dynamic dispatch per node.

use super::side::{Color, NotationError, Outcome};
use std::fmt::Debug;
use std::hash::Hash;

/// What a network is shown of one state beyond the state itself; the encoding takes what
/// it needs (checkers' draw-counter and history planes; Othello's board alone).
#[derive(Clone, Copy, Debug)]
pub struct NetInput<'a, G: Rules> {
    pub state: &'a G::State,
    /// Plies since the last irreversible action (the quiet-draw count).
    pub quiet: u32,
    /// Earlier turn-start positions, most recent first (as many as the encoding shows, or
    /// fewer near a game's start).
    pub history: &'a [G::Position],
    /// The legal actions of `state` (for legal-move planes).
    pub actions: &'a [G::Action],
}

/// What positions, states and actions are: small values copied freely, compared and hashed
/// (caches, repetitions), sent between threads, and saved in run states (replay samples).
pub trait GameData:
    Copy + Eq + Hash + Debug + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static
{
}

impl<T> GameData for T where
    T: Copy
        + Eq
        + Hash
        + Debug
        + Send
        + Sync
        + serde::Serialize
        + serde::de::DeserializeOwned
        + 'static
{
}

/// The rules of one two-player game, at the two levels described in the module doc.
pub trait Rules: Copy + Debug + Default + PartialEq + Eq + Send + Sync + 'static {
    /// The `--game` name, for messages and file headers.
    const NAME: super::GameName;

    // --- Positions and moves: people, records, perft ---

    /// A position at a turn boundary: the board and the side to move. `Hash`/`Eq` for
    /// repetition checks and caches.
    type Position: GameData;
    /// A whole turn, as notation writes it and a game record stores it.
    type Move: Copy + Eq + Debug + Send + Sync + 'static;

    /// The standard start position.
    fn start() -> Self::Position;
    /// The legal moves (every capture route of checkers separately, so perft counts are
    /// the published ones; Othello's forced pass is a move). Empty exactly when the game is
    /// over by the rules of the board alone.
    fn legal_moves(pos: &Self::Position) -> Vec<Self::Move>;
    /// The position after a legal move.
    fn apply_move(pos: &Self::Position, mv: &Self::Move) -> Self::Position;
    /// The legal moves with one kept (the first) of each group reaching the same position
    /// (checkers' capture routes over the same pieces): what agents choose among.
    fn distinct_moves(pos: &Self::Position) -> Vec<Self::Move> {
        let mut seen = Vec::new();
        Self::legal_moves(pos)
            .into_iter()
            .filter(|mv| {
                let next = Self::apply_move(pos, mv);
                let new = !seen.contains(&next);
                seen.push(next);
                new
            })
            .collect()
    }
    /// The side to move in `pos`.
    fn side_to_move(pos: &Self::Position) -> Color {
        Self::turn(&Self::turn_start(pos))
    }
    /// Whether a legal move is irreversible: no earlier position can recur after it, and
    /// the quiet count starts again (see `QUIET_DRAW_PLIES`).
    fn move_is_irreversible(pos: &Self::Position, mv: &Self::Move) -> bool;
    /// The result a game driver declares when its length cap stops a game at `pos`: the
    /// side ahead by the game's material measure wins, else a draw (reasons `Adjudication`).
    fn adjudicate(pos: &Self::Position) -> Outcome;
    /// How far `side` leads by that material measure at `pos`, squashed into (-1, 1) so that
    /// a lead that usually decides the game lies near the ends: what a network's auxiliary
    /// head learns to foresee some plies ahead (a training target, not an evaluation).
    fn material_lead(pos: &Self::Position, side: Color) -> f32;
    /// The Zobrist hash of a position (pieces and side to move): repetitions and
    /// transposition tables compare hashes first.
    fn hash(pos: &Self::Position) -> u64;
    /// Parses a move and checks it is legal in `pos`; the error says in one line why not.
    fn parse_move(pos: &Self::Position, text: &str) -> Result<Self::Move, NotationError>;
    /// A move's text, which `parse_move` reads back as the same move.
    fn format_move(mv: &Self::Move) -> String;
    /// Parses the game's one-line position text (checkers' PDN FEN, Othello's 64 squares).
    fn parse_position(text: &str) -> Result<Self::Position, NotationError>;
    /// A position's one-line text, which `parse_position` reads back.
    fn format_position(pos: &Self::Position) -> String;

    // --- States and actions: search ---

    /// A state search expands: a turn boundary or a point inside a turn. `Hash`/`Eq` key
    /// evaluation caches.
    type State: GameData;
    /// One decision of the network. `Default` is a placeholder (the search tree's root
    /// has no action leading to it).
    type Action: GameData + Default;

    /// The state at the start of the turn in `pos`.
    fn turn_start(pos: &Self::Position) -> Self::State;
    /// The position of a state at a turn boundary; `None` inside a turn (where the draw
    /// rules, the record and the history planes do not look).
    fn position(state: &Self::State) -> Option<Self::Position>;
    /// The side to move: values flip sign between a node and its child only when it changes.
    fn turn(state: &Self::State) -> Color;
    /// Appends the legal actions to `out` (a buffer search reuses). None exactly when the
    /// game is over by the rules of the board alone.
    fn legal_actions(state: &Self::State, out: &mut Vec<Self::Action>);
    /// The state after a legal action.
    fn apply(state: &Self::State, action: Self::Action) -> Self::State;
    /// The result when the game is over by the rules of the board alone (no legal action),
    /// else `None`. Draws by history are not seen here: see `QUIET_DRAW_PLIES` and
    /// `REPETITION_DRAW`.
    fn outcome(state: &Self::State) -> Option<Outcome>;
    /// The actions that make up a legal move of `pos`, in order: how search follows a move
    /// played in the game (from a record, a person or another agent).
    fn actions_of(pos: &Self::Position, mv: &Self::Move) -> Vec<Self::Action>;

    // --- Draws by history: they need the game's earlier positions, which a state does not
    // hold, so the record and the search tree count them from these ---

    /// Plies without an irreversible action after which the game is drawn (checkers'
    /// 40-move rule: 80); `None` where the game has no such rule.
    const QUIET_DRAW_PLIES: Option<u32>;
    /// How many occurrences of one position (same side to move) draw the game (3 for
    /// checkers' threefold repetition); `None` where no position can recur.
    const REPETITION_DRAW: Option<usize>;
    /// Whether a legal action is irreversible: no earlier position can recur after it, and
    /// the quiet count starts again. A reversible action ends the turn, so counting
    /// reversible actions counts plies.
    fn is_irreversible(state: &Self::State, action: Self::Action) -> bool;

    // --- Symmetries: transforms of the board under which the rules are unchanged, to
    // augment training data or share cache entries ---

    type Symmetry: Copy + Eq + Debug + Send + Sync + 'static;
    /// Every symmetry, the identity first.
    const SYMMETRIES: &'static [Self::Symmetry];
    /// The image of a state; its legal actions are the images of the original's.
    fn transform_state(sym: Self::Symmetry, state: &Self::State) -> Self::State;
    /// The image of an action.
    fn transform_action(sym: Self::Symmetry, action: Self::Action) -> Self::Action;

    // --- The network's view ---

    /// The encoding's options, saved with a model (checkers: history and legal-hop planes;
    /// Othello has none).
    type Encoding: Copy
        + Debug
        + Default
        + PartialEq
        + Send
        + Sync
        + serde::Serialize
        + serde::de::DeserializeOwned
        + 'static;
    /// Rows and columns of every input plane.
    const BOARD: [usize; 2];
    /// Number of policy outputs; every action's index is below it.
    const POLICY_SIZE: usize;
    /// Number of input planes under `enc`.
    fn planes(enc: &Self::Encoding) -> usize;
    /// Earlier turn-start positions `enc` shows (`NetInput::history` needs no more).
    fn history(enc: &Self::Encoding) -> usize;
    /// Writes the input planes of `input` into `out` (`planes(enc) * BOARD[0] * BOARD[1]`
    /// values, all overwritten).
    fn encode(enc: &Self::Encoding, input: &NetInput<Self>, out: &mut [f32]);
    /// The policy index of a legal action of `state`; distinct actions get distinct indices.
    fn policy_index(state: &Self::State, action: Self::Action) -> usize;
    /// The action at a policy index of `state`: the inverse of `policy_index` on the legal
    /// actions.
    fn action_at(state: &Self::State, index: usize) -> Self::Action;
}

/// The symmetries of the board that leave the start position as it is: a game from the
/// start seen under one of them is another game from the start (Othello's identity, half
/// turn and two diagonal reflections; the other four swap the colours of the centre, which
/// no game from the start shows in its opening). Identity first.
pub fn start_symmetries<G: Rules>() -> Vec<G::Symmetry> {
    let start = G::turn_start(&G::start());
    (G::SYMMETRIES.iter())
        .copied()
        .filter(|&sym| G::transform_state(sym, &start) == start)
        .collect()
}
