//! Winograd F(4x4, 3x3) for the stride-1, padding-1 3x3 convolutions of every board tower
//! (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks"): the forward and the
//! input gradient become 36 products of [channels out x channels in] by [channels in x
//! tiles] on the tiled core (shaders/winograd.wgsl) and an output transform that applies the
//! forward's epilogue and, for a training batch norm, writes the output's moments
//! (shaders/winograd_out.wgsl). A 4x4 output tile takes 36 multiply-adds per channel pair
//! instead of 144. In training the filter and input transforms are made as the products load
//! their slices (two dispatches a layer); inference makes them ahead (shaders/winograd_in.wgsl:
//! the input's each call, the filters' once per weight buffer). The weight gradient stays an
//! implicit GEMM (conv.rs).
//!
//! Error: each output is a sum over the 6x6 input tile and the 3x3 filter whose transforms'
//! entries reach 5 (B^T), 8 (A^T) and 1/4 (G) in size, so its rounding error is a bounded
//! multiple of the unit roundoff times the sum of |w| |x| over the output's taps, not of the
//! output itself. tests/nn/gpu_winograd.rs holds every board shape of the presets to
//! `WINOGRAD_BOUND` of that sum (docs/gpu.md gives the bound and what was measured).

use super::counters::Count;
use super::epilogue::Epilogue;
use super::gemm::{self, GemmHeader, GemmParams};
use super::pipelines::{Kernel, Shader, WINOGRAD_OUT_WG, WinogradMode, WinogradShape};
use super::{Gpu, GpuBuf, Pooled, groups_1d, to_u32};
use crate::backend::ConvDims;
use bytemuck::{Pod, Zeroable};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError, Weak};
use std::time::Duration;

/// Points of the 6x6 transform: one product each.
const POINTS: usize = 36;

/// Channels below this on either side stay on the implicit GEMM: a stem reading 8 planes
/// gives the products a k shorter than one slice of the smallest tile, and the transforms'
/// loads then cost more than the multiply-adds they save.
const MIN_CHANNELS: usize = 16;

/// Output tiles below this stay on the implicit GEMM: the products' columns are the tiles,
/// and a product of few columns fills a fraction of its GEMM tiles while each of its 36
/// slices still pays for the transforms' loads. On lavapipe, az-small at one board took
/// 30 ms a layer this way against 8 ms as an implicit GEMM; 128 tiles are 32 boards.
const MIN_TILES: usize = 128;

/// How the towers' 3x3 convolutions run on an adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinogradChoice {
    /// Always as implicit GEMMs.
    Off,
    /// As Winograd's wherever they suit it (a software adapter's default).
    On,
    /// Training on the implicit GEMM; inference times both once for each layer shape, batch
    /// size (to the next power of two) and precision, and runs the faster (a hardware GPU's
    /// default).
    Timed,
}

impl WinogradChoice {
    pub(super) fn from_u8(v: u8) -> WinogradChoice {
        [
            WinogradChoice::Off,
            WinogradChoice::On,
            WinogradChoice::Timed,
        ][usize::from(v.min(2))]
    }
}

/// Timings of a layer under `Timed`: each way once untimed (its pipelines compiled, its
/// filters transformed), then the best of `TIMING_ROUNDS` alternating rounds of
/// `TIMING_REPEATS` runs in one submission each, so that a submission's own cost is shared.
const TIMING_ROUNDS: usize = 3;
const TIMING_REPEATS: usize = 4;

/// A layer as `Timed` tells it apart: its shape, its batch to the next power of two, and
/// whether the products are mixed precision.
type TimedLayer = (WinogradShape, usize, bool);

/// What inference found faster under `Timed`, for each layer timed: Winograd's (true) or the
/// implicit GEMM.
#[derive(Default)]
pub(super) struct Timings(Mutex<HashMap<TimedLayer, bool>>);

