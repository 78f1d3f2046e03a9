//! Othello's Zobrist keys: one per (colour, square), then White to move. The seed differs
//! from checkers' so the two games' hashes do not coincide by construction.

use crate::games::side::{Color, zobrist_keys};

const KEYS: ([u64; 128], u64) = zobrist_keys(0x07E1_1000_B1AC_C0DE);
static DISC_KEYS: [u64; 128] = KEYS.0;
pub const WHITE_TO_MOVE: u64 = KEYS.1;

#[inline(always)]
pub fn key(color: Color, sq: u8) -> u64 {
    DISC_KEYS[color.index() * 64 + sq as usize]
}
