//! The direct 3x3 convolution of board images (stride 1, padding 1), on our SIMD kernels, with
//! no column matrix and no packed image.
//!
//! The vector lanes run along output channels. The weights are packed once (per model version
//! in inference, per step in training) into blocks of `CH` output channels: for each tap
//! (c, ky, kx), `CH` consecutive values. A forward tile is `PX` pixels of one output row by `CH`
//! channels: for each tap it loads the weight vectors and broadcasts the `PX` image cells under
//! the tap straight from the zero-bordered image (one pointer, constant offsets), so the only
//! copy of the image is its border. The tile is then written to the (channels x pixels) output
//! transposed, with the bias, residual and ReLU on the way.
//!
//! The weight gradient dW^T (taps x c_out) = sum over pixels of image cell under the tap times
//! the output gradient: a tile is the 9 taps of one input channel by `GW_CH` output channels,
//! walking the pixels of a chunk of images; the output gradient is packed (pixel-major, `GW_CH`
//! channels a row), the image again read from its bordered copy.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

use super::super::gemm::Kernel;
use super::super::written;
use super::bordered::Bordered;
use super::{Epilogue, image_partials};
use crate::backend::ConvDims;
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// A direct kernel's tile shapes and tiles.
pub(super) trait DirectKernel {
    /// Output pixels (of one row) and channels of a forward tile.
    const PX: usize;
    const CH: usize;
    /// Output channels of a weight-gradient tile (whose rows are the 9 taps of a channel).
    const GW_CH: usize;

    /// tile[i][j] = sum over c < c_in, ky, kx < 3 of img[c * plane + ky * wp + kx + i] *
    /// w[((c * 3 + ky) * 3 + kx) * CH + j], for i < PX, j < CH.
    ///
    /// # Safety
    /// The CPU has the kernel's features; every read is inside the caller's slices and `tile`
    /// has PX * CH writable values.
    unsafe fn forward_tile(
        c_in: usize,
        img: *const f32,
        plane_wp: (usize, usize),
        w: *const f32,
        tile: *mut f32,
    );

    /// tile[t][j] += sum over images g < images, oy < h, ox < w of
    /// img[g * image + (oy + t / 3) * wp + ox + t % 3] * gt[((g * h + oy) * w + ox) * GW_CH + j].
    ///
    /// # Safety
    /// As for `forward_tile`; `tile` has 9 * GW_CH values.
    unsafe fn weight_tile(
        images_image_h_w: (usize, usize, usize, usize),
        img: *const f32,
        wp: usize,
        gt: *const f32,
        tile: *mut f32,
    );
}

/// Whether the direct convolution computes `d` on `kernel`: a 3x3 kernel, padding 1, stride 1,
/// rows a whole number of the kernel's tiles wide.
pub(super) fn serves(kernel: Kernel, d: &ConvDims) -> bool {
    let shape = d.kh == 3 && d.kw == 3 && d.pad_h == 1 && d.pad_w == 1 && d.unit_stride();
    shape && kernel.is_ours() && d.w.is_multiple_of(tile(kernel).0)
}

/// (PX, CH) of a kernel's forward tile.
fn tile(kernel: Kernel) -> (usize, usize) {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => (avx512::Avx512::PX, avx512::Avx512::CH),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => (avx2::Avx2::PX, avx2::Avx2::CH),
        _ => (usize::MAX, 0),
    }
}

/// The most values a forward tile has (AVX-512's 8 x 32).
const MAX_TILE: usize = 256;

/// Weights (c_out x c_in x 3 x 3) packed for a direct kernel: blocks of CH output channels, each
/// c_in * 9 rows of CH values (zero past c_out).
pub(crate) struct DirectWeights {
    kernel: Kernel,
    c_out: usize,
    c_in: usize,
    packed: Vec<f32>,
}

impl DirectWeights {
    pub fn new(kernel: Kernel, w: &[f32], (c_out, c_in): (usize, usize)) -> Self {
        let ch = tile(kernel).1;
        let taps = c_in * 9;
        assert_eq!(w.len(), c_out * taps, "direct weights: shape");
        let blocks = c_out.div_ceil(ch);
        let mut packed = vec![0.0f32; blocks * taps * ch];
        for (co, filter) in w.chunks_exact(taps).enumerate() {
            let block = &mut packed[(co / ch) * taps * ch..];
            for (t, &v) in filter.iter().enumerate() {
                block[t * ch + co % ch] = v;
            }
        }
        DirectWeights {
            kernel,
            c_out,
            c_in,
            packed,
        }
    }

