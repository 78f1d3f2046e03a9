//! Convolution and its gradients as implicit GEMMs on the tiled core (shaders/conv.wgsl):
//! im2col cells are computed from indices as tiles are loaded, so no column matrix is stored
//! and the input gradient needs no scatter (see the shader for the three products). Each
//! layer shape is a compilation of its own (`ConvShape`), so the loads' index arithmetic
//! divides only by constants; a network has a handful of shapes.
//!
//! The forward applies bias, residual add and ReLU as it stores its outputs, so the inference
//! form `conv2d_add_relu` is one dispatch. Where even the smallest tile leaves the device
//! short of workgroups (small batches) and k is long (az-large's layers, not az-small's), the
//! forward is split over k like the gradients and one more dispatch adds the parts and
//! applies that epilogue (shaders/split_sum.wgsl). In training, where a batch norm follows,
//! the forward also writes each tile's per-channel moments (shaders/conv_moments.wgsl), from
//! which the batch norm's statistics are made without reading the output for them.

use super::epilogue::Epilogue;
use super::gemm::{self, GemmHeader, GemmParams, Occupancy};
use super::pipelines::{ConvMode, ConvShape, Kernel, Shader};
use super::tile::TileShape;
use super::{Gpu, GpuBuf, groups_1d, to_u32, winograd};
use crate::backend::ConvDims;
use bytemuck::{Pod, Zeroable};

/// Mirrors `Params` in conv_io.wgsl (conv.wgsl's and tap_conv.wgsl's).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct Params {
    gemm: GemmHeader,
    has_bias: u32,
    has_residual: u32,
    relu: u32,
    _pad: u32,
}

impl Params {
    /// The product planned as `gemm` with `epilogue`'s flags.
    pub(super) fn new(gemm: GemmHeader, epilogue: &Epilogue) -> Params {
        Params {
            gemm,
            has_bias: epilogue.bias.is_some().into(),
            has_residual: epilogue.residual.is_some().into(),
            relu: epilogue.relu.into(),
            _pad: 0,
        }
    }
}

impl GemmParams for Params {
    fn header(&self) -> GemmHeader {
        self.gemm
    }
}

/// Mirrors `Params` in split_sum.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct SplitSumParams {
    len: u32,
    splits: u32,
    channels: u32,
    plane: u32,
    has_bias: u32,
    has_residual: u32,
    relu: u32,
    _pad: u32,
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
    let p = Params::new(header, &epilogue);
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
    let shader = Shader::Conv { mode, tile, shape };
    if mode != ConvMode::Forward || header.splits() == 1 {
        return gemm::run(gpu, shader, &p, &inputs);
    }
    let parts = gemm::run_parts(gpu, shader, &p, &inputs);
    let len = m * n;
    let out = gpu.alloc(len);
    let sum = SplitSumParams {
        len: to_u32(len),
        splits: to_u32(header.splits()),
        channels: to_u32(d.c_out),
        plane: to_u32(pixels(d)),
        has_bias: p.has_bias,
        has_residual: p.has_residual,
        relu: p.relu,
        _pad: 0,
    };
    let kernel = Kernel {
        shader: Shader::SplitSum,
        entry: "main",
    };
    let [bias, residual] = [epilogue.bias, epilogue.residual].map(|b| b.unwrap_or(&parts));
    gpu.launch(
        kernel,
        &sum,
        &[&out, &parts, bias, residual],
        groups_1d(len),
    );
    out
}

/// The shortest k worth a forward split: az-small's 3x3 layers (k 576) were never faster
/// split (on an NVIDIA H200 0.91-1.00x at 1 to 128 boards, on lavapipe 0.94x at one),
/// az-large's (k 1152) always (on the H200 1.19-1.67x at 1 to 32 boards).
const MIN_FORWARD_SPLIT_K: usize = 1024;

/// The tile and launch of a product. The gradients may split k. The forward with moments
/// is never split (its moments need whole sums); the plain forward only where the smallest
/// tile leaves the device short of workgroups and k is at least `MIN_FORWARD_SPLIT_K`, since
/// its parts cost a dispatch to add up (and never under `CHECKERS_ZERO_GPU_BASELINE`).
fn plan(mode: ConvMode, mnk: (usize, usize, usize), gpu: &Gpu) -> (TileShape, GemmHeader) {
    let context = &gpu.0.context;
    plan_for(mode, mnk, context.occupancy(), context.baseline())
}

