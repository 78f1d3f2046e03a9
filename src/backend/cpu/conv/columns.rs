//! The column matrix of a convolution (im2col) and its adjoint (col2im).
//!
//! For one image the column matrix has a row per (c_in, ky, kx) and a column per output
//! pixel; then out (c_out x pixels) = W (c_out x c_in*kh*kw) * cols. A 1x1 kernel without
//! padding or stride needs no column matrix: the image is already in that form. With stride 1
//! the column matrix is built from bulk copies of the image (one per kernel tap when the
//! output is as wide as the image, else one per row segment); a longer stride has its own
//! im2col, which reads every stride-th cell.

use crate::backend::ConvDims;

pub(super) fn patch_len(d: &ConvDims) -> usize {
    d.c_in * d.kh * d.kw
}

pub(super) fn is_pointwise(d: &ConvDims) -> bool {
    d.kh == 1 && d.kw == 1 && d.pad_h == 0 && d.pad_w == 0 && d.unit_stride()
}

/// The output columns `ox` whose input column `ox * stride + kx - pad` is inside the image's
/// `w` columns (or, given rows, the output rows whose input row is inside its rows).
fn valid_cols(kx: usize, pad: usize, w: usize, wo: usize, stride: usize) -> std::ops::Range<usize> {
    let lo = pad.saturating_sub(kx).div_ceil(stride).min(wo);
    let hi = (w + pad)
        .saturating_sub(kx)
        .div_ceil(stride)
        .min(wo)
        .max(lo);
    lo..hi
}

/// The image row under output row `oy` for kernel row `ky`, if inside the image.
fn input_row(oy: usize, ky: usize, d: &ConvDims) -> Option<usize> {
    (oy * d.stride_h + ky)
        .checked_sub(d.pad_h)
        .filter(|&iy| iy < d.h)
}

/// One kernel tap (c, ky, kx) of a stride-1 conv and where it meets the image.
struct Tap {
    /// Its block of the column matrix: `ho * wo` cells from here (its row of a matrix whose
    /// rows are `ld` apart).
    block: usize,
    /// The output rows and columns whose input cell is inside the image (either empty: the
    /// tap reads only padding).
    rows: std::ops::Range<usize>,
    valid: std::ops::Range<usize>,
    /// The image cell under output row `rows.start`, column 0, before the column shift.
    first_row: usize,
}

fn taps(d: &ConvDims, ld: usize) -> impl Iterator<Item = Tap> + '_ {
    let (ho, wo) = (d.out_h(), d.out_w());
    (0..d.c_in * d.kh * d.kw).map(move |t| {
        let (c, ky, kx) = (t / (d.kh * d.kw), t / d.kw % d.kh, t % d.kw);
        let rows = valid_cols(ky, d.pad_h, d.h, ho, 1);
        Tap {
            block: t * ld,
            valid: valid_cols(kx, d.pad_w, d.w, wo, 1),
            first_row: (c * d.h + (rows.start + ky).saturating_sub(d.pad_h)) * d.w,
            rows,
        }
    })
}

impl Tap {
    fn is_padding(&self) -> bool {
        self.valid.is_empty() || self.rows.is_empty()
    }

    /// For a conv whose output is as wide as the image: the tap's run of rows `rows` (in the
    /// block, from `rows.start * w`) is the image read at one fixed offset. Returns (lo, hi,
    /// src): run cells lo..len - hi are image cells from src on; the others, and the cells
    /// outside columns `valid` in every row, wrapped round a row edge and are not the tap's.
    fn same_width_run(&self, d: &ConvDims, kx: usize) -> (usize, usize, usize) {
        let shift = kx as isize - d.pad_w as isize;
        let (lo, hi) = (shift.min(0).unsigned_abs(), shift.max(0) as usize);
        (lo, hi, (self.first_row + lo).wrapping_add_signed(shift))
    }
}

/// Zeroes the cells of `run` (rows of `w` cells) outside columns `valid`.
fn zero_outside(run: &mut [f32], valid: &std::ops::Range<usize>, w: usize) {
    for ox in (0..valid.start).chain(valid.end..w) {
        run[ox..].iter_mut().step_by(w).for_each(|v| *v = 0.0);
    }
}

