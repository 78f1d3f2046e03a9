//! The AVX2+FMA direct kernels: a forward tile of 4 pixels by 16 output channels (8 ymm
//! accumulators; each tap loads two weight vectors and broadcasts four image cells), and a
//! weight-gradient tile of the 9 taps of one input channel by 8 output channels (9
//! accumulators of the 16 registers).

use super::DirectKernel;
use std::arch::x86_64::*;

pub(super) struct Avx2;

impl DirectKernel for Avx2 {
    const PX: usize = 4;
    const CH: usize = 16;
    const GW_CH: usize = 8;

    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_tile(
        c_in: usize,
        img: *const f32,
        (plane, wp): (usize, usize),
        w: *const f32,
        tile: *mut f32,
    ) {
        // SAFETY (whole body): the reads stay in the bordered planes and packed weights the caller
        // vouches for, the writes in its 4 x 16 tile.
        unsafe {
            let mut acc = [[_mm256_setzero_ps(); 2]; 4];
            let mut wv = w;
            for c in 0..c_in {
                let pc = img.add(c * plane);
                for ky in 0..3 {
                    for kx in 0..3 {
                        let p = pc.add(ky * wp + kx);
                        let w0 = _mm256_loadu_ps(wv);
                        let w1 = _mm256_loadu_ps(wv.add(8));
                        wv = wv.add(16);
                        for (i, a) in acc.iter_mut().enumerate() {
                            let x = _mm256_broadcast_ss(&*p.add(i));
                            a[0] = _mm256_fmadd_ps(x, w0, a[0]);
                            a[1] = _mm256_fmadd_ps(x, w1, a[1]);
                        }
                    }
                }
            }
            for (i, a) in acc.iter().enumerate() {
                _mm256_storeu_ps(tile.add(i * 16), a[0]);
                _mm256_storeu_ps(tile.add(i * 16 + 8), a[1]);
            }
        }
    }

    #[target_feature(enable = "avx2,fma")]
    unsafe fn weight_tile(
        (images, image, h, w): (usize, usize, usize, usize),
        img: *const f32,
        wp: usize,
        gt: *const f32,
        tile: *mut f32,
    ) {
        // SAFETY (whole body): as forward_tile's, for the images' planes of one channel, their
        // packed gradient and a 9 x 8 tile.
        unsafe {
            let mut acc = [_mm256_setzero_ps(); 9];
            let mut gv = gt;
            for g in 0..images {
                for oy in 0..h {
                    let row = img.add(g * image + oy * wp);
                    for ox in 0..w {
                        let p = row.add(ox);
                        let g0 = _mm256_loadu_ps(gv);
                        gv = gv.add(8);
                        for (t, a) in acc.iter_mut().enumerate() {
                            let x = _mm256_broadcast_ss(&*p.add(t / 3 * wp + t % 3));
                            *a = _mm256_fmadd_ps(x, g0, *a);
                        }
                    }
                }
            }
            for (t, &sum) in acc.iter().enumerate() {
                let at = tile.add(t * 8);
                _mm256_storeu_ps(at, _mm256_add_ps(_mm256_loadu_ps(at), sum));
            }
        }
    }
}
