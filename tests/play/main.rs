//! Agents, search and the ways to use them: agents, MCTS, the engine protocol, the command line, untrusted input.

#[path = "../common/mod.rs"]
mod common;

mod agents;
mod cli;
mod engine_protocol;
mod fuzz_inputs;
mod mcts;
