//! Sums along an axis and row softmax (shaders/reduce.wgsl).
//!
//! A long sum is cut into chunks that separate workgroups add up; the (outer, chunks, inner)
//! partial sums are then summed again the same way, so no single invocation walks far.

use super::pipelines::{Kernel, Shader, WG};
use super::{Gpu, GpuBuf, elementwise, groups_1d, to_u32};
use bytemuck::{Pod, Zeroable};

/// Mirrors `Params` in reduce.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
pub(super) struct Params {
    outer: u32,
    n: u32,
    inner: u32,
    chunk: u32,
    chunks: u32,
    log: u32,
    _pad: [u32; 2],
}

/// Row sums (inner == 1) use a workgroup per (row, chunk): aim for this many workgroups, each
/// summing at least MIN_ROW_CHUNK values.
const TARGET_ROW_GROUPS: usize = 256;
const MIN_ROW_CHUNK: usize = 4 * WG as usize;
/// Column sums use an invocation per (output, chunk): aim for this many invocations, each
/// summing at least MIN_COL_CHUNK values.
const TARGET_COL_THREADS: usize = 1 << 14;
const MIN_COL_CHUNK: usize = 32;

fn kernel(entry: &'static str) -> Kernel {
    Kernel {
        shader: Shader::Reduce,
        entry,
    }
}

/// Sums the middle axis of (outer, n, inner) into (outer, inner).
pub(super) fn sum_axis(gpu: &Gpu, x: &GpuBuf, outer: usize, n: usize, inner: usize) -> GpuBuf {
    if n == 0 || outer * inner == 0 {
        return elementwise::fill(gpu, outer * inner, 0.0);
    }
    let rows = inner == 1;
    let (entry, units, target, min_chunk) = if rows {
        ("sum_rows", outer, TARGET_ROW_GROUPS, MIN_ROW_CHUNK)
    } else {
        ("sum_cols", outer * inner, TARGET_COL_THREADS, MIN_COL_CHUNK)
    };
    let chunks = (target / units).clamp(1, n.div_ceil(min_chunk));
    let chunk = n.div_ceil(chunks);
    let chunks = n.div_ceil(chunk);
    let out = gpu.alloc(outer * chunks * inner);
    let p = Params {
        outer: to_u32(outer),
        n: to_u32(n),
        inner: to_u32(inner),
        chunk: to_u32(chunk),
        chunks: to_u32(chunks),
        ..Params::default()
    };
    let groups = if rows {
        outer * chunks
    } else {
        groups_1d(outer * chunks * inner)
    };
    gpu.launch(kernel(entry), &p, &[&out, x], groups);
    if chunks > 1 {
        sum_axis(gpu, &out, outer, chunks, inner)
    } else {
        out
    }
}

/// Softmax (or log-softmax) of each row of (rows, cols): one workgroup per row.
pub(super) fn softmax(gpu: &Gpu, x: &GpuBuf, rows: usize, cols: usize, log: bool) -> GpuBuf {
    let out = gpu.alloc(rows * cols);
    if rows * cols > 0 {
        let p = Params {
            outer: to_u32(rows),
            n: to_u32(cols),
            log: log.into(),
            ..Params::default()
        };
        gpu.launch(kernel("softmax"), &p, &[&out, x], rows);
    }
    out
}
