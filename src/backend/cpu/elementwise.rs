//! Elementwise kernels. Broadcasting first merges adjacent axes that both inputs walk the same
//! way, so common cases (a per-channel operand on NCHW) become long rows against a scalar.

use super::{CpuBuf, PAR_MIN, written};
use crate::backend::{BinaryOp, UnaryOp};
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Elements per parallel task: large enough that scheduling is negligible.
const CHUNK: usize = 1 << 13;

#[inline(always)]
pub(crate) fn unary_scalar(op: UnaryOp, x: f32) -> f32 {
    match op {
        UnaryOp::Neg => -x,
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Relu => x.max(0.0),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        UnaryOp::AddScalar(c) => x + c,
        UnaryOp::MulScalar(c) => x * c,
        UnaryOp::PowScalar(c) => x.powf(c),
    }
}

#[inline(always)]
pub(crate) fn binary_scalar(op: BinaryOp, a: f32, b: f32) -> f32 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Pow => a.powf(b),
        BinaryOp::ReluGrad => {
            if a > 0.0 {
                b
            } else {
                0.0
            }
        }
    }
}

/// Runs `f(offset, chunk)` over `out` in chunks, in parallel when large.
fn for_chunks<T: Send>(out: &mut [T], chunk: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let chunk = chunk.max(1);
    if out.len() >= PAR_MIN {
        out.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(i, c)| f(i * chunk, c));
    } else {
        out.chunks_mut(chunk)
            .enumerate()
            .for_each(|(i, c)| f(i * chunk, c));
    }
}

pub fn unary(op: UnaryOp, x: &[f32]) -> CpuBuf {
    // One monomorphic loop per op, so the op is not re-decided per element and loops vectorise.
    fn run(x: &[f32], f: impl Fn(f32) -> f32 + Sync) -> CpuBuf {
        let fill = |out: &mut [MaybeUninit<f32>]| {
            for_chunks(out, CHUNK, |start, dst| {
                for (o, &v) in dst.iter_mut().zip(&x[start..]) {
                    o.write(f(v));
                }
            })
        };
        // SAFETY: the chunks cover the output, and each chunk's every cell is written.
        CpuBuf::new(unsafe { written(x.len(), fill) })
    }
    match op {
        UnaryOp::Neg => run(x, |v| -v),
        UnaryOp::Relu => run(x, |v| v.max(0.0)),
        UnaryOp::AddScalar(c) => run(x, move |v| v + c),
        UnaryOp::MulScalar(c) => run(x, move |v| v * c),
        _ => run(x, move |v| unary_scalar(op, v)),
    }
}

/// Output shape and per-input strides (0 on broadcast axes) after merging every pair of
/// adjacent axes that both inputs step through contiguously (or both broadcast).
fn collapse(
    a_shape: &[usize],
    b_shape: &[usize],
    out: &[usize],
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let strides = |shape: &[usize]| {
        let mut st = vec![0; out.len()];
        let mut s = 1;
        for i in (0..out.len()).rev() {
            st[i] = if shape[i] == 1 && out[i] != 1 { 0 } else { s };
            s *= shape[i];
        }
        st
    };
    let (sa, sb) = (strides(a_shape), strides(b_shape));
    let (mut dims, mut ra, mut rb): (Vec<usize>, Vec<usize>, Vec<usize>) = (vec![], vec![], vec![]);
    for i in 0..out.len() {
        if out[i] == 1 {
            continue;
        }
        if let (Some(&d), Some(&pa), Some(&pb)) = (dims.last(), ra.last(), rb.last()) {
            let joins = |prev: usize, cur: usize| {
                (prev == 0 && cur == 0) || (prev != 0 && prev == cur * out[i])
            };
            if joins(pa, sa[i]) && joins(pb, sb[i]) {
                *dims.last_mut().expect("non-empty") = d * out[i];
                *ra.last_mut().expect("non-empty") = sa[i];
                *rb.last_mut().expect("non-empty") = sb[i];
                continue;
            }
        }
        dims.push(out[i]);
        ra.push(sa[i]);
        rb.push(sb[i]);
    }
    if dims.is_empty() {
        (vec![1], vec![1], vec![1])
    } else {
        (dims, ra, rb)
    }
}