/// Whether inference's forward of `d` runs as Winograd's: as the adapter's choice says, or,
/// under `Timed`, as the faster way for this layer, timed on first use with `run` (which runs
/// the layer once, as Winograd's where given true) and kept.
pub(super) fn for_inference(gpu: &Gpu, d: &ConvDims, run: impl Fn(bool)) -> bool {
    if !suits(d) {
        return false;
    }
    let timed = match gpu.0.context.winograd() {
        WinogradChoice::Off => return false,
        WinogradChoice::On => return true,
        WinogradChoice::Timed => &gpu.0.winograd_timings,
    };
    let layer = (
        shape(WinogradMode::Forward, d),
        d.n.next_power_of_two(),
        gpu.0.context.mixed(),
    );
    let lock = || timed.0.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&faster) = lock().get(&layer) {
        return faster;
    }
    run(true);
    run(false);
    let mut best = [Duration::MAX; 2];
    for _ in 0..TIMING_ROUNDS {
        for (way, on) in [true, false].into_iter().enumerate() {
            let took = gpu
                .0
                .context
                .time(|| (0..TIMING_REPEATS).for_each(|_| run(on)));
            best[way] = best[way].min(took);
        }
    }
    let faster = best[0] <= best[1];
    lock().insert(layer, faster);
    faster
}

/// Weight buffers whose transformed filters are kept (a match's or gating's two networks,
/// with room to spare).
const FILTERS_KEPT: usize = 128;

/// Inference's transformed filters, kept for each weight buffer while it lives: its weights
/// (batch norm folded in) are one buffer a model version, so each layer's filters are
/// transformed once, not on every call. Buffers are immutable once written, and a `Weak`
/// keeps its allocation, so a live entry's pointer is never another buffer's. (Like the
/// gathers' tables, the kept buffers hold the context, which is made once per process.)
#[derive(Default)]
pub(super) struct KeptFilters(Mutex<Vec<KeptFilter>>);

struct KeptFilter {
    weights: Weak<Pooled>,
    offset: u64,
    len: usize,
    transformed: GpuBuf,
}

impl KeptFilters {
    /// The filters kept for `w`, or `make`'s, then kept.
    fn get(&self, w: &GpuBuf, make: impl FnOnce() -> GpuBuf) -> GpuBuf {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.retain(|k| k.weights.strong_count() > 0);
        let weights = std::sync::Arc::downgrade(&w.mem);
        let same =
            |k: &&KeptFilter| k.weights.ptr_eq(&weights) && (k.offset, k.len) == (w.offset, w.len);
        if let Some(k) = kept.iter().find(same) {
            return k.transformed.clone();
        }
        let transformed = make();
        if kept.len() == FILTERS_KEPT {
            kept.remove(0);
        }
        kept.push(KeptFilter {
            weights,
            offset: w.offset,
            len: w.len,
            transformed: transformed.clone(),
        });
        transformed
    }
}

/// Mirrors `Params` in winograd.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct Params {
    gemm: GemmHeader,
}

impl GemmParams for Params {
    fn header(&self) -> GemmHeader {
        self.gemm
    }
}

/// Mirrors `Params` in winograd_out.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct OutParams {
    columns: u32,
    parts: u32,
    has_bias: u32,
    has_residual: u32,
    relu: u32,
    _pad: [u32; 3],
}

/// Mirrors `Params` in winograd_in.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct InParams {
    count: u32,
    columns: u32,
    _pad: [u32; 2],
}

/// Whether the convolution `d` runs as Winograd's in training (its forward and input
/// gradient): a 3x3 kernel at stride 1 with padding 1 (the output has the input's plane),
/// channels and tiles enough, and the choice `On`.
pub(super) fn applies(gpu: &Gpu, d: &ConvDims) -> bool {
    gpu.0.context.winograd() == WinogradChoice::On && suits(d)
}

fn suits(d: &ConvDims) -> bool {
    (d.kh, d.kw, d.pad_h, d.pad_w) == (3, 3, 1, 1)
        && d.unit_stride()
        && d.c_in.min(d.c_out) >= MIN_CHANNELS
        && columns(&shape(WinogradMode::Forward, d), d.n) >= MIN_TILES
}

