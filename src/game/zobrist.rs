//! Zobrist keys, fixed at compile time so hashes are the same in every run and build.

use super::position::Color;

const fn splitmix64(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (next, z ^ (z >> 31))
}

/// Keys indexed by [color * 2 + king][square], then one for White to move.
const fn make_keys() -> ([[u64; 32]; 4], u64) {
    let mut keys = [[0u64; 32]; 4];
    let mut state = 0x00C0_FFEE_D15E_A5E5u64;
    let mut kind = 0;
    while kind < 4 {
        let mut sq = 0;
        while sq < 32 {
            let (s, k) = splitmix64(state);
            state = s;
            keys[kind][sq] = k;
            sq += 1;
        }
        kind += 1;
    }
    let (_, side) = splitmix64(state);
    (keys, side)
}

const KEYS: ([[u64; 32]; 4], u64) = make_keys();
static PIECE_KEYS: [[u64; 32]; 4] = KEYS.0;
pub const WHITE_TO_MOVE: u64 = KEYS.1;

#[inline(always)]
pub fn key(color: Color, king: bool, sq: u8) -> u64 {
    PIECE_KEYS[color.index() * 2 + king as usize][sq as usize]
}
