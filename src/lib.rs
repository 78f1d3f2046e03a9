//! checkers-zero: learns English checkers from zero knowledge.

pub mod game;
