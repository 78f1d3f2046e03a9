//! The rules of English checkers: bitboards, positions, moves, games, notation and perft.

pub mod board;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod position;
pub mod zobrist;

pub use moves::{Move, legal_moves};
pub use notation::{NotationError, move_to_pdn, parse_fen, parse_move, to_fen};
pub use position::{Color, Piece, Position};
