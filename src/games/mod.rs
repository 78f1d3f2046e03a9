//! The games the engine can play, each a self-contained rules module.

pub mod othello;