/// The products' columns: the output tiles of `n` images.
fn columns(shape: &WinogradShape, n: usize) -> usize {
    n * (shape.h.div_ceil(4) * shape.w.div_ceil(4)) as usize
}

/// The 36 products (36, c_m, n tiles) of `images` (n, c_k, h, w) by the transformed `filters`.
fn products(
    gpu: &Gpu,
    mode: WinogradMode,
    shape: WinogradShape,
    n: usize,
    (filters, images): (&GpuBuf, &GpuBuf),
) -> GpuBuf {
    let mnk = (shape.c_m as usize, columns(&shape, n), shape.c_k as usize);
    let occupancy = gpu.0.context.occupancy();
    let (tile, gemm) = GemmHeader::plan(mnk, POINTS, false, occupancy);
    let shader = Shader::Winograd { mode, tile, shape };
    gemm::run(gpu, shader, &Params { gemm }, &[filters, images])
}

/// The output transform of the `n` images' `products` into (n, c_m, h, w), with `epilogue`,
/// and the moments of what it stored, (parts, c_m, 3), where `moments`.
fn output(
    gpu: &Gpu,
    shape: WinogradShape,
    (products, n): (&GpuBuf, usize),
    epilogue: Epilogue,
    moments: bool,
) -> (GpuBuf, Option<(GpuBuf, usize)>) {
    gpu.0.context.count(Count::WinogradLayer);
    let columns = columns(&shape, n);
    let parts = columns.div_ceil(WINOGRAD_OUT_WG as usize);
    let out = gpu.alloc(n * (shape.c_m * shape.h * shape.w) as usize);
    let p = OutParams {
        columns: to_u32(columns),
        parts: to_u32(parts),
        has_bias: epilogue.bias.is_some().into(),
        has_residual: epilogue.residual.is_some().into(),
        relu: epilogue.relu.into(),
        _pad: [0; 3],
    };
    let [bias, residual] = [epilogue.bias, epilogue.residual].map(|b| b.unwrap_or(products));
    let kernel = Kernel {
        shader: Shader::WinogradOut { shape, moments },
        entry: "main",
    };
    let groups = parts * shape.c_m as usize;
    if !moments {
        gpu.launch(kernel, &p, &[&out, products, bias, residual], groups);
        return (out, None);
    }
    let stats = gpu.alloc(parts * shape.c_m as usize * 3);
    gpu.launch(
        kernel,
        &p,
        &[&out, products, bias, residual, &stats],
        groups,
    );
    (out, Some((stats, parts)))
}

/// A convolution whose transforms are made in the products' loads (`Forward` or
/// `GradInput`) of `images` by `w`: its output, and its moments where `moments`.
fn in_the_loads(
    gpu: &Gpu,
    mode: WinogradMode,
    d: &ConvDims,
    (w, images): (&GpuBuf, &GpuBuf),
    epilogue: Epilogue,
    moments: bool,
) -> (GpuBuf, Option<(GpuBuf, usize)>) {
    let shape = shape(mode, d);
    let m = products(gpu, mode, shape, d.n, (w, images));
    output(gpu, shape, (&m, d.n), epilogue, moments)
}

fn shape(mode: WinogradMode, d: &ConvDims) -> WinogradShape {
    let (c_k, c_m) = match mode {
        WinogradMode::Forward | WinogradMode::Ahead => (d.c_in, d.c_out),
        WinogradMode::GradInput => (d.c_out, d.c_in),
    };
    WinogradShape {
        c_k: to_u32(c_k),
        c_m: to_u32(c_m),
        h: to_u32(d.h),
        w: to_u32(d.w),
    }
}

/// The forward of `x` by `w`, with `epilogue`.
pub(super) fn forward(
    gpu: &Gpu,
    x: &GpuBuf,
    w: &GpuBuf,
    d: ConvDims,
    epilogue: Epilogue,
) -> GpuBuf {
    in_the_loads(gpu, WinogradMode::Forward, &d, (w, x), epilogue, false).0
}

