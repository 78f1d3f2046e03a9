//! Checkers' Zobrist keys: one per (colour, man or king, square), then White to move.

use crate::games::side::{Color, zobrist_keys};

const KEYS: ([u64; 128], u64) = zobrist_keys(0x00C0_FFEE_D15E_A5E5);
static PIECE_KEYS: [u64; 128] = KEYS.0;
pub const WHITE_TO_MOVE: u64 = KEYS.1;

#[inline(always)]
pub fn key(color: Color, king: bool, sq: u8) -> u64 {
    PIECE_KEYS[(color.index() * 2 + king as usize) * 32 + sq as usize]
}