fn plan_for(
    mode: ConvMode,
    mnk: (usize, usize, usize),
    occupancy: Occupancy,
    baseline: bool,
) -> (TileShape, GemmHeader) {
    let plan = |may_split| GemmHeader::plan(mnk, 1, may_split, occupancy);
    match mode {
        ConvMode::GradInput | ConvMode::GradWeight => plan(true),
        // Its moments live in the f32 core's staged slices (conv_moments.wgsl).
        ConvMode::ForwardMoments => GemmHeader::plan(
            mnk,
            1,
            false,
            Occupancy {
                tensor: false,
                ..occupancy
            },
        ),
        ConvMode::Forward => {
            let whole = plan(false);
            if whole.1.groups() < occupancy.min_groups && mnk.2 >= MIN_FORWARD_SPLIT_K && !baseline
            {
                plan(true)
            } else {
                whole
            }
        }
    }
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
    if winograd::applies(gpu, &d) {
        return winograd::forward(gpu, x, w, d, epilogue);
    }
    let mode = ConvMode::Forward;
    run(gpu, mode, &d, forward_mnk(&d), (w, x), epilogue, None)
}

/// The forward of inference (`conv2d_add_relu`, which records nothing): as `forward`, but
/// Winograd's transforms are made ahead of its products (winograd.rs, `forward_ahead`), and
/// where the adapter times the two ways, the faster runs (winograd.rs, `for_inference`).
pub(super) fn forward_inference(
    gpu: &Gpu,
    x: &GpuBuf,
    w: &GpuBuf,
    d: ConvDims,
    epilogue: Epilogue,
) -> GpuBuf {
    let way = |winograd: bool| {
        if winograd {
            winograd::forward_ahead(gpu, x, w, d, epilogue)
        } else {
            run(
                gpu,
                ConvMode::Forward,
                &d,
                forward_mnk(&d),
                (w, x),
                epilogue,
                None,
            )
        }
    };
    way(winograd::for_inference(gpu, &d, |winograd| {
        drop(way(winograd))
    }))
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
    if winograd::applies(gpu, &d) {
        return winograd::forward_moments(gpu, x, w, d);
    }
    let mode = ConvMode::ForwardMoments;
    let mnk = forward_mnk(&d);
    let parts = plan(mode, mnk, gpu).1.tiles_n();
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
    if winograd::applies(gpu, &d) {
        return winograd::grad_input(gpu, g, w, d);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forward_is_split_only_where_its_tiles_cannot_fill_the_device() {
        let splits = |n: usize, k: usize, occupancy, baseline| {
            let mode = ConvMode::Forward;
            plan_for(mode, (64, n * 64, k), occupancy, baseline)
                .1
                .splits()
        };
        // A 128-channel 3x3 layer (k 1152): split at one board, whole at 256 on either
        // adapter, and never under the baseline.
        for occupancy in [Occupancy::SOFTWARE, Occupancy::HARDWARE] {
            assert!(splits(1, 1152, occupancy, false) > 1);
            assert_eq!(splits(256, 1152, occupancy, false), 1);
            assert_eq!(
                splits(1, 1152, occupancy, true),
                1,
                "not under the baseline"
            );
        }
        // 64 boards fill a software adapter but not a hardware one.
        assert_eq!(splits(64, 1152, Occupancy::SOFTWARE, false), 1);
        assert!(splits(64, 1152, Occupancy::HARDWARE, false) > 1);
        // az-small's 64-channel layer (k 576) and az-tiny's (k 288) stay whole.
        for occupancy in [Occupancy::SOFTWARE, Occupancy::HARDWARE] {
            assert_eq!(splits(1, 576, occupancy, false), 1);
            assert_eq!(splits(1, 288, occupancy, false), 1);
        }
        // The forward with moments never is.
        let moments = plan_for(
            ConvMode::ForwardMoments,
            (64, 64, 576),
            Occupancy::HARDWARE,
            false,
        );
        assert_eq!(moments.1.splits(), 1);
    }
}
