//! Networks built for particular games from the layers of [`crate::nn`]. They are game-free
//! in code: each takes its input in a plain form (bitboards, planes) that a game's code fills.

pub mod towers;