/// Fills `cols` (patch_len rows `ld` apart, the first `pixels` cells of each) from one image
/// (c_in, h, w) for a stride-1 conv, with
/// zeros only where the kernel overhangs the padding. Where the output is as wide as the image
/// (the board nets' "same" 3x3 convs), a kernel tap's block over the output rows inside the
/// image is the image read at one fixed offset: one bulk copy per tap, after which the few
/// cells that wrapped round a row edge are zeroed. On an 8x8 board a copy per row segment
/// would be 8 cells each, and the calls to copy and fill them cost more than the data (they
/// were half of batch-1 inference); other shapes copy row segment by row segment.
fn im2col(img: &[f32], d: &ConvDims, cols: &mut [f32], ld: usize) {
    let (ho, wo) = (d.out_h(), d.out_w());
    for (t, tap) in taps(d, ld).enumerate() {
        let block = &mut cols[tap.block..tap.block + ho * wo];
        if tap.is_padding() {
            block.fill(0.0);
            continue;
        }
        let (rows, valid) = (&tap.rows, &tap.valid);
        block[..rows.start * wo].fill(0.0);
        block[rows.end * wo..].fill(0.0);
        let run = &mut block[rows.start * wo..rows.end * wo];
        if wo == d.w {
            let (lo, hi, src) = tap.same_width_run(d, t % d.kw);
            let n = run.len();
            run[lo..n - hi].copy_from_slice(&img[src..src + n - lo - hi]);
            zero_outside(run, valid, wo);
            continue;
        }
        let shift = valid.start + t % d.kw - d.pad_w;
        for (dst, src_row) in run.chunks_mut(wo).zip((tap.first_row..).step_by(d.w)) {
            let src = src_row + shift;
            dst[..valid.start].fill(0.0);
            dst[valid.clone()].copy_from_slice(&img[src..src + valid.len()]);
            dst[valid.end..].fill(0.0);
        }
    }
}

/// The runs of the column matrix (rows `ld` apart) in the general layout (any stride, output
/// narrower than the image): for each tap and output row, the range of `cols` its valid
/// cells take and the image index of the first, the next ones following every `stride_w`
/// cells.
fn column_runs(d: &ConvDims, ld: usize, mut visit: impl FnMut(std::ops::Range<usize>, usize)) {
    let (ho, wo) = (d.out_h(), d.out_w());
    for c in 0..d.c_in {
        for ky in 0..d.kh {
            for kx in 0..d.kw {
                let row = ((c * d.kh + ky) * d.kw + kx) * ld;
                let valid = valid_cols(kx, d.pad_w, d.w, wo, d.stride_w);
                if valid.is_empty() {
                    continue;
                }
                for oy in 0..ho {
                    let Some(iy) = input_row(oy, ky, d) else {
                        continue;
                    };
                    let start = (c * d.h + iy) * d.w + valid.start * d.stride_w + kx - d.pad_w;
                    let at = row + oy * wo;
                    visit(at + valid.start..at + valid.end, start);
                }
            }
        }
    }
}

/// [`im2col`] for strides above 1: every stride-th cell of the image rows.
fn im2col_strided(img: &[f32], d: &ConvDims, cols: &mut [f32], ld: usize) {
    let pixels = d.out_h() * d.out_w();
    for row in cols.chunks_mut(ld) {
        row[..pixels].fill(0.0);
    }
    column_runs(d, ld, |run, start| {
        let src = img[start..].iter().step_by(d.stride_w);
        cols[run].iter_mut().zip(src).for_each(|(o, &v)| *o = v);
    });
}

/// Adds the column-matrix gradient back onto one image's gradient (the adjoint of im2col).
/// For a same-width stride-1 conv a tap's run is added in one pass at its fixed offset, as
/// im2col copies it, after zeroing the wrapped cells (`cols` is scratch).
pub(super) fn col2im(cols: &mut [f32], d: &ConvDims, img: &mut [f32]) {
    let (ho, wo) = (d.out_h(), d.out_w());
    if d.unit_stride() && wo == d.w {
        for (t, tap) in taps(d, ho * wo).enumerate() {
            if tap.is_padding() {
                continue;
            }
            let run = &mut cols[tap.block + tap.rows.start * wo..tap.block + tap.rows.end * wo];
            zero_outside(run, &tap.valid, wo);
            let (lo, hi, src) = tap.same_width_run(d, t % d.kw);
            let n = run.len();
            let dst = &mut img[src..src + n - lo - hi];
            dst.iter_mut()
                .zip(&run[lo..n - hi])
                .for_each(|(o, &g)| *o += g);
        }
        return;
    }
    column_runs(d, ho * wo, |run, start| {
        let src = &cols[run];
        let add = |(o, &g): (&mut f32, &f32)| *o += g;
        if d.stride_w == 1 {
            img[start..start + src.len()]
                .iter_mut()
                .zip(src)
                .for_each(add);
        } else {
            let dst = img[start..].iter_mut().step_by(d.stride_w);
            dst.zip(src).for_each(add);
        }
    });
}