/// The inference forward, with `epilogue`, from transforms made ahead: three dispatches
/// instead of two (four the first time a weight buffer is seen), but the products then read
/// both operands as they are, where making them in the loads repeats the input's transform
/// for every tile of filters and the filters' for every tile of columns. (Training keeps the
/// two-dispatch form for its dispatch budget, tests/nn/gpu_budget.rs, and its weights are
/// new buffers every step.)
pub(super) fn forward_ahead(
    gpu: &Gpu,
    x: &GpuBuf,
    w: &GpuBuf,
    d: ConvDims,
    epilogue: Epilogue,
) -> GpuBuf {
    let shape = shape(WinogradMode::Forward, &d);
    let columns = columns(&shape, d.n);
    let (c_k, c_m) = (shape.c_k as usize, shape.c_m as usize);
    let transform = |entry, src: &GpuBuf, len: usize, count: usize| {
        let p = InParams {
            count: to_u32(count),
            columns: to_u32(columns),
            _pad: [0; 2],
        };
        let out = gpu.alloc(len);
        let kernel = Kernel {
            shader: Shader::WinogradIn(shape),
            entry,
        };
        gpu.launch(kernel, &p, &[&out, src], groups_1d(count));
        out
    };
    let kept = &gpu.0.winograd_filters;
    let u = kept.get(w, || transform("filters", w, POINTS * c_m * c_k, c_m * c_k));
    let v = transform("inputs", x, POINTS * c_k * columns, c_k * columns);
    let m = products(gpu, WinogradMode::Ahead, shape, d.n, (&u, &v));
    output(gpu, shape, (&m, d.n), epilogue, false).0
}

/// The forward without bias, and its output's moments (conv.rs, `forward_moments`).
pub(super) fn forward_moments(
    gpu: &Gpu,
    x: &GpuBuf,
    w: &GpuBuf,
    d: ConvDims,
) -> (GpuBuf, GpuBuf, usize) {
    let mode = WinogradMode::Forward;
    let (out, moments) = in_the_loads(gpu, mode, &d, (w, x), Epilogue::default(), true);
    let (moments, parts) = moments.expect("asked for moments");
    (out, moments, parts)
}

/// The input gradient: the convolution of `g` by `w` turned half a turn, channels swapped.
pub(super) fn grad_input(gpu: &Gpu, g: &GpuBuf, w: &GpuBuf, d: ConvDims) -> GpuBuf {
    let mode = WinogradMode::GradInput;
    in_the_loads(gpu, mode, &d, (w, g), Epilogue::default(), false).0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(c_in: usize, c_out: usize, k: usize, pad: usize, stride: usize) -> ConvDims {
        ConvDims {
            n: 32,
            c_in,
            h: 8,
            w: 8,
            c_out,
            kh: k,
            kw: k,
            pad_h: pad,
            pad_w: pad,
            stride_h: stride,
            stride_w: stride,
        }
    }

    #[test]
    fn winograd_takes_the_towers_3x3_layers_only() {
        // The bodies of az-tiny, az-small and az-large.
        for c in [32, 64, 128] {
            assert!(suits(&dims(c, c, 3, 1, 1)));
        }
        // Their stems read 8 planes; heads are 1x1; strided or unpadded layers are not F(4, 3)
        // over the same plane.
        assert!(!suits(&dims(8, 64, 3, 1, 1)));
        assert!(!suits(&dims(64, 64, 1, 0, 1)));
        assert!(!suits(&dims(64, 64, 3, 1, 2)));
        assert!(!suits(&dims(64, 64, 3, 0, 1)));
        // Too few boards: 31 of them make 124 tiles.
        let few = ConvDims {
            n: 31,
            ..dims(64, 64, 3, 1, 1)
        };
        assert!(!suits(&few));
    }
}
