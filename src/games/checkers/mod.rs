//! English checkers: bitboards, positions, moves (a whole turn each) and their generator, games with their draw
//! rules, PDN notation, perft, terminal diagrams; and the network's view of it: the turn as
//! hops (hops.rs), the input planes and hop policy (encoding.rs), and the [`Rules`] impl
//! (rules.rs).
//!
//! [`Rules`]: crate::games::Rules

pub mod board;
pub mod diagram;
pub mod encoding;
pub mod hops;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod position;
pub mod record;
pub mod rules;
pub mod zobrist;

pub use diagram::{board_diagram, board_diagram_from};
pub use movegen::legal_moves;
pub use moves::{Move, dedup_routes, dedup_routes_of};
pub use notation::{NotationError, move_to_pdn, parse_fen, parse_move, to_fen, why_immobile};
pub use position::{Color, Piece, Position};
pub use record::{DrawReason, Game, Outcome, WinReason, adjudicate};
pub use rules::Checkers;
