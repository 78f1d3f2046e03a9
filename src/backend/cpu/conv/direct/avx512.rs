//! The AVX-512 direct kernels: a forward tile of 8 pixels by 32 output channels (16 zmm
//! accumulators; each tap loads two weight vectors and broadcasts eight image cells), and a
//! weight-gradient tile of the 9 taps of one input channel by 32 output channels (18
//! accumulators; each pixel loads two gradient vectors and broadcasts nine image cells).

use super::DirectKernel;
use std::arch::x86_64::*;

pub(super) struct Avx512;

impl DirectKernel for Avx512 {
    const PX: usize = 8;
    const CH: usize = 32;
    const GW_CH: usize = 32;

    #[target_feature(enable = "avx512f")]
    unsafe fn forward_tile(
        c_in: usize,
        img: *const f32,
        (plane, wp): (usize, usize),
        w: *const f32,
        tile: *mut f32,
    ) {
        // SAFETY (whole body): the reads stay in the bordered planes and packed weights the caller
        // vouches for, the writes in its 8 x 32 tile.
        unsafe {
            let mut acc = [[_mm512_setzero_ps(); 2]; 8];
            let mut wv = w;
            for c in 0..c_in {
                let pc = img.add(c * plane);
                for ky in 0..3 {
                    for kx in 0..3 {
                        let p = pc.add(ky * wp + kx);
                        let w0 = _mm512_loadu_ps(wv);
                        let w1 = _mm512_loadu_ps(wv.add(16));
                        wv = wv.add(32);
                        for (i, a) in acc.iter_mut().enumerate() {
                            let x = _mm512_set1_ps(*p.add(i));
                            a[0] = _mm512_fmadd_ps(x, w0, a[0]);
                            a[1] = _mm512_fmadd_ps(x, w1, a[1]);
                        }
                    }
                }
            }
            for (i, a) in acc.iter().enumerate() {
                _mm512_storeu_ps(tile.add(i * 32), a[0]);
                _mm512_storeu_ps(tile.add(i * 32 + 16), a[1]);
            }
        }
    }

    #[target_feature(enable = "avx512f")]
    unsafe fn weight_tile(
        (images, image, h, w): (usize, usize, usize, usize),
        img: *const f32,
        wp: usize,
        gt: *const f32,
        tile: *mut f32,
    ) {
        // SAFETY (whole body): as forward_tile's, for the images' planes of one channel, their
        // packed gradient and a 9 x 32 tile.
        unsafe {
            let mut acc = [[_mm512_setzero_ps(); 2]; 9];
            let mut gv = gt;
            for g in 0..images {
                for oy in 0..h {
                    let row = img.add(g * image + oy * wp);
                    for ox in 0..w {
                        let p = row.add(ox);
                        let g0 = _mm512_loadu_ps(gv);
                        let g1 = _mm512_loadu_ps(gv.add(16));
                        gv = gv.add(32);
                        for (t, a) in acc.iter_mut().enumerate() {
                            let x = _mm512_set1_ps(*p.add(t / 3 * wp + t % 3));
                            a[0] = _mm512_fmadd_ps(x, g0, a[0]);
                            a[1] = _mm512_fmadd_ps(x, g1, a[1]);
                        }
                    }
                }
            }
            for (t, a) in acc.iter().enumerate() {
                for (v, &sum) in a.iter().enumerate() {
                    let at = tile.add(t * 32 + v * 16);
                    _mm512_storeu_ps(at, _mm512_add_ps(_mm512_loadu_ps(at), sum));
                }
            }
        }
    }
}
