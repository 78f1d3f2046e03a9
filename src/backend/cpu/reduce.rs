//! Reductions: sums along an axis and row softmax.

use super::{CpuBuf, PAR_MIN};
use rayon::prelude::*;

/// The sum of f(a_i, b_i) over two runs of equal length, in eight interleaved partial sums so
/// that the loop vectorises (one running sum is a chain of dependent adds, a scalar add per
/// element).
#[inline(always)]
pub(super) fn lane_sum(a: &[f32], b: &[f32], f: impl Fn(f32, f32) -> f32) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let (runs_a, runs_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let rest: f32 = (runs_a.remainder().iter().zip(runs_b.remainder()))
        .map(|(&x, &y)| f(x, y))
        .sum();
    let mut lanes = [0.0f32; 8];
    for (ra, rb) in runs_a.zip(runs_b) {
        for ((l, &x), &y) in lanes.iter_mut().zip(ra).zip(rb) {
            *l += f(x, y);
        }
    }
    lanes.iter().sum::<f32>() + rest
}

pub fn sum_axis(x: &[f32], outer: usize, n: usize, inner: usize) -> CpuBuf {
    let mut out = vec![0.0f32; outer * inner];
    // Summing the last axis (batch norm's per-plane sums): each output is one contiguous run.
    if inner == 1 {
        let sum = |(o, dst): (usize, &mut f32)| {
            let run = &x[o * n..(o + 1) * n];
            *dst = lane_sum(run, run, |v, _| v)
        };
        if x.len() >= PAR_MIN {
            let per_task = (PAR_MIN / n.max(1)).max(1);
            out.par_iter_mut()
                .with_min_len(per_task)
                .enumerate()
                .for_each(sum);
        } else {
            out.iter_mut().enumerate().for_each(sum);
        }
        return CpuBuf::new(out);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every axis position and run length (remainders of the eight lanes included), on one
    /// thread and split across tasks, against a plain nested loop in f64.
    #[test]
    fn sums_along_any_axis_match_a_plain_loop() {
        for (outer, n, inner) in [(3, 5, 1), (7, 64, 1), (2, 9, 3), (1, 13, 4), (600, 67, 1)] {
            let x: Vec<f32> = (0..outer * n * inner)
                .map(|i| ((i * 7919) % 101) as f32 / 16.0 - 3.0)
                .collect();
            let got = sum_axis(&x, outer, n, inner);
            for o in 0..outer {
                for i in 0..inner {
                    let want: f64 = (0..n).map(|j| x[(o * n + j) * inner + i] as f64).sum();
                    let v = got.as_slice()[o * inner + i] as f64;
                    assert!(
                        (v - want).abs() < 1e-3,
                        "({outer}, {n}, {inner}) at ({o}, {i})"
                    );
                }
            }
        }
    }
}
