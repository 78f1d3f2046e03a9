//! The AVX-512 micro-kernel: an 8 x 32 tile in 16 zmm accumulators. Each step of k loads two
//! vectors of the panel and broadcasts one value of each of A's 8 rows into 16 FMAs: eight
//! cycles of FMAs at two a cycle against ten loads, so the FMAs set the pace.

use super::{MicroKernel, Store};
use std::arch::x86_64::*;

pub(super) struct Tile;

impl MicroKernel for Tile {
    const MR: usize = 8;
    const NR: usize = 32;

    #[target_feature(enable = "avx512f")]
    unsafe fn tile(kc: usize, a: *const f32, b: *const f32, c: *mut f32, ldc: usize, store: Store) {
        // SAFETY (whole body): every pointer offset stays inside the tile the caller vouches for.
        unsafe {
            let mut acc = [[_mm512_setzero_ps(); 2]; 8];
            for p in 0..kc {
                let b0 = _mm512_loadu_ps(b.add(p * 32));
                let b1 = _mm512_loadu_ps(b.add(p * 32 + 16));
                for (i, row) in acc.iter_mut().enumerate() {
                    let ai = _mm512_set1_ps(*a.add(p * 8 + i));
                    row[0] = _mm512_fmadd_ps(ai, b0, row[0]);
                    row[1] = _mm512_fmadd_ps(ai, b1, row[1]);
                }
            }
            let zero = _mm512_setzero_ps();
            for (i, row) in acc.iter().enumerate() {
                for (h, &v) in row.iter().enumerate() {
                    let at = c.add(i * ldc + h * 16);
                    let mut v = v;
                    if store.accumulate {
                        v = _mm512_add_ps(v, _mm512_loadu_ps(at));
                    }
                    if store.relu {
                        v = _mm512_max_ps(v, zero);
                    }
                    _mm512_storeu_ps(at, v);
                }
            }
        }
    }
}

/// The FLOPs of a step of [`fma_loop`].
pub(super) const LOOP_FLOPS: f64 = 16.0 * 16.0 * 2.0;

/// `iters` steps of 16 independent 512-bit FMAs (the machine's FMA throughput, not latency; with 24
/// LLVM spilled accumulators to the stack); returns a sum so the work is not optimised away.
#[target_feature(enable = "avx512f")]
pub(super) fn fma_loop(iters: u64) -> f32 {
    let mut acc = [_mm512_set1_ps(1.0); 16];
    let (a, b) = (_mm512_set1_ps(0.999_999), _mm512_set1_ps(1e-7));
    for _ in 0..iters {
        for x in acc.iter_mut() {
            *x = _mm512_fmadd_ps(*x, a, b);
        }
    }
    acc.iter().map(|&x| _mm512_reduce_add_ps(x)).sum()
}
