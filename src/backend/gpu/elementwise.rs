//! Elementwise kernels: fill, unary ops, and broadcasting binary ops (shaders/elementwise.wgsl).

use super::pipelines::{Kernel, Shader};
use super::{Gpu, GpuBuf, groups_1d, to_u32};
use crate::backend::{BinaryOp, UnaryOp};
use bytemuck::{Pod, Zeroable};

/// Mirrors `Params` in elementwise.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
pub(super) struct Params {
    shape: [u32; 4],
    a_strides: [u32; 4],
    b_strides: [u32; 4],
    len: u32,
    op: u32,
    scalar: f32,
    _pad: u32,
}

fn kernel(entry: &'static str) -> Kernel {
    Kernel {
        shader: Shader::Elementwise,
        entry,
    }
}

/// The shader's op code and scalar for a unary op.
fn unary_code(op: UnaryOp) -> (u32, f32) {
    match op {
        UnaryOp::Neg => (0, 0.0),
        UnaryOp::Exp => (1, 0.0),
        UnaryOp::Log => (2, 0.0),
        UnaryOp::Relu => (3, 0.0),
        UnaryOp::Tanh => (4, 0.0),
        UnaryOp::Sigmoid => (5, 0.0),
        UnaryOp::AddScalar(c) => (6, c),
        UnaryOp::MulScalar(c) => (7, c),
        UnaryOp::PowScalar(c) => (8, c),
    }
}

fn binary_code(op: BinaryOp) -> u32 {
    match op {
        BinaryOp::Add => 0,
        BinaryOp::Sub => 1,
        BinaryOp::Mul => 2,
        BinaryOp::Div => 3,
        BinaryOp::Pow => 4,
        BinaryOp::ReluGrad => 5,
    }
}

pub(super) fn fill(gpu: &Gpu, len: usize, value: f32) -> GpuBuf {
    let out = gpu.alloc(len);
    if len > 0 {
        let p = Params {
            len: to_u32(len),
            scalar: value,
            ..Params::default()
        };
        gpu.launch(kernel("fill"), &p, &[&out], groups_1d(len));
    }
    out
}

pub(super) fn unary(gpu: &Gpu, op: UnaryOp, x: &GpuBuf) -> GpuBuf {
    let len = x.len;
    let out = gpu.alloc(len);
    if len > 0 {
        let (op, scalar) = unary_code(op);
        let p = Params {
            len: to_u32(len),
            op,
            scalar,
            ..Params::default()
        };
        gpu.launch(kernel("unary"), &p, &[&out, x], groups_1d(len));
    }
    out
}

/// `shape` right-aligned into rank 4 with leading 1s.
pub(super) fn rank4(shape: &[usize]) -> [u32; 4] {
    assert!(
        shape.len() <= 4,
        "GPU kernels take at most 4 axes, got {shape:?}"
    );
    let mut out = [1u32; 4];
    for (o, &d) in out[4 - shape.len()..].iter_mut().zip(shape) {
        *o = to_u32(d);
    }
    out
}

/// Row-major strides of `shape` (rank 4) with 0 along the axes broadcast to `out`.
fn broadcast_strides(shape: [u32; 4], out: [u32; 4]) -> [u32; 4] {
    let mut strides = [0u32; 4];
    let mut s = 1;
    for i in (0..4).rev() {
        strides[i] = if shape[i] == 1 && out[i] != 1 { 0 } else { s };
        s *= shape[i];
    }
    strides
}

pub(super) fn binary(
    gpu: &Gpu,
    op: BinaryOp,
    a: &GpuBuf,
    a_shape: &[usize],
    b: &GpuBuf,
    b_shape: &[usize],
    out_shape: &[usize],
) -> GpuBuf {
    let len: usize = out_shape.iter().product();
    let out = gpu.alloc(len);
    if len > 0 {
        let shape = rank4(out_shape);
        let p = Params {
            shape,
            a_strides: broadcast_strides(rank4(a_shape), shape),
            b_strides: broadcast_strides(rank4(b_shape), shape),
            len: to_u32(len),
            op: binary_code(op),
            ..Params::default()
        };
        gpu.launch(kernel("binary"), &p, &[&out, a, b], groups_1d(len));
    }
    out
}
