//! Stride-1 convolution as im2col + SGEMM, one image per task.
//!
//! For one image the column matrix has a row per (c_in, ky, kx) and a column per output
//! pixel; then out (c_out x pixels) = W (c_out x c_in*kh*kw) * cols. A 1x1 kernel without
//! padding needs no column matrix: the image is already in that form.

use super::CpuBuf;
use super::matmul::gemm;
use crate::backend::ConvDims;
use rayon::prelude::*;

fn patch_len(d: &ConvDims) -> usize {
    d.c_in * d.kh * d.kw
}

fn is_pointwise(d: &ConvDims) -> bool {
    d.kh == 1 && d.kw == 1 && d.pad_h == 0 && d.pad_w == 0
}

/// The output columns `ox` whose input column `ox + kx - pad` is inside the image.
fn valid_cols(kx: usize, pad: usize, w: usize, wo: usize) -> std::ops::Range<usize> {
    let lo = pad.saturating_sub(kx).min(wo);
    let hi = (w + pad).saturating_sub(kx).min(wo).max(lo);
    lo..hi
}

/// Fills `cols` (patch_len x pixels) from one image (c_in, h, w): each row segment is one
/// bulk copy, with zeros only where the kernel overhangs the padding.
fn im2col(img: &[f32], d: &ConvDims, cols: &mut [f32]) {
    let (ho, wo) = (d.out_h(), d.out_w());
    for c in 0..d.c_in {
        for ky in 0..d.kh {
            for kx in 0..d.kw {
                let row = ((c * d.kh + ky) * d.kw + kx) * ho * wo;
                let valid = valid_cols(kx, d.pad_w, d.w, wo);
                for oy in 0..ho {
                    let iy = oy as isize + ky as isize - d.pad_h as isize;
                    let dst = &mut cols[row + oy * wo..row + (oy + 1) * wo];
                    if iy < 0 || iy >= d.h as isize || valid.is_empty() {
                        dst.fill(0.0);
                        continue;
                    }
                    let src_row = (c * d.h + iy as usize) * d.w;
                    let shift = valid.start + kx - d.pad_w;
                    dst[..valid.start].fill(0.0);
                    dst[valid.clone()]
                        .copy_from_slice(&img[src_row + shift..src_row + shift + valid.len()]);
                    dst[valid.end..].fill(0.0);
                }
            }
        }
    }
}

/// Adds the column-matrix gradient back onto one image's gradient (the adjoint of im2col).
fn col2im(cols: &[f32], d: &ConvDims, img: &mut [f32]) {
    let (ho, wo) = (d.out_h(), d.out_w());
    for c in 0..d.c_in {
        for ky in 0..d.kh {
            for kx in 0..d.kw {
                let row = ((c * d.kh + ky) * d.kw + kx) * ho * wo;
                for oy in 0..ho {
                    let iy = oy as isize + ky as isize - d.pad_h as isize;
                    if iy < 0 || iy >= d.h as isize {
                        continue;
                    }
                    let base = (c * d.h + iy as usize) * d.w;
                    for ox in 0..wo {
                        let ix = ox as isize + kx as isize - d.pad_w as isize;
                        if ix >= 0 && ix < d.w as isize {
                            img[base + ix as usize] += cols[row + oy * wo + ox];
                        }
                    }
                }
            }
        }
    }
}

/// The column matrix of image `i`: borrowed for a pointwise conv, else built in `scratch`.
fn columns<'a>(x: &'a [f32], i: usize, d: &ConvDims, scratch: &'a mut Vec<f32>) -> &'a [f32] {
    let img = &x[i * d.c_in * d.h * d.w..(i + 1) * d.c_in * d.h * d.w];
    if is_pointwise(d) {
        return img;
    }
    scratch.resize(patch_len(d) * d.out_h() * d.out_w(), 0.0);
    im2col(img, d, scratch);
    scratch
}

/// relu?(conv(x, w) + bias? + residual?). The bias and residual are written into each image's
/// output before the product accumulates onto it, and the ReLU runs while the image is still
/// in cache, so the epilogue costs no extra pass over memory.
pub fn forward(
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    residual: Option<&[f32]>,
    relu: bool,
    d: ConvDims,
) -> CpuBuf {
    let pixels = d.out_h() * d.out_w();
    let k = patch_len(&d);
    let image = d.c_out * pixels;
    let mut out = vec![0.0f32; d.n * image];
    out.par_chunks_mut(image)
        .enumerate()
        .for_each_init(Vec::new, |scratch, (i, dst)| {
            if let Some(r) = residual {
                dst.copy_from_slice(&r[i * image..(i + 1) * image]);
            }
            if let Some(b) = bias {
                for (plane, &bv) in dst.chunks_mut(pixels).zip(b) {
                    if residual.is_some() {
                        plane.iter_mut().for_each(|v| *v += bv);
                    } else {
                        plane.fill(bv);
                    }
                }
            }
            let cols = columns(x, i, &d, scratch);
            let accumulate = bias.is_some() || residual.is_some();
            gemm(
                d.c_out,
                k,
                pixels,
                w,
                (k, 1),
                cols,
                (pixels, 1),
                dst,
                accumulate,
            );
            if relu {
                dst.iter_mut().for_each(|v| *v = v.max(0.0));
            }
        });
    CpuBuf::new(out)
}

pub fn grad_input(g: &[f32], w: &[f32], d: ConvDims) -> CpuBuf {
    let pixels = d.out_h() * d.out_w();
    let k = patch_len(&d);
    let image = d.c_in * d.h * d.w;
    let mut out = vec![0.0f32; d.n * image];
    out.par_chunks_mut(image).enumerate().for_each_init(
        Vec::new,
        |scratch: &mut Vec<f32>, (i, dst)| {
            let gi = &g[i * d.c_out * pixels..(i + 1) * d.c_out * pixels];
            if is_pointwise(&d) {
                // dx = W^T g directly.
                gemm(k, d.c_out, pixels, w, (1, k), gi, (pixels, 1), dst, false);
                return;
            }
            scratch.resize(k * pixels, 0.0);
            gemm(
                k,
                d.c_out,
                pixels,
                w,
                (1, k),
                gi,
                (pixels, 1),
                scratch,
                false,
            );
            col2im(scratch, &d, dst);
        },
    );
    CpuBuf::new(out)
}

pub fn grad_weight(x: &[f32], g: &[f32], d: ConvDims) -> CpuBuf {
    let pixels = d.out_h() * d.out_w();
    let k = patch_len(&d);
    // Each task sums its images' contributions into its own accumulator; then they are added.
    let threads = rayon::current_num_threads().max(1);
    let per_task = d.n.div_ceil(threads).max(1);
    let partials: Vec<Vec<f32>> = (0..d.n)
        .step_by(per_task)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|start| {
            let mut acc = vec![0.0f32; d.c_out * k];
            let mut scratch = Vec::new();
            for i in start..(start + per_task).min(d.n) {
                let gi = &g[i * d.c_out * pixels..(i + 1) * d.c_out * pixels];
                let cols = columns(x, i, &d, &mut scratch);
                // dW (c_out x k) += g_i (c_out x pixels) * cols^T (pixels x k)
                gemm(
                    d.c_out,
                    pixels,
                    k,
                    gi,
                    (pixels, 1),
                    cols,
                    (1, pixels),
                    &mut acc,
                    true,
                );
            }
            acc
        })
        .collect();
    let mut total = vec![0.0f32; d.c_out * k];
    for p in partials {
        for (t, v) in total.iter_mut().zip(p) {
            *t += v;
        }
    }
    CpuBuf::new(total)
}