/// The column matrix of `images` side by side (patch_len x images*pixels, image `g`'s
/// columns from `g * pixels`): borrowed for a pointwise conv of one image, else built in
/// `scratch`.
pub(super) fn columns<'a>(
    x: &'a [f32],
    images: std::ops::Range<usize>,
    d: &ConvDims,
    scratch: &'a mut Vec<f32>,
) -> &'a [f32] {
    let size = d.c_in * d.h * d.w;
    let pixels = d.out_h() * d.out_w();
    let ld = images.len() * pixels;
    if is_pointwise(d) && images.len() == 1 {
        return &x[images.start * size..images.end * size];
    }
    scratch.resize(patch_len(d) * ld, 0.0);
    for (g, i) in images.enumerate() {
        let img = &x[i * size..(i + 1) * size];
        let cols = &mut scratch[g * pixels..];
        if is_pointwise(d) {
            for (row, plane) in cols.chunks_mut(ld).zip(img.chunks(pixels)) {
                row[..pixels].copy_from_slice(plane);
            }
        } else if d.unit_stride() {
            im2col(img, d, cols, ld);
        } else {
            im2col_strided(img, d, cols, ld);
        }
    }
    scratch
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column matrix by its definition: cell (c, ky, kx; oy, ox) is the image at
    /// (c, oy * stride + ky - pad, ox * stride + kx - pad), or zero outside the image.
    fn im2col_by_definition(img: &[f32], d: &ConvDims) -> Vec<f32> {
        let (ho, wo) = (d.out_h(), d.out_w());
        let mut out = Vec::new();
        for c in 0..d.c_in {
            for ky in 0..d.kh {
                for kx in 0..d.kw {
                    for oy in 0..ho {
                        for ox in 0..wo {
                            let iy = (oy * d.stride_h + ky).checked_sub(d.pad_h);
                            let ix = (ox * d.stride_w + kx).checked_sub(d.pad_w);
                            out.push(match (iy, ix) {
                                (Some(iy), Some(ix)) if iy < d.h && ix < d.w => {
                                    img[(c * d.h + iy) * d.w + ix]
                                }
                                _ => 0.0,
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// Every im2col and col2im path (same width, row segments, strided) against the
    /// definition, with distinct image values so that a cell read from the wrong place shows.
    #[test]
    fn im2col_and_col2im_match_their_definition() {
        // (c_in, h, w, kh, kw, pad_h, pad_w, stride_h, stride_w)
        let shapes = [
            (3, 8, 8, 3, 3, 1, 1, 1, 1),
            (2, 8, 8, 5, 5, 2, 2, 1, 1),
            (2, 4, 6, 3, 1, 1, 0, 1, 1),
            (2, 8, 8, 1, 8, 0, 0, 1, 1),
            (2, 8, 8, 8, 1, 0, 0, 1, 1),
            (1, 3, 3, 3, 3, 3, 3, 1, 1),
            (1, 3, 3, 7, 7, 3, 3, 1, 1),
            (2, 5, 7, 3, 3, 0, 1, 1, 1),
            (2, 8, 8, 3, 3, 0, 0, 5, 5),
            (2, 7, 6, 3, 2, 1, 1, 2, 3),
        ];
        for (c_in, h, w, kh, kw, pad_h, pad_w, stride_h, stride_w) in shapes {
            let d = ConvDims {
                n: 1,
                c_in,
                h,
                w,
                c_out: 1,
                kh,
                kw,
                pad_h,
                pad_w,
                stride_h,
                stride_w,
            };
            let img: Vec<f32> = (0..c_in * h * w).map(|i| i as f32 + 1.0).collect();
            let mut scratch = Vec::new();
            let cols = columns(&img, 0..1, &d, &mut scratch);
            let want = im2col_by_definition(&img, &d);
            assert_eq!(cols, want, "{d:?}");
            // col2im is im2col's adjoint: <im2col(x), g> = <x, col2im(g)> for every g; with
            // g a unit vector, col2im(g) must be the image cell that column cell was read from.
            for (j, &read) in want.iter().enumerate() {
                let mut g = vec![0.0; want.len()];
                g[j] = 1.0;
                let mut back = vec![0.0; img.len()];
                col2im(&mut g, &d, &mut back);
                let picked: f32 = back.iter().zip(&img).map(|(b, x)| b * x).sum();
                assert_eq!(picked, read, "{d:?}: column cell {j}");
            }
        }
    }
}
