//! What the page is sent of a checkers game: the board as cells, moves with their squares,
//! the result (docs/gui.md, "The state").

use crate::endgame::EndgameGame;
use crate::games::checkers::{self, Move, Piece, Position, board::row_col};
use crate::games::{Checkers, Color, Game, Outcome, Rules};
use serde::Serialize;

/// One dark square: its PDN number and its piece (`b`, `w` men, `B`, `W` kings).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub square: u8,
    pub piece: Option<char>,
}

/// A move with the squares a board needs to draw it (numbered 1-32).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct MoveView {
    #[serde(rename = "move")]
    pub text: String,
    pub from: u8,
    pub path: Vec<u8>,
    pub captured: Vec<u8>,
}

impl MoveView {
    pub fn of(mv: &Move) -> Self {
        MoveView {
            text: checkers::move_to_pdn(mv),
            from: mv.from() + 1,
            path: mv.path().iter().map(|s| s + 1).collect(),
            captured: (0..32u8)
                .filter(|s| mv.captured() & (1 << s) != 0)
                .map(|s| s + 1)
                .collect(),
        }
    }
}

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

/// The whole game as the page draws it.
#[derive(Serialize, Debug, Clone)]
pub struct GameView {
    pub id: u64,
    pub game: &'static str,
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
    pub pdn: String,
    /// What the endgame databases (the default folder, when present) know of the position:
    /// "database: win for White, 17 plies to conversion".
    pub database: Option<String>,
}

/// One position of the game (stepping through the move list).
#[derive(Serialize, Debug, Clone)]
pub struct PlyView {
    pub ply: usize,
    pub fen: String,
    pub turn: &'static str,
    pub board: Vec<Option<Cell>>,
    pub last_move: Option<MoveView>,
}

pub fn side_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// The 64 cells row by row from the top as White sees the board (square 1 top row).
pub fn board(pos: &Position) -> Vec<Option<Cell>> {
    let mut cells = vec![None; 64];
    for sq in 0..32u8 {
        let (row, col) = row_col(sq);
        let piece = pos.piece_at(sq).map(piece_char);
        cells[row as usize * 8 + col as usize] = Some(Cell {
            square: sq + 1,
            piece,
        });
    }
    cells
}

fn piece_char(piece: Piece) -> char {
    let man = if piece.color == Color::Black {
        'b'
    } else {
        'w'
    };
    if piece.king {
        man.to_ascii_uppercase()
    } else {
        man
    }
}

/// The view of `game`; `tags` head its PDN.
pub fn game_view(id: u64, game: &Game, searching: bool, tags: &[(&str, String)]) -> GameView {
    let pos = game.position();
    let mut legal: Vec<MoveView> = if game.outcome().is_some() {
        Vec::new()
    } else {
        game.legal_moves().iter().map(MoveView::of).collect()
    };
    legal.sort_by(|a, b| (a.from, &a.path).cmp(&(b.from, &b.path)));
    let first = Checkers::side_to_move(game.start_position());
    GameView {
        id,
        game: "checkers",
        fen: checkers::to_fen(pos),
        start_fen: checkers::to_fen(game.start_position()),
        turn: side_name(game.turn()),
        ply: game.ply(),
        board: board(pos),
        legal,
        moves: game
            .moves()
            .iter()
            .enumerate()
            .map(|(i, mv)| PlayedMove {
                ply: i + 1,
                side: side_name(if i % 2 == 0 { first } else { first.opposite() }),
                mv: MoveView::of(mv),
            })
            .collect(),
        last_move: game.moves().last().map(MoveView::of),
        result: game.outcome().as_ref().map(ResultView::of),
        searching,
        pdn: game.to_pdn(tags),
        database: game
            .outcome()
            .is_none()
            .then(Checkers::default_oracle)
            .flatten()
            .and_then(|o| o.describe(pos, game.quiet_plies())),
    }
}

/// The position after `ply` plies of `game`, if the game has that many.
pub fn ply_view(game: &Game, ply: usize) -> Option<PlyView> {
    let pos = game.positions().get(ply)?;
    Some(PlyView {
        ply,
        fen: checkers::to_fen(pos),
        turn: side_name(Checkers::side_to_move(pos)),
        board: board(pos),
        last_move: ply.checked_sub(1).map(|i| MoveView::of(&game.moves()[i])),
    })
}
