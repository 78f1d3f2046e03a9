//! The rules of Othello (Reversi on 8x8 with the fixed four-disc start): bitboards,
//! positions, move generation, notation, game records (the move list), board symmetries,
//! perft, terminal diagrams, and the game's [`Rules`](crate::games::Rules) (rules.rs).
//!
//! Square `sq` (0..64) is bit `sq` of a `u64`: a1 is bit 0, h1 bit 7, a2 bit 8, h8 bit 63,
//! so `sq = 8 * (rank - 1) + file` with file a = 0. Othello diagrams put rank 1 at the top.

pub mod board;
pub mod diagram;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod position;
pub mod record;
pub mod rules;
pub mod symmetry;
mod zobrist;

pub use diagram::board_diagram;
pub use moves::Move;
pub use notation::{
    NotationError, move_to_text, parse_move, parse_position, parse_square, square_name, to_text,
};
pub use position::{Color, Outcome, Position};
pub use rules::Othello;
pub use symmetry::Symmetry;
