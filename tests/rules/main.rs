//! The rules engines: perft against published counts, the rules of checkers, move generation against a reference, the game contract both games keep, Othello.

#[path = "../common/mod.rs"]
mod common;

mod egdb;
mod game_contract;
mod movegen_reference;
mod othello;
mod perft;
mod rules;
