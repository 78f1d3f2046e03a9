//! The rules of English checkers: bitboards, positions, moves, games, notation and perft.

pub mod board;
pub mod diagram;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod position;
pub mod record;
pub mod zobrist;

pub use diagram::{board_diagram, board_diagram_from};
pub use moves::{Move, dedup_routes, dedup_routes_of, legal_moves};
pub use notation::{NotationError, move_to_pdn, parse_fen, parse_move, to_fen};
pub use position::{Color, Piece, Position};
pub use record::{DrawReason, Game, Outcome, WinReason, adjudicate};
