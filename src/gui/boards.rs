//! What the page needs of each game it plays: the board as cells, a move as the squares it
//! touches, the record to copy and load, and why a square cannot be played.

use super::error::ApiError;
use crate::agents::AgentGame;
use crate::games::checkers::{self, board::row_col, why_immobile};
use crate::games::othello::{self, Move as OthelloMove};
use crate::games::{Checkers, Color, Game, Othello, PdnRecord, Rules};
use serde::Serialize;

/// One square of the board: its number (checkers' 1-32; Othello's 1-64, a1 first), its name
/// as moves write it, and its piece (`b`, `w` men or discs, `B`, `W` kings).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub square: u8,
    pub name: String,
    pub piece: Option<char>,
}

/// A move with the squares a board needs to draw it: where it starts (Othello: the square
/// played; a pass has none), where it lands, and the pieces it takes or flips.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct MoveView {
    #[serde(rename = "move")]
    pub text: String,
    pub from: u8,
    pub path: Vec<u8>,
    pub captured: Vec<u8>,
}

/// A game the page plays.
pub trait Board: AgentGame {
    /// The 64 cells row by row from the top of the board (None for checkers' light squares).
    fn cells(pos: &Self::Position) -> Vec<Option<Cell>>;

    /// `mv` played from `pos`.
    fn move_view(pos: &Self::Position, mv: &Self::Move) -> MoveView;

    /// The game as players of this game copy it: checkers' PDN movetext, Othello's move
    /// list (`f5d6c3`).
    fn moves_text(game: &Game<Self>) -> String;

    /// The games of what a person pastes or a run saved: PDN games with their tags, or
    /// Othello's move list (one game, no tags).
    fn load(text: &str) -> Result<Vec<PdnRecord<Self>>, ApiError>;

    /// Why the square (numbered as [`Cell::square`]) cannot start a move now, or None.
    fn why_not(pos: &Self::Position, square: u32) -> Result<Option<String>, ApiError>;

    /// The games a `ballot` start may begin from (checkers' 157 standard ballots; none for
    /// Othello).
    fn ballots() -> Vec<Game<Self>>;

    /// The name of the opening the game is in, for a game played from the start position
    /// (checkers' named lines, data/opening_names.tsv; none for Othello).
    fn opening(game: &Game<Self>) -> Option<&'static str>;
}

fn bits(set: u64) -> Vec<u8> {
    (0..64u8)
        .filter(|s| set & (1 << s) != 0)
        .map(|s| s + 1)
        .collect()
}

fn disc(color: Color) -> char {
    match color {
        Color::Black => 'b',
        Color::White => 'w',
    }
}

fn square_out_of_range(square: u32, squares: u32) -> ApiError {
    ApiError::bad_request(format!("square {square}: expected 1-{squares}"))
}

impl Board for Checkers {
    fn cells(pos: &checkers::Position) -> Vec<Option<Cell>> {
        let mut cells = vec![None; 64];
        for sq in 0..32u8 {
            let (row, col) = row_col(sq);
            let piece = pos.piece_at(sq).map(|p| {
                let man = disc(p.color);
                if p.king {
                    man.to_ascii_uppercase()
                } else {
                    man
                }
            });
            cells[row as usize * 8 + col as usize] = Some(Cell {
                square: sq + 1,
                name: (sq + 1).to_string(),
                piece,
            });
        }
        cells
    }

    fn move_view(_pos: &checkers::Position, mv: &checkers::Move) -> MoveView {
        MoveView {
            text: checkers::move_to_pdn(mv),
            from: mv.from() + 1,
            path: mv.path().iter().map(|s| s + 1).collect(),
            captured: bits(u64::from(mv.captured())),
        }
    }

    fn moves_text(game: &Game) -> String {
        game.movetext()
    }

    fn load(text: &str) -> Result<Vec<PdnRecord<Checkers>>, ApiError> {
        PdnRecord::read_all(text).map_err(|e| ApiError::bad_request(e.0))
    }

    fn why_not(pos: &checkers::Position, square: u32) -> Result<Option<String>, ApiError> {
        if !(1..=32).contains(&square) {
            return Err(square_out_of_range(square, 32));
        }
        Ok(why_immobile(pos, square as u8 - 1))
    }

    fn ballots() -> Vec<Game> {
        standard_ballots().iter().map(|b| b.game()).collect()
    }

    fn opening(game: &Game) -> Option<&'static str> {
        (*game.start_position() == checkers::Position::start())
            .then(|| crate::arena::openings::opening_name(game.moves()))
            .flatten()
    }
}

/// The 157 standard ballots, as matches play them.
pub fn standard_ballots() -> Vec<crate::arena::openings::Opening> {
    crate::arena::openings::ballots()
        .into_iter()
        .filter(|b| b.standard)
        .collect()
}

impl Board for Othello {
    fn cells(pos: &othello::Position) -> Vec<Option<Cell>> {
        (0..64u8)
            .map(|sq| {
                Some(Cell {
                    square: sq + 1,
                    name: othello::square_name(sq),
                    piece: pos.disc_at(sq).map(disc),
                })
            })
            .collect()
    }

    fn move_view(pos: &othello::Position, mv: &OthelloMove) -> MoveView {
        let (from, captured) = match *mv {
            OthelloMove::Play(sq) => (
                sq + 1,
                bits(othello::moves::flips(pos.mover(), pos.opponent(), sq)),
            ),
            OthelloMove::Pass => (0, Vec::new()),
        };
        MoveView {
            text: othello::move_to_text(*mv),
            from,
            path: Vec::new(),
            captured,
        }
    }

    fn moves_text(game: &Game<Othello>) -> String {
        othello::record::transcript(game.moves())
    }

    fn load(text: &str) -> Result<Vec<PdnRecord<Othello>>, ApiError> {
        let read = if text.trim_start().starts_with('[') {
            PdnRecord::read_all(text)
        } else {
            othello::record::parse_transcript(text).map(|game| {
                vec![PdnRecord {
                    tags: Vec::new(),
                    game,
                    variations: Default::default(),
                }]
            })
        };
        read.map_err(|e| ApiError::bad_request(e.0))
    }

    fn why_not(pos: &othello::Position, square: u32) -> Result<Option<String>, ApiError> {
        if !(1..=64).contains(&square) {
            return Err(square_out_of_range(square, 64));
        }
        let name = othello::square_name(square as u8 - 1);
        Ok(othello::parse_move(pos, &name).err().map(|e| e.0))
    }

    fn ballots() -> Vec<Game<Othello>> {
        Vec::new()
    }

    fn opening(_game: &Game<Othello>) -> Option<&'static str> {
        None
    }
}

/// The side a move was played by, for the move list.
pub fn mover<G: Rules>(game: &Game<G>, ply: usize) -> Color {
    G::side_to_move(&game.positions()[ply])
}
