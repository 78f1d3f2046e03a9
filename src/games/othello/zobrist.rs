//! Zobrist keys, fixed at compile time so hashes are the same in every run and build.

use super::position::Color;

const fn splitmix64(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (next, z ^ (z >> 31))
}

/// Keys indexed by [color][square], then one for White to move. The seed differs from
/// checkers' so the two games' hashes do not coincide by construction.
const fn make_keys() -> ([[u64; 64]; 2], u64) {
    let mut keys = [[0u64; 64]; 2];
    let mut state = 0x07E1_1000_B1AC_C0DEu64;
    let mut color = 0;
    while color < 2 {
        let mut sq = 0;
        while sq < 64 {
            let (s, k) = splitmix64(state);
            state = s;
            keys[color][sq] = k;
            sq += 1;
        }
        color += 1;
    }
    let (_, side) = splitmix64(state);
    (keys, side)
}

const KEYS: ([[u64; 64]; 2], u64) = make_keys();
static DISC_KEYS: [[u64; 64]; 2] = KEYS.0;
pub const WHITE_TO_MOVE: u64 = KEYS.1;

#[inline(always)]
pub fn key(color: Color, sq: u8) -> u64 {
    DISC_KEYS[color.index()][sq as usize]
}
