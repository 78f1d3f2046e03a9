//! The direct convolution's operand: a stride-1 convolution whose padding keeps the image's
//! size (the board networks' 3x3 and 1x1 convolutions) reads its images straight into the
//! micro-kernel's panels from a zero-bordered copy, with no column matrix.
//!
//! Row (c, ky, kx) and column (image g, oy, ox) of B is the bordered image's cell
//! (g, c, oy + ky, ox + kx): for every kernel tap a panel's columns along one output row are a
//! run of consecutive cells at one offset, so packing is a copy a tap and a run (an 8-wide
//! board row: one vector move each).

use super::super::gemm::Panels;
use crate::backend::ConvDims;
use std::ops::Range;

/// Whether `d` is a convolution this operand serves: stride 1 and an output as large as its
/// input.
pub(super) fn serves(d: &ConvDims) -> bool {
    d.unit_stride() && d.out_h() == d.h && d.out_w() == d.w
}

/// The images of a product with their zero border, `planes` (h + 2 pad_h) x (w + 2 pad_w)
/// planes an image.
pub(super) struct Bordered<'a> {
    cells: &'a [f32],
    d: ConvDims,
    /// The bordered plane's width and size.
    wp: usize,
    plane: usize,
}

impl<'a> Bordered<'a> {
    /// The images `images` of `x` (n, c_in, h, w), bordered in `scratch` (or `x` itself when
    /// there is no padding).
    pub fn new(
        x: &'a [f32],
        images: Range<usize>,
        d: &ConvDims,
        scratch: &'a mut Vec<f32>,
    ) -> Self {
        debug_assert!(serves(d));
        let (hp, wp) = (d.h + 2 * d.pad_h, d.w + 2 * d.pad_w);
        let size = d.c_in * d.h * d.w;
        let image = &x[images.start * size..images.end * size];
        let cells = if d.pad_h == 0 && d.pad_w == 0 {
            image
        } else {
            scratch.clear();
            scratch.resize(images.len() * d.c_in * hp * wp, 0.0);
            let rows = scratch.chunks_exact_mut(wp);
            // Every plane's rows, skipping the border rows above and below.
            let inner = rows.enumerate().filter(|(r, _)| {
                let y = r % hp;
                y >= d.pad_h && y < d.pad_h + d.h
            });
            for ((_, dst), src) in inner.zip(image.chunks_exact(d.w)) {
                dst[d.pad_w..d.pad_w + d.w].copy_from_slice(src);
            }
            scratch
        };
        Bordered {
            cells,
            d: *d,
            wp,
            plane: hp * wp,
        }
    }
}

/// A run of a panel's columns along one output row: `len` columns from panel column `at`,
/// read from bordered cells `from..from + len` (for tap (0, 0, 0)).
#[derive(Clone, Copy, Default)]
struct Run {
    at: usize,
    from: usize,
    len: usize,
}

/// The most columns a panel has (a micro-kernel's NR).
const MAX_NR: usize = 64;

impl Panels for Bordered<'_> {
    fn pack(&self, k: Range<usize>, cols: Range<usize>, nr: usize, dst: &mut [f32]) {
        let d = &self.d;
        assert!(nr <= MAX_NR, "a panel of {nr} columns");
        let (pixels, image) = (d.h * d.w, d.c_in * self.plane);
        let mut runs = [Run::default(); MAX_NR];
        let mut count = 0;
        let mut j = cols.start;
        while j < cols.end {
            let (g, q) = (j / pixels, j % pixels);
            let (oy, ox) = (q / d.w, q % d.w);
            let len = (d.w - ox).min(cols.end - j);
            runs[count] = Run {
                at: j - cols.start,
                from: g * image + oy * self.wp + ox,
                len,
            };
            count += 1;
            j += len;
        }
        let runs = &runs[..count];
        let width = cols.len();
        let taps = d.kh * d.kw;
        let board_rows = runs.iter().all(|r| r.len == 8);
        for (t, row) in k.zip(dst.chunks_exact_mut(nr)) {
            let (c, ky, kx) = (t / taps, t % taps / d.kw, t % d.kw);
            let tap = &self.cells[c * self.plane + ky * self.wp + kx..];
            if board_rows {
                // A copy of a length known here is one vector move; a call to copy 8 values
                // (what a copy of a run's length becomes) costs more than the copy.
                for r in runs {
                    let src: &[f32; 8] = tap[r.from..r.from + 8].try_into().unwrap();
                    row[r.at..r.at + 8].copy_from_slice(src);
                }
            } else {
                for r in runs {
                    let (dst, src) = (&mut row[r.at..r.at + r.len], &tap[r.from..r.from + r.len]);
                    dst.iter_mut().zip(src).for_each(|(o, &v)| *o = v);
                }
            }
            row[width..].fill(0.0);
        }
    }
}
