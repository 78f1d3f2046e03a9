//! checkers-zero: learns English checkers from zero knowledge.

pub mod agents;
pub mod arena;
pub mod engine;
pub mod files;
pub mod game;
pub mod play;

mod input;
pub mod backend;
pub mod bench;
pub mod nn;
pub mod tensor;
