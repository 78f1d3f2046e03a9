//! Reductions: sums along an axis and row softmax.

use super::{CpuBuf, PAR_MIN};
use rayon::prelude::*;

pub fn sum_axis(x: &[f32], outer: usize, n: usize, inner: usize) -> CpuBuf {
    let mut out = vec![0.0f32; outer * inner];
    let block = |(o, dst): (usize, &mut [f32])| {
        let src = &x[o * n * inner..(o + 1) * n * inner];
        for row in src.chunks_exact(inner) {
            for (d, &v) in dst.iter_mut().zip(row) {
                *d += v;
            }
        }
    };
    if x.len() >= PAR_MIN && outer > 1 {
        out.par_chunks_mut(inner).enumerate().for_each(block);
    } else {
        out.chunks_mut(inner).enumerate().for_each(block);
    }
    CpuBuf::new(out)
}

pub fn softmax(x: &[f32], rows: usize, cols: usize, log: bool) -> CpuBuf {
    let mut out = vec![0.0f32; rows * cols];
    let row = |(src, dst): (&[f32], &mut [f32])| {
        let max = src.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0f32;
        for (d, &v) in dst.iter_mut().zip(src) {
            *d = (v - max).exp();
            sum += *d;
        }
        if log {
            let log_sum = sum.ln();
            for (d, &v) in dst.iter_mut().zip(src) {
                *d = v - max - log_sum;
            }
        } else {
            let inv = 1.0 / sum;
            dst.iter_mut().for_each(|d| *d *= inv);
        }
    };
    if x.len() >= PAR_MIN {
        x.par_chunks(cols)
            .zip(out.par_chunks_mut(cols))
            .for_each(row);
    } else {
        x.chunks(cols).zip(out.chunks_mut(cols)).for_each(row);
    }
    CpuBuf::new(out)
}