    pub fn fits(&self, kernel: Kernel, (c_out, c_in): (usize, usize)) -> bool {
        (self.kernel, self.c_out, self.c_in) == (kernel, c_out, c_in)
    }
}

/// relu?(conv(x, w) + bias? + residual?) for (n, c_in, h, w) images.
pub(super) fn forward(w: &DirectWeights, x: &[f32], epi: Epilogue, d: &ConvDims) -> Vec<f32> {
    match w.kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => forward_on::<avx512::Avx512>(w, x, epi, d),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => forward_on::<avx2::Avx2>(w, x, epi, d),
        kernel => panic!("direct convolution on {kernel:?}"),
    }
}

fn forward_on<K: DirectKernel>(
    w: &DirectWeights,
    x: &[f32],
    epi: Epilogue,
    d: &ConvDims,
) -> Vec<f32> {
    assert!(w.fits(w.kernel, (d.c_out, d.c_in)) && d.w.is_multiple_of(K::PX));
    let pixels = d.h * d.w;
    let image = d.c_out * pixels;
    let threads = rayon::current_num_threads().max(1);
    let fill = |out: &mut [MaybeUninit<f32>]| {
        if d.n < threads {
            // Fewer images than threads (batch 1 in play): each image's channel blocks in parallel.
            let mut scratch = Vec::new();
            for (i, dst) in out.chunks_mut(image).enumerate() {
                let b = Bordered::new(x, i..i + 1, d, &mut scratch);
                dst.par_chunks_mut(K::CH * pixels)
                    .enumerate()
                    .for_each(|(blk, part)| image_block::<K>(w, &b, blk, part, (i, epi), d));
            }
        } else {
            out.par_chunks_mut(image)
                .enumerate()
                .for_each_init(Vec::new, |scratch, (i, dst)| {
                    let b = Bordered::new(x, i..i + 1, d, scratch);
                    for (blk, part) in dst.chunks_mut(K::CH * pixels).enumerate() {
                        image_block::<K>(w, &b, blk, part, (i, epi), d);
                    }
                });
        }
    };
    // SAFETY: every image's every channel block goes to `image_block`, which writes all its
    // cells.
    unsafe { written(d.n * image, fill) }
}

/// One image's output channels of block `blk` (`dst`, channels x pixels), tile by tile: every
/// cell is written.
fn image_block<K: DirectKernel>(
    w: &DirectWeights,
    b: &Bordered,
    blk: usize,
    dst: &mut [MaybeUninit<f32>],
    (i, epi): (usize, Epilogue),
    d: &ConvDims,
) {
    let pixels = d.h * d.w;
    let (plane, wp) = (b.plane(), b.wp());
    let cells = b.cells();
    let taps = d.c_in * 9;
    let weights = &w.packed[blk * taps * K::CH..][..taps * K::CH];
    let co0 = blk * K::CH;
    // The furthest cell a tile reads: its last channel's bottom-right tap (row h + 1 of the
    // bordered plane, column w + 1).
    assert!((d.c_in - 1) * plane + (d.h + 1) * wp + d.w + 1 < cells.len());
    let mut tile = [0.0f32; MAX_TILE];
    let tile = &mut tile[..K::PX * K::CH];
    for oy in 0..d.h {
        for ox in (0..d.w).step_by(K::PX) {
            let img = cells[oy * wp + ox..].as_ptr();
            // SAFETY: the kernel is one the CPU runs (`serves`); the reads end at the assert's
            // cell and at the block's weights, the writes fill `tile`.
            unsafe {
                K::forward_tile(
                    d.c_in,
                    img,
                    (plane, wp),
                    weights.as_ptr(),
                    tile.as_mut_ptr(),
                )
            };
            let at = oy * d.w + ox;
            for (j, row) in dst.chunks_exact_mut(pixels).enumerate() {
                let co = co0 + j;
                let add = epi.bias.map_or(0.0, |b| b[co]);
                let residual = epi
                    .residual
                    .map(|r| &r[(i * d.c_out + co) * pixels + at..][..K::PX]);
                for (px, o) in row[at..at + K::PX].iter_mut().enumerate() {
                    let mut v = tile[px * K::CH + j] + add;
                    if let Some(r) = residual {
                        v += r[px];
                    }
                    o.write(if epi.relu { v.max(0.0) } else { v });
                }
            }
        }
    }
}

