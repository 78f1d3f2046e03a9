//! Checkers' rules beyond the board: the 40-move rule's length and adjudication at a length
//! cap. The game record itself is generic (`games::record::Game`).

use super::position::{Color, Position};
pub use crate::games::record::Game;
pub use crate::games::side::{DrawReason, Outcome, WinReason};

/// Plies without a man move or a capture after which the game is drawn: the WCDF 40-move
/// rule counts 40 moves of each player.
pub const FORTY_MOVE_PLIES: u32 = 80;

/// The adjudicated result of a position when a driver's length cap stops a game: more pieces
/// wins; with equal pieces, more kings wins; otherwise a draw.
pub fn adjudicate(pos: &Position) -> Outcome {
    let count = |c: Color| (pos.pieces(c).count_ones(), pos.kings_of(c).count_ones());
    let (black, white) = (count(Color::Black), count(Color::White));
    match black.cmp(&white) {
        std::cmp::Ordering::Greater => Outcome::Win(Color::Black, WinReason::Adjudication),
        std::cmp::Ordering::Less => Outcome::Win(Color::White, WinReason::Adjudication),
        std::cmp::Ordering::Equal => Outcome::Draw(DrawReason::Adjudication),
    }
}
