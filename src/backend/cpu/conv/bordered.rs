//! Zero-bordered copies of images, for stride-1 convolutions whose padding keeps the image's
//! size. The direct 3x3 convolution (`direct`) reads their cells in place; the other such
//! convolutions on our SGEMM (the 1x1 heads, 5x5) read them straight into the micro-kernel's
//! panels, with no column matrix.
//!
//! As the SGEMM's B, row (c, ky, kx) and column (image g, oy, ox) is the bordered image's
//! cell (g, c, oy + ky, ox + kx): for every kernel tap a panel's columns along one output row
//! are a run of consecutive cells at one offset, so packing is a copy a tap and a run (an
//! 8-wide board row: one vector move each).

use super::super::gemm::Panels;
use crate::backend::ConvDims;
use std::ops::Range;

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
        debug_assert!(super::keeps_size(d));
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

impl Bordered<'_> {
    pub fn cells(&self) -> &[f32] {
        self.cells
    }
    /// The bordered plane's size and width.
    pub fn plane(&self) -> usize {
        self.plane
    }
    pub fn wp(&self) -> usize {
        self.wp
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
        let (taps, kw) = (d.kh * d.kw, d.kw);
        let tap_at = |t: usize| (t / taps) * self.plane + (t % taps / kw) * self.wp + t % kw;
        if k.is_empty() {
            return;
        }
        // Tap offsets grow with the tap: the last tap's reads are the furthest.
        let last = tap_at(k.end - 1);
        assert!(
            runs.iter()
                .all(|r| last + r.from + r.len <= self.cells.len())
        );
        assert!(dst.len() >= k.len() * nr && runs.iter().all(|r| r.at + r.len <= width));
        if runs.iter().all(|r| r.len == 8) && board_copies() {
            // SAFETY: the CPU has AVX (`board_copies`); the asserts above bound every read and
            // write.
            #[cfg(target_arch = "x86_64")]
            unsafe {
                copy_board_rows(self.cells, k.clone().map(tap_at), runs, dst, nr)
            };
        } else {
            for (t, row) in k.clone().zip(dst.chunks_exact_mut(nr)) {
                let tap = &self.cells[tap_at(t)..];
                for r in runs {
                    let (dst, src) = (&mut row[r.at..r.at + r.len], &tap[r.from..r.from + r.len]);
                    dst.iter_mut().zip(src).for_each(|(o, &v)| *o = v);
                }
            }
        }
        for row in dst.chunks_exact_mut(nr).take(k.len()) {
            row[width..].fill(0.0);
        }
    }
}

/// Whether board rows are copied as 256-bit moves (the CPU has AVX, as our kernels need; the
/// element loop otherwise).
fn board_copies() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Packs runs of 8 (board rows): one row of `nr` panel values a tap offset, each run one
/// 256-bit load and store. On the baseline target a copy of 8 values is two 128-bit moves, and
/// a copy of a run's length is a call to `memmove`, which cost more than the data.
///
/// # Safety
/// The CPU has AVX; every `tap + run.from + 8` is within `cells` and every `run.at + 8` within a
/// row of `nr`; `dst` has a row for each tap.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn copy_board_rows(
    cells: &[f32],
    taps: impl Iterator<Item = usize>,
    runs: &[Run],
    dst: &mut [f32],
    nr: usize,
) {
    use std::arch::x86_64::{_mm256_loadu_ps, _mm256_storeu_ps};
    let (src, out) = (cells.as_ptr(), dst.as_mut_ptr());
    for (i, tap) in taps.enumerate() {
        for r in runs {
            // SAFETY: the caller's contract bounds both ends.
            unsafe {
                _mm256_storeu_ps(
                    out.add(i * nr + r.at),
                    _mm256_loadu_ps(src.add(tap + r.from)),
                )
            };
        }
    }
}
