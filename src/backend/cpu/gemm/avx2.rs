//! The AVX2+FMA micro-kernel: a 6 x 16 tile in 12 ymm accumulators, leaving two registers for
//! the panel's vectors and one for A's broadcast value (of the 16).

use super::{MicroKernel, Store};
use std::arch::x86_64::*;

pub(super) struct Tile;

impl MicroKernel for Tile {
    const MR: usize = 6;
    const NR: usize = 16;

    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile(kc: usize, a: *const f32, b: *const f32, c: *mut f32, ldc: usize, store: Store) {
        // SAFETY (whole body): every pointer offset stays inside the tile the caller vouches for.
        unsafe {
            let mut acc = [[_mm256_setzero_ps(); 2]; 6];
            for p in 0..kc {
                let b0 = _mm256_loadu_ps(b.add(p * 16));
                let b1 = _mm256_loadu_ps(b.add(p * 16 + 8));
                for (i, row) in acc.iter_mut().enumerate() {
                    let ai = _mm256_broadcast_ss(&*a.add(p * 6 + i));
                    row[0] = _mm256_fmadd_ps(ai, b0, row[0]);
                    row[1] = _mm256_fmadd_ps(ai, b1, row[1]);
                }
            }
            let zero = _mm256_setzero_ps();
            for (i, row) in acc.iter().enumerate() {
                for (h, &v) in row.iter().enumerate() {
                    let at = c.add(i * ldc + h * 8);
                    let mut v = v;
                    if store.accumulate {
                        v = _mm256_add_ps(v, _mm256_loadu_ps(at));
                    }
                    if store.relu {
                        v = _mm256_max_ps(v, zero);
                    }
                    _mm256_storeu_ps(at, v);
                }
            }
        }
    }
}

/// The FLOPs of a step of [`fma_loop`].
pub(super) const LOOP_FLOPS: f64 = 12.0 * 8.0 * 2.0;

/// `iters` steps of 12 independent 256-bit FMAs (the machine's FMA throughput, not latency);
/// returns a sum so the work is not optimised away.
#[target_feature(enable = "avx2,fma")]
pub(super) fn fma_loop(iters: u64) -> f32 {
    let mut acc = [_mm256_set1_ps(1.0); 12];
    let (a, b) = (_mm256_set1_ps(0.999_999), _mm256_set1_ps(1e-7));
    for _ in 0..iters {
        for x in acc.iter_mut() {
            *x = _mm256_fmadd_ps(*x, a, b);
        }
    }
    let mut lanes = [0.0f32; 8];
    let sum = acc
        .iter()
        .fold(_mm256_setzero_ps(), |s, &x| _mm256_add_ps(s, x));
    // SAFETY: `lanes` holds 8 values.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), sum) };
    lanes.iter().sum()
}
