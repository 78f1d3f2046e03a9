//! Tap convolution (tensor/ops/taps.rs) on the tiled core (shaders/tap_conv.wgsl): the
//! forward with its bias, residual and ReLU in one dispatch, and the weight gradient, each
//! reading the input through the layer's table (uploaded once, [`Gpu::table`]) instead of a
//! stored column matrix. The input gradient is the forward through the transposed table.

use super::conv::Params;
use super::epilogue::Epilogue;
use super::gemm::{self, GemmHeader};
use super::pipelines::{ConvMode, Shader, TapShape};
use super::{Gpu, GpuBuf, to_u32};
use crate::backend::TapDims;

/// Records one of the products, (m x k) (k x n), with `lhs` and the input `x` bound as the
/// shader names them.
fn run(
    gpu: &Gpu,
    mode: ConvMode,
    d: &TapDims,
    (m, n, k): (usize, usize, usize),
    (lhs, x): (&GpuBuf, &GpuBuf),
    table: &[u32],
    epilogue: Epilogue,
) -> GpuBuf {
    // The shader reads the table unchecked up to this length.
    assert_eq!(
        table.len(),
        d.cells_out * d.taps,
        "a tap table of {} entries for {} cells of {} taps",
        table.len(),
        d.cells_out,
        d.taps
    );
    // The forward stores its epilogue as it goes, so it is never split over k.
    let may_split = mode == ConvMode::GradWeight;
    let occupancy = gpu.0.context.occupancy();
    let (tile, header) = GemmHeader::plan((m, n, k), 1, may_split, occupancy);
    let shape = TapShape {
        c_in: to_u32(d.c_in),
        cells_in: to_u32(d.cells_in),
        c_out: to_u32(d.c_out),
        cells_out: to_u32(d.cells_out),
        taps: to_u32(d.taps),
    };
    let table = gpu.table(table);
    // The bias and residual bindings are declared by both modes; where unused any buffer
    // fills them.
    let inputs = [
        lhs,
        x,
        epilogue.bias.unwrap_or(lhs),
        epilogue.residual.unwrap_or(lhs),
        &table,
    ];
    let p = Params::new(header, &epilogue);
    gemm::run(gpu, Shader::TapConv { mode, tile, shape }, &p, &inputs)
}

pub(super) fn forward(
    gpu: &Gpu,
    x: &GpuBuf,
    w: &GpuBuf,
    d: TapDims,
    table: &[u32],
    epilogue: Epilogue,
) -> GpuBuf {
    let mnk = (d.c_out, d.n * d.cells_out, d.patch());
    run(gpu, ConvMode::Forward, &d, mnk, (w, x), table, epilogue)
}

pub(super) fn grad_weight(gpu: &Gpu, x: &GpuBuf, g: &GpuBuf, d: TapDims, table: &[u32]) -> GpuBuf {
    let mnk = (d.c_out, d.patch(), d.n * d.cells_out);
    let epilogue = Epilogue::default();
    run(gpu, ConvMode::GradWeight, &d, mnk, (g, x), table, epilogue)
}
