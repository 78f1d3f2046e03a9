//! Tap convolutions ([`TapDims`]) on our SGEMM: out (c_out x cells) = W (c_out x c_in*taps) *
//! B, where B's row (c, t) and column (image g, cell s) is image g's channel c at the cell that
//! tap t of cell s reads. Packing reads those cells straight from the images into the
//! micro-kernel's panels, so no column matrix is made; the bias, residual and ReLU go into the
//! store as for the grid convolutions.

use super::super::CpuBuf;
use super::super::gemm::{Kernel, PackedA, Panels, tile_shape};
use super::{ConvRows, MAX_GROUP, Operand, Packing, cached_as};
use crate::backend::TapDims;
use rayon::prelude::*;
use std::ops::Range;

/// Some images of a tap convolution's input, as the SGEMM's B.
pub(super) struct TapPanels<'a> {
    /// The images, (images, c_in, cells_in).
    x: &'a [f32],
    d: TapDims,
    /// The table tap-major: `by_tap[t * cells_out + s]` is the cell tap t of cell s reads.
    by_tap: &'a [u32],
    /// On the AVX-512 kernel, for images of 32 cells in and out (a dark-square layer).
    #[cfg(target_arch = "x86_64")]
    lanes: Option<&'a avx512::Lanes>,
}

impl Panels for TapPanels<'_> {
    fn pack(&self, k: Range<usize>, cols: Range<usize>, nr: usize, dst: &mut [f32]) {
        let d = &self.d;
        #[cfg(target_arch = "x86_64")]
        if let Some(lanes) = self.lanes
            && cols.len() == avx512::CELLS
            && nr == avx512::CELLS
            && cols.start.is_multiple_of(avx512::CELLS)
        {
            let image = cols.start / avx512::CELLS * d.c_in * d.cells_in;
            // SAFETY: lanes are made only for the AVX-512 kernel, which runs only on a CPU
            // with AVX-512F; the image's planes and the panel's rows are in bounds.
            unsafe { avx512::pack(&self.x[image..], d, lanes, k, dst) };
            return;
        }
        let width = cols.len();
        for (p, row) in k.zip(dst.chunks_exact_mut(nr)) {
            let (c, t) = (p / d.taps, p % d.taps);
            let reads = &self.by_tap[t * d.cells_out..][..d.cells_out];
            // The columns a run an image: cells s0.. of image g.
            let (mut j, mut at) = (cols.start, 0);
            while j < cols.end {
                let (g, s0) = (j / d.cells_out, j % d.cells_out);
                let len = (d.cells_out - s0).min(cols.end - j);
                let plane = &self.x[(g * d.c_in + c) * d.cells_in..][..d.cells_in];
                let out = &mut row[at..at + len];
                // NO_CELL is past every plane: it reads zero.
                for (o, &cell) in out.iter_mut().zip(&reads[s0..s0 + len]) {
                    *o = plane.get(cell as usize).copied().unwrap_or(0.0);
                }
                (j, at) = (j + len, at + len);
            }
            row[width..].fill(0.0);
        }
    }
}

/// Packing a 32-cell image's panel rows with two permutes a row: a row of the panel is a
/// channel's 32 cells (two vectors) permuted by the tap, zero where the tap reads nothing.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::TapDims;
    use crate::backend::NO_CELL;
    use std::arch::x86_64::*;
    use std::ops::Range;

    /// Cells of an image the permutes serve, in and out: one panel of the AVX-512 tile.
    pub const CELLS: usize = 32;

    /// Per tap, the cell each of the 32 outputs reads (0 where none) and the mask of those
    /// that read one.
    pub struct Lanes {
        index: Vec<[i32; CELLS]>,
        mask: Vec<u32>,
    }

    impl Lanes {
        /// For a table of 32 cells in and out, tap-major (`by_tap`).
        pub fn new(d: &TapDims, by_tap: &[u32]) -> Option<Lanes> {
            if d.cells_in != CELLS || d.cells_out != CELLS {
                return None;
            }
            let mut lanes = Lanes {
                index: vec![[0; CELLS]; d.taps],
                mask: vec![0; d.taps],
            };
            for (t, reads) in by_tap.chunks_exact(CELLS).enumerate() {
                for (s, &cell) in reads.iter().enumerate() {
                    if cell != NO_CELL {
                        lanes.index[t][s] = cell as i32;
                        lanes.mask[t] |= 1 << s;
                    }
                }
            }
            Some(lanes)
        }
    }

    /// Panel rows `k` (32 values each) of the image whose planes start `x`.
    ///
    /// # Safety
    /// The CPU has AVX-512F; `x` holds the image's `c_in` planes of 32 cells; `dst` holds
    /// `k.len()` rows of 32.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn pack(x: &[f32], d: &TapDims, lanes: &Lanes, k: Range<usize>, dst: &mut [f32]) {
        for (p, row) in k.zip(dst.chunks_exact_mut(CELLS)) {
            let (c, t) = (p / d.taps, p % d.taps);
            let plane = &x[c * CELLS..][..CELLS];
            let (index, mask) = (&lanes.index[t], lanes.mask[t]);
            // SAFETY: every load and store is of 16 values inside `plane`, `index` or `row`.
            unsafe {
                let lo = _mm512_loadu_ps(plane.as_ptr());
                let hi = _mm512_loadu_ps(plane.as_ptr().add(16));
                for h in 0..2 {
                    let at = _mm512_loadu_epi32(index.as_ptr().add(16 * h));
                    let keep = (mask >> (16 * h)) as u16;
                    let v = _mm512_maskz_permutex2var_ps(keep, lo, at, hi);
                    _mm512_storeu_ps(row.as_mut_ptr().add(16 * h), v);
                }
            }
        }
    }
}

