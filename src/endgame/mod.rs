//! Perfect endgames: checkers' endgame databases, built by retrograde analysis and probed
//! through memory maps (egdb/), and Othello's exact solver for the last empties (othello.rs).

pub mod egdb;
