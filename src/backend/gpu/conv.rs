//! Convolution and its gradients as implicit GEMMs on the tiled core (shaders/conv.wgsl):
//! im2col cells are computed from indices as tiles are loaded, so no column matrix is stored
//! and the input gradient needs no scatter (see the shader for the three products). Strided
//! convolutions run a separate compilation of the shader, so the stride-1 kernels keep their
//! index arithmetic free of the stride's multiplications and divisibility tests.

use super::gemm::{self, GemmHeader, GemmParams};
use super::pipelines::{ConvMode, Shader};
use super::{Gpu, GpuBuf, to_u32};
use crate::backend::ConvDims;
use bytemuck::{Pod, Zeroable};

/// Mirrors `Params` in conv.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct Params {
    gemm: GemmHeader,
    c_in: u32,
    h: u32,
    w: u32,
    c_out: u32,
    kh: u32,
    kw: u32,
    pad_h: u32,
    pad_w: u32,
    stride_h: u32,
    stride_w: u32,
    out_h: u32,
    out_w: u32,
    has_bias: u32,
    _pad: [u32; 3],
}

impl GemmParams for Params {
    fn header(&self) -> GemmHeader {
        self.gemm
    }
}

/// Runs one of the three products: (m x k) (k x n) with `lhs`, `rhs` and `bias` bound as the
/// shader names them.
#[allow(clippy::too_many_arguments)]
fn run(
    gpu: &Gpu,
    mode: ConvMode,
    d: &ConvDims,
    (m, n, k): (usize, usize, usize),
    lhs: &GpuBuf,
    rhs: &GpuBuf,
    bias: Option<&GpuBuf>,
) -> GpuBuf {
    let p = Params {
        gemm: GemmHeader::plan(m, n, k, 1),
        c_in: to_u32(d.c_in),
        h: to_u32(d.h),
        w: to_u32(d.w),
        c_out: to_u32(d.c_out),
        kh: to_u32(d.kh),
        kw: to_u32(d.kw),
        pad_h: to_u32(d.pad_h),
        pad_w: to_u32(d.pad_w),
        stride_h: to_u32(d.stride_h),
        stride_w: to_u32(d.stride_w),
        out_h: to_u32(d.out_h()),
        out_w: to_u32(d.out_w()),
        has_bias: bias.is_some().into(),
        _pad: [0; 3],
    };
    // The bias binding is declared by every mode; without a bias any buffer fills it.
    gemm::run(
        gpu,
        Shader::Conv {
            mode,
            strided: !d.unit_stride(),
        },
        &p,
        &[lhs, rhs, bias.unwrap_or(lhs)],
    )
}

fn taps(d: &ConvDims) -> usize {
    d.kh * d.kw
}

fn pixels(d: &ConvDims) -> usize {
    d.out_h() * d.out_w()
}

pub(super) fn forward(
    gpu: &Gpu,
    x: &GpuBuf,
    w: &GpuBuf,
    bias: Option<&GpuBuf>,
    d: ConvDims,
) -> GpuBuf {
    run(
        gpu,
        ConvMode::Forward,
        &d,
        (d.c_out, d.n * pixels(&d), d.c_in * taps(&d)),
        w,
        x,
        bias,
    )
}

pub(super) fn grad_input(gpu: &Gpu, g: &GpuBuf, w: &GpuBuf, d: ConvDims) -> GpuBuf {
    run(
        gpu,
        ConvMode::GradInput,
        &d,
        (d.c_in, d.n * d.h * d.w, d.c_out * taps(&d)),
        w,
        g,
        None,
    )
}

pub(super) fn grad_weight(gpu: &Gpu, x: &GpuBuf, g: &GpuBuf, d: ConvDims) -> GpuBuf {
    run(
        gpu,
        ConvMode::GradWeight,
        &d,
        (d.c_out, d.c_in * taps(&d), d.n * pixels(&d)),
        g,
        x,
        None,
    )
}