/// Multiply-adds of a product small enough to compute on the calling thread: handing it to
/// the pool and waiting (a wake-up and a sleep each layer) cost more than splitting it saves.
/// dark-tiny's layer at batch 8 is 1.3 M.
const INLINE_MAX_MACS: usize = 1 << 22;

/// relu?(tap_conv(x, w) + bias? + residual?) on `kernel`, one of ours. The batch is shared
/// out over the threads in groups of at most `MAX_GROUP` images, each group one product;
/// a small batch is computed on the calling thread.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward(
    kernel: Kernel,
    x: &[f32],
    w: &CpuBuf,
    bias: Option<&[f32]>,
    residual: Option<&[f32]>,
    relu: bool,
    d: TapDims,
    table: &[u32],
) -> CpuBuf {
    let k = d.patch();
    // Inference's weights are one buffer a model version: packed once, then kept.
    let fits = |p: &Packing| matches!(p, Packing::Gemm(a) if a.fits(kernel, (d.c_out, k)));
    let make = || Packing::Gemm(PackedA::new(kernel, (d.c_out, k), w.as_slice(), (k, 1)));
    let packing = cached_as(w, fits, make);
    let Packing::Gemm(packed) = &*packing else {
        unreachable!("a tap convolution's weights are packed for the SGEMM")
    };
    let w = w.as_slice();
    let pixels = d.cells_out;
    let image = d.c_out * pixels;
    let mut out = vec![0.0f32; d.n * image];
    let threads = rayon::current_num_threads().max(1);
    // Our kernels write a group's images in place, which needs every tile inside one image.
    let max_group = if pixels.is_multiple_of(tile_shape(kernel).1) {
        MAX_GROUP
    } else {
        1
    };
    let group = d.n.div_ceil(threads).clamp(1, max_group);
    let input = d.c_in * d.cells_in;
    let by_tap: Vec<u32> = (0..d.taps)
        .flat_map(|t| (0..d.cells_out).map(move |s| table[s * d.taps + t]))
        .collect();
    #[cfg(target_arch = "x86_64")]
    let lanes = (kernel == Kernel::Avx512)
        .then(|| avx512::Lanes::new(&d, &by_tap))
        .flatten();
    let compute = |product: &mut Vec<f32>, (j, dst): (usize, &mut [f32])| {
        let images = j * group..j * group + dst.len() / image;
        let panels = TapPanels {
            x: &x[images.start * input..images.end * input],
            d,
            by_tap: &by_tap,
            #[cfg(target_arch = "x86_64")]
            lanes: lanes.as_ref(),
        };
        let rows = ConvRows {
            packed: Some((packed, 0..d.c_out)),
            w,
            bias,
            residual: residual.map(|r| &r[images.start * image..images.end * image]),
            relu,
            k,
            pixels,
        };
        rows.compute(&Operand::Taps(panels), dst, product);
    };
    if d.n * d.c_out * k * pixels <= INLINE_MAX_MACS {
        let mut product = Vec::new();
        out.chunks_mut(group * image)
            .enumerate()
            .for_each(|task| compute(&mut product, task));
    } else {
        out.par_chunks_mut(group * image)
            .enumerate()
            .for_each_init(Vec::new, compute);
    }
    CpuBuf::new(out)
}