pub fn binary(
    op: BinaryOp,
    a: &[f32],
    a_shape: &[usize],
    b: &[f32],
    b_shape: &[usize],
    out_shape: &[usize],
) -> CpuBuf {
    // One monomorphic kernel per op, so the inner loops vectorise.
    let args = (a, a_shape, b, b_shape, out_shape);
    match op {
        BinaryOp::Add => binary_with(args, |x, y| x + y),
        BinaryOp::Sub => binary_with(args, |x, y| x - y),
        BinaryOp::Mul => binary_with(args, |x, y| x * y),
        BinaryOp::Div => binary_with(args, |x, y| x / y),
        _ => binary_with(args, move |x, y| binary_scalar(op, x, y)),
    }
}

type BinaryArgs<'a> = (&'a [f32], &'a [usize], &'a [f32], &'a [usize], &'a [usize]);

fn binary_with(
    (a, a_shape, b, b_shape, out_shape): BinaryArgs,
    f: impl Fn(f32, f32) -> f32 + Sync,
) -> CpuBuf {
    let len: usize = out_shape.iter().product();
    let (dims, sa, sb) = collapse(a_shape, b_shape, out_shape);
    let rank = dims.len();
    let inner = dims[rank - 1];
    let (da, db) = (sa[rank - 1], sb[rank - 1]);
    // Each task fills whole rows of the innermost axis; the inner loops are specialised by
    // stride so they vectorise.
    let rows_per_chunk = (CHUNK / inner).max(1);
    let fill = |out: &mut [MaybeUninit<f32>]| {
        for_chunks(out, rows_per_chunk * inner, |start, dst| {
            for (r, row) in dst.chunks_mut(inner).enumerate() {
                let (mut ia, mut ib, mut rem) = (0usize, 0usize, start / inner + r);
                for ax in (0..rank - 1).rev() {
                    let i = rem % dims[ax];
                    rem /= dims[ax];
                    ia += i * sa[ax];
                    ib += i * sb[ax];
                }
                match (da, db) {
                    (0, 0) => {
                        let v = f(a[ia], b[ib]);
                        row.iter_mut().for_each(|o| {
                            o.write(v);
                        });
                    }
                    (_, 0) => {
                        let y = b[ib];
                        for (o, &x) in row.iter_mut().zip(&a[ia..ia + inner]) {
                            o.write(f(x, y));
                        }
                    }
                    (0, _) => {
                        let x = a[ia];
                        for (o, &y) in row.iter_mut().zip(&b[ib..ib + inner]) {
                            o.write(f(x, y));
                        }
                    }
                    _ => {
                        for ((o, &x), &y) in row
                            .iter_mut()
                            .zip(&a[ia..ia + inner])
                            .zip(&b[ib..ib + inner])
                        {
                            o.write(f(x, y));
                        }
                    }
                }
            }
        })
    };
    // SAFETY: the chunks cover the output, and every row of every chunk is written whole.
    CpuBuf::new(unsafe { written(len, fill) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapse_merges_axes_walked_alike() {
        // A per-channel operand on NCHW: channels stay, H and W merge, N stays.
        let (dims, sa, sb) = collapse(&[2, 3, 4, 5], &[1, 3, 1, 1], &[2, 3, 4, 5]);
        assert_eq!(
            (dims, sa, sb),
            (vec![2, 3, 20], vec![60, 20, 1], vec![0, 1, 0])
        );
        let (dims, _, _) = collapse(&[2, 3], &[2, 3], &[2, 3]);
        assert_eq!(dims, vec![6]);
    }

    #[test]
    fn broadcasts_match_a_plain_loop() {
        let (ash, bsh, osh) = ([2usize, 1, 4], [1usize, 3, 1], [2usize, 3, 4]);
        let a: Vec<f32> = (0..8).map(|v| v as f32).collect();
        let b: Vec<f32> = (0..3).map(|v| 10.0 * v as f32).collect();
        let out = binary(BinaryOp::Add, &a, &ash, &b, &bsh, &osh);
        let mut expected = vec![];
        for i in 0..2 {
            for &bj in &b {
                for k in 0..4 {
                    expected.push(a[i * 4 + k] + bj);
                }
            }
        }
        assert_eq!(out.as_slice(), &expected[..]);
    }
}