/// Images a weight-gradient product walks at once: their bordered planes and packed gradient
/// (about 25 KB and 16 KB an image for 64 channels) stay in a core's L2.
const CHUNK: usize = 16;

/// dW (c_out x c_in x 3 x 3) of the images `x` (n, c_in, h, w) and output gradient `g`
/// (n, c_out, h, w).
pub(super) fn grad_weight(kernel: Kernel, x: &[f32], g: &[f32], d: &ConvDims) -> Vec<f32> {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => grad_weight_on::<avx512::Avx512>(x, g, d),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => grad_weight_on::<avx2::Avx2>(x, g, d),
        kernel => panic!("direct convolution on {kernel:?}"),
    }
}

fn grad_weight_on<K: DirectKernel>(x: &[f32], g: &[f32], d: &ConvDims) -> Vec<f32> {
    let pixels = d.h * d.w;
    let taps = d.c_in * 9;
    let ch = K::GW_CH;
    let blocks = d.c_out.div_ceil(ch);
    // Each task sums its images into dW^T (taps x blocks * GW_CH); then they are added.
    let partials = image_partials(d.n, taps * blocks * ch, |mine, acc| {
        let (mut scratch, mut gt) = (Vec::new(), Vec::new());
        for first in mine.clone().step_by(CHUNK) {
            let images = first..(first + CHUNK).min(mine.end);
            let count = images.len();
            let b = Bordered::new(x, images.clone(), d, &mut scratch);
            pack_gradient(
                &g[images.start * d.c_out * pixels..][..count * d.c_out * pixels],
                ch,
                d,
                &mut gt,
            );
            let (plane, wp) = (b.plane(), b.wp());
            let image = d.c_in * plane;
            let cells = b.cells();
            // The furthest cell a tile reads: the last image's last channel's bottom-right
            // tap.
            let last = (count - 1) * image + (d.c_in - 1) * plane + (d.h + 1) * wp + d.w + 1;
            assert!(last < cells.len());
            for c in 0..d.c_in {
                for blk in 0..blocks {
                    let grad = &gt[blk * count * pixels * ch..][..count * pixels * ch];
                    let tile = &mut acc[(c * blocks + blk) * 9 * ch..][..9 * ch];
                    // SAFETY: the kernel is one the CPU runs; the reads end inside the
                    // chunk's bordered cells (the assert) and its packed gradient block.
                    unsafe {
                        K::weight_tile(
                            (count, image, d.h, d.w),
                            cells[c * plane..].as_ptr(),
                            wp,
                            grad.as_ptr(),
                            tile.as_mut_ptr(),
                        )
                    };
                }
            }
        }
    });
    // dW[co][c * 9 + t] = sum of the partials' tile (c, co's block) row t, lane co % GW_CH.
    let mut total = vec![0.0f32; d.c_out * taps];
    for p in &partials {
        for (co, filter) in total.chunks_exact_mut(taps).enumerate() {
            let (blk, lane) = (co / ch, co % ch);
            for (c, kernel) in filter.chunks_exact_mut(9).enumerate() {
                let tile = &p[(c * blocks + blk) * 9 * ch..];
                kernel
                    .iter_mut()
                    .enumerate()
                    .for_each(|(t, o)| *o += tile[t * ch + lane]);
            }
        }
    }
    total
}

/// The output gradient of a chunk of images (count, c_out, h, w) packed into `gt`: blocks of
/// `ch` channels, each pixel-major (count * h * w rows of `ch` values, zero past c_out).
fn pack_gradient(g: &[f32], ch: usize, d: &ConvDims, gt: &mut Vec<f32>) {
    let pixels = d.h * d.w;
    let count = g.len() / (d.c_out * pixels);
    let blocks = d.c_out.div_ceil(ch);
    // Every cell is written below but the lanes past c_out, which must be zero.
    if !d.c_out.is_multiple_of(ch) {
        gt.clear();
    }
    gt.resize(blocks * count * pixels * ch, 0.0);
    for (i, img) in g.chunks_exact(d.c_out * pixels).enumerate() {
        for (co, plane) in img.chunks_exact(pixels).enumerate() {
            let block = &mut gt[((co / ch) * count + i) * pixels * ch..][..pixels * ch];
            for (p, &v) in plane.iter().enumerate() {
                block[p * ch + co % ch] = v;
            }
        }
    }
}
