//! Agents, search and the ways to use them: agents, MCTS, the engine protocol, the command line, untrusted input.

#[path = "../common/mod.rs"]
mod common;

mod agents;
mod cli;
mod engine_protocol;
mod fuzz_inputs;
mod mcts;

/// The number after `key` in an agent's summary line (alpha-beta's `depth D nodes N pv ...`,
/// the tree searches' `simulations S visits V kept K ...`).
fn count_in(summary: &str, key: &str) -> u64 {
    let after = summary.split(&format!("{key} ")).nth(1).unwrap();
    after.split(' ').next().unwrap().parse().unwrap()
}
