//! What the page is sent of a game: the board as cells, moves with their squares, the
//! result, who plays each side (docs/gui.md, "The state").

use super::boards::{Board, Cell, MoveView, mover};
use super::clock::ClockView;
use crate::games::{Color, Game, LineId, Node, Outcome, Variations};
use serde::Serialize;

#[derive(Serialize, Debug, Clone)]
pub struct PlayedMove {
    pub ply: usize,
    pub side: &'static str,
    #[serde(flatten)]
    pub mv: MoveView,
}

#[derive(Serialize, Debug, Clone)]
pub struct ResultView {
    pub score: &'static str,
    pub winner: Option<&'static str>,
    pub reason: String,
}

impl ResultView {
    pub fn of(outcome: &Outcome) -> Self {
        ResultView {
            score: outcome.pdn_result(),
            winner: outcome.winner().map(side_name),
            reason: outcome.to_string(),
        }
    }
}

/// Who plays each side: `human` or an agent's spec.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct Players {
    pub black: String,
    pub white: String,
}

/// The whole game as the page draws it.
#[derive(Serialize, Debug, Clone)]
pub struct GameView {
    pub id: u64,
    /// Counts the views of this game the server has made, each under the game's lock: a
    /// view with a higher number is never older, so a page drops a request's answer that
    /// the event stream has overtaken.
    pub version: u64,
    /// `checkers` or `othello`.
    pub game: &'static str,
    /// The position in the game's own text (checkers' FEN, Othello's 64 squares and side).
    pub fen: String,
    pub start_fen: String,
    pub turn: &'static str,
    pub ply: usize,
    pub board: Vec<Option<Cell>>,
    pub legal: Vec<MoveView>,
    pub moves: Vec<PlayedMove>,
    pub last_move: Option<MoveView>,
    pub result: Option<ResultView>,
    pub searching: bool,
    pub players: Players,
    /// The players' names a loaded record gives (its Black and White tags), if any.
    pub names: Option<Players>,
    pub pdn: String,
    /// The moves as this game's players write them (PDN movetext; Othello's `f5d6c3`).
    pub moves_text: String,
    /// What checkers' endgame databases (when present) know of the position: "database: win
    /// for White, 17 plies to conversion". Othello has no default oracle: its agents solve
    /// the end themselves.
    pub database: Option<String>,
    /// The side lines played from earlier positions (the PDN has them as RAV).
    pub variations: Vec<SideLineView>,
    /// The opening the game is in by name ("Old Fourteenth"), for checkers games played
    /// from the start position whose moves begin a named line.
    pub opening: Option<&'static str>,
    /// The players' clocks, in a game with a time control: each side's time left when this
    /// view was made, and whose runs.
    pub clock: Option<ClockView>,
}

/// A side line: the line it leaves (0: the game), the ply it leaves from, and its moves
/// numbered by the plies they reach.
#[derive(Serialize, Debug, Clone)]
pub struct SideLineView {
    pub line: LineId,
    pub parent: LineId,
    pub from: usize,
    pub moves: Vec<PlayedMove>,
}

/// One position of the game or of a side line (stepping through the move list): the moves
/// from it, so that a move played there makes or grows a side line.
#[derive(Serialize, Debug, Clone)]
pub struct PlyView {
    /// The line that holds the position (a side line's first position is its parent's).
    pub line: LineId,
    pub ply: usize,
    pub fen: String,
    pub turn: &'static str,
    pub board: Vec<Option<Cell>>,
    pub last_move: Option<MoveView>,
    pub legal: Vec<MoveView>,
    /// Where the position ends the game by the rules (a side line's end can).
    pub result: Option<ResultView>,
}

pub fn side_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// The view of `game` and its side lines; `tags` head its PDN.
pub fn game_view<G: Board>(
    id: u64,
    version: u64,
    game: &Game<G>,
    variations: &Variations<G>,
    searching: bool,
    players: &Players,
    tags: &[(&str, String)],
) -> GameView {
    let pos = game.position();
    GameView {
        id,
        version,
        game: G::NAME.name(),
        fen: G::format_position(pos),
        start_fen: G::format_position(game.start_position()),
        turn: side_name(game.turn()),
        ply: game.ply(),
        board: G::cells(pos),
        legal: legal(game),
        moves: played(game, 0),
        last_move: last_move(game, game.ply()),
        result: game.outcome().as_ref().map(ResultView::of),
        searching,
        players: players.clone(),
        names: None,
        pdn: game.to_pdn_with(tags, variations.movetext(game)),
        moves_text: G::moves_text(game),
        database: game
            .outcome()
            .is_none()
            .then(G::default_oracle)
            .flatten()
            .and_then(|o| o.describe(pos, game.quiet_plies())),
        variations: variations
            .lines()
            .map(|(line, side)| SideLineView {
                line,
                parent: side.parent,
                from: side.from,
                moves: played(
                    &variations
                        .game_at(game, Node::new(line, side.end()))
                        .expect("a side line's last position is one of its own"),
                    side.from,
                ),
            })
            .collect(),
        opening: G::opening(game),
        clock: None,
    }
}

/// The moves of `game` from ply `from` on, numbered by the plies they reach.
fn played<G: Board>(game: &Game<G>, from: usize) -> Vec<PlayedMove> {
    (from..game.ply())
        .map(|i| PlayedMove {
            ply: i + 1,
            side: side_name(mover(game, i)),
            mv: G::move_view(&game.positions()[i], &game.moves()[i]),
        })
        .collect()
}

/// The moves from the game's position, ordered by square (none once it is over).
fn legal<G: Board>(game: &Game<G>) -> Vec<MoveView> {
    let pos = game.position();
    let mut legal: Vec<MoveView> = game
        .legal_moves()
        .iter()
        .map(|m| G::move_view(pos, m))
        .collect();
    legal.sort_by(|a, b| (a.from, &a.path).cmp(&(b.from, &b.path)));
    legal
}

fn last_move<G: Board>(game: &Game<G>, ply: usize) -> Option<MoveView> {
    let i = ply.checked_sub(1)?;
    Some(G::move_view(&game.positions()[i], &game.moves()[i]))
}

/// The position at `node` (of the game or a side line), or why there is none.
pub fn ply_view<G: Board>(
    game: &Game<G>,
    variations: &Variations<G>,
    node: Node,
) -> Result<PlyView, crate::games::NotationError> {
    let line = variations.resolve(game, node)?.line;
    let at = variations.game_at(game, node)?;
    let pos = at.position();
    Ok(PlyView {
        line,
        ply: at.ply(),
        fen: G::format_position(pos),
        turn: side_name(G::side_to_move(pos)),
        board: G::cells(pos),
        last_move: last_move(&at, at.ply()),
        legal: legal(&at),
        // The game's own last position keeps a result imposed on it (a resignation); earlier
        // positions end only by the rules.
        result: at.outcome().as_ref().map(ResultView::of),
    })
}
