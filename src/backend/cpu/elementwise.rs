//! Elementwise kernels. Broadcasting walks the output in row-major order with per-input
//! strides that are 0 along broadcast axes.

use super::{CpuBuf, PAR_MIN};
use crate::backend::{BinaryOp, UnaryOp};
use rayon::prelude::*;

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

pub fn unary(op: UnaryOp, x: &[f32]) -> CpuBuf {
    let mut out = vec![0.0f32; x.len()];
    let f = |(o, &v): (&mut f32, &f32)| *o = unary_scalar(op, v);
    if x.len() >= PAR_MIN {
        out.par_iter_mut().zip(x.par_iter()).for_each(f);
    } else {
        out.iter_mut().zip(x.iter()).for_each(f);
    }
    CpuBuf::new(out)
}

/// Row-major strides of `shape` with 0 wherever the axis is broadcast to `out`.
fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; out.len()];
    let mut s = 1;
    for i in (0..out.len()).rev() {
        strides[i] = if shape[i] == 1 && out[i] != 1 { 0 } else { s };
        s *= shape[i];
    }
    strides
}

pub fn binary(op: BinaryOp, a: &[f32], a_shape: &[usize], b: &[f32], b_shape: &[usize], out_shape: &[usize]) -> CpuBuf {
    let len: usize = out_shape.iter().product();
    let mut out = vec![0.0f32; len];
    if a.len() == len && b.len() == len {
        let f = |((o, &x), &y): ((&mut f32, &f32), &f32)| *o = binary_scalar(op, x, y);
        if len >= PAR_MIN {
            out.par_iter_mut().zip(a.par_iter()).zip(b.par_iter()).for_each(|((o, x), y)| f(((o, x), y)));
        } else {
            out.iter_mut().zip(a.iter()).zip(b.iter()).for_each(f);
        }
        return CpuBuf::new(out);
    }
    let (sa, sb) = (broadcast_strides(a_shape, out_shape), broadcast_strides(b_shape, out_shape));
    // Rows of the innermost axis share their outer offsets; walk them as runs.
    let inner = *out_shape.last().unwrap_or(&1);
    let rank = out_shape.len();
    let fill_row = |row: usize, dst: &mut [f32]| {
        let (mut ia, mut ib, mut rem) = (0usize, 0usize, row);
        for ax in (0..rank.saturating_sub(1)).rev() {
            let i = rem % out_shape[ax];
            rem /= out_shape[ax];
            ia += i * sa[ax];
            ib += i * sb[ax];
        }
        let (da, db) = if rank == 0 { (0, 0) } else { (sa[rank - 1], sb[rank - 1]) };
        for (j, o) in dst.iter_mut().enumerate() {
            *o = binary_scalar(op, a[ia + j * da], b[ib + j * db]);
        }
    };
    if len >= PAR_MIN {
        out.par_chunks_mut(inner.max(1)).enumerate().for_each(|(r, d)| fill_row(r, d));
    } else {
        out.chunks_mut(inner.max(1)).enumerate().for_each(|(r, d)| fill_row(r, d));
    }
    CpuBuf::new(out)
}
