//! Tap convolutions ([`TapDims`]) on our SGEMM: out (c_out x cells) = W (c_out x c_in*taps) *
//! B, where B's row (c, t) and column (image g, cell s) is image g's channel c at the cell that
//! tap t of cell s reads. Packing reads those cells straight from the images into the
//! micro-kernel's panels, so no column matrix is made; the bias, residual and ReLU go into the
//! store as for the grid convolutions.

use super::super::CpuBuf;
use super::super::gemm::{Kernel, PackedA, Panels, tile_shape};
use super::{ConvRows, MAX_GROUP, Operand};
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
}

impl Panels for TapPanels<'_> {
    fn pack(&self, k: Range<usize>, cols: Range<usize>, nr: usize, dst: &mut [f32]) {
        let d = &self.d;
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

/// relu?(tap_conv(x, w) + bias? + residual?) on `kernel`, one of ours. The batch is shared
/// out over the threads in groups of at most `MAX_GROUP` images, each group one product.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward(
    kernel: Kernel,
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    residual: Option<&[f32]>,
    relu: bool,
    d: TapDims,
    table: &[u32],
) -> CpuBuf {
    let k = d.patch();
    let packed = PackedA::new(kernel, (d.c_out, k), w, (k, 1));
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
    out.par_chunks_mut(group * image)
        .enumerate()
        .for_each_init(Vec::new, |product, (j, dst)| {
            let images = j * group..j * group + dst.len() / image;
            let panels = TapPanels {
                x: &x[images.start * input..images.end * input],
                d,
                by_tap: &by_tap,
            };
            let rows = ConvRows {
                packed: Some((&packed, 0..d.c_out)),
                w,
                bias,
                residual: residual.map(|r| &r[images.start * image..images.end * image]),
                relu,
                k,
                pixels,
            };
            rows.compute(&Operand::Taps(panels), dst, product);
        });
    CpuBuf::new(out)
}
