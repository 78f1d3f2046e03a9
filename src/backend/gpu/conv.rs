//! Convolution and its gradients as implicit GEMMs on the tiled core (shaders/conv.wgsl):
//! im2col cells are computed from indices as tiles are loaded, so no column matrix is stored
//! and the input gradient needs no scatter (see the shader for the three products). Each
//! layer shape is a compilation of its own (`ConvShape`), so the loads' index arithmetic
//! divides only by constants; a network has a handful of shapes.
//!
//! The forward applies bias, residual add and ReLU as it stores its outputs, so the inference
//! form `conv2d_add_relu` is one dispatch; for that it is never split over k. In training,
//! where a batch norm follows, the forward also writes each tile's per-channel moments
//! (shaders/conv_moments.wgsl), from which the batch norm's statistics are made without
//! reading the output for them.

use super::gemm::{self, GemmHeader, GemmParams};
use super::pipelines::{ConvMode, ConvShape, Shader};
use super::tile::TileShape;
use super::{Gpu, GpuBuf, to_u32};
use crate::backend::ConvDims;
use bytemuck::{Pod, Zeroable};

/// Mirrors `Params` in conv.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct Params {
    gemm: GemmHeader,
    has_bias: u32,
    has_residual: u32,
    relu: u32,
    _pad: u32,
}

impl GemmParams for Params {
    fn header(&self) -> GemmHeader {
        self.gemm
    }
}

/// What the forward adds to its products as it stores them.
#[derive(Clone, Copy, Default)]
pub(super) struct Epilogue<'a> {
    pub bias: Option<&'a GpuBuf>,
    pub residual: Option<&'a GpuBuf>,
    pub relu: bool,
}

/// Runs one of the products: (m x k) (k x n) with `lhs` and `rhs` bound as the shader
/// names them; `moments`, for the forward with moments, is bound after them.
fn run(
    gpu: &Gpu,
    mode: ConvMode,
    d: &ConvDims,
    (m, n, k): (usize, usize, usize),
    (lhs, rhs): (&GpuBuf, &GpuBuf),
    epilogue: Epilogue,
    moments: Option<&GpuBuf>,
) -> GpuBuf {
    let (tile, header) = plan(mode, (m, n, k), gpu);
    let p = Params {
        gemm: header,
        has_bias: epilogue.bias.is_some().into(),
        has_residual: epilogue.residual.is_some().into(),
        relu: epilogue.relu.into(),
        _pad: 0,
    };
    let shape = ConvShape {
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
    };
    // The bias and residual bindings are declared by every mode; where unused any buffer
    // fills them.
    let mut inputs = vec![
        lhs,
        rhs,
        epilogue.bias.unwrap_or(lhs),
        epilogue.residual.unwrap_or(lhs),
    ];
    inputs.extend(moments);
    gemm::run(gpu, Shader::Conv { mode, tile, shape }, &p, &inputs)
}

/// The tile and launch of a product: the gradients may split k; the forwards are never
/// split, so that their epilogue and moments see whole sums.
fn plan(mode: ConvMode, mnk: (usize, usize, usize), gpu: &Gpu) -> (TileShape, GemmHeader) {
    let may_split = matches!(mode, ConvMode::GradInput | ConvMode::GradWeight);
    GemmHeader::plan(mnk, 1, may_split, gpu.0.context.occupancy())
}

fn taps(d: &ConvDims) -> usize {
    d.kh * d.kw
}

fn pixels(d: &ConvDims) -> usize {
    d.out_h() * d.out_w()
}

fn forward_mnk(d: &ConvDims) -> (usize, usize, usize) {
    (d.c_out, d.n * pixels(d), d.c_in * taps(d))
}

pub(super) fn forward(
    gpu: &Gpu,
    x: &GpuBuf,
    w: &GpuBuf,
    d: ConvDims,
    epilogue: Epilogue,
) -> GpuBuf {
    let mode = ConvMode::Forward;
    run(gpu, mode, &d, forward_mnk(&d), (w, x), epilogue, None)
}

/// The forward without bias, and its output's moments: (parts, c_out, 3) values (count,
/// mean, sum of squared deviations from that mean) of disjoint parts of each channel's
/// values, a part per column of output tiles. Returns (output, moments, parts).
pub(super) fn forward_moments(
    gpu: &Gpu,
    x: &GpuBuf,
    w: &GpuBuf,
    d: ConvDims,
) -> (GpuBuf, GpuBuf, usize) {
    let mode = ConvMode::ForwardMoments;
    let mnk = forward_mnk(&d);
    let parts = plan(mode, mnk, gpu).1.tiles_n as usize;
    let moments = gpu.alloc(parts * d.c_out * 3);
    let out = run(
        gpu,
        mode,
        &d,
        mnk,
        (w, x),
        Epilogue::default(),
        Some(&moments),
    );
    (out, moments, parts)
}

pub(super) fn grad_input(gpu: &Gpu, g: &GpuBuf, w: &GpuBuf, d: ConvDims) -> GpuBuf {
    run(
        gpu,
        ConvMode::GradInput,
        &d,
        (d.c_in, d.n * d.h * d.w, d.c_out * taps(&d)),
        (w, g),
        Epilogue::default(),
        None,
    )
}

pub(super) fn grad_weight(gpu: &Gpu, x: &GpuBuf, g: &GpuBuf, d: ConvDims) -> GpuBuf {
    run(
        gpu,
        ConvMode::GradWeight,
        &d,
        (d.c_out, d.c_in * taps(&d), d.n * pixels(&d)),
        (g, x),
        Epilogue::default(),
        None,
    )
}
