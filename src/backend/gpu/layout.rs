//! Data movement: permute, pad/crop, column gather and scatter (shaders/layout.wgsl).

use super::elementwise::rank4;
use super::pipelines::{Kernel, Shader};
use super::{Gpu, GpuBuf, groups_1d, to_u32};
use bytemuck::{Pod, Zeroable};

/// Mirrors `Params` in layout.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
pub(super) struct Params {
    shape: [u32; 4],
    strides: [u32; 4],
    pads: [i32; 4],
    len: u32,
    h: u32,
    w: u32,
    out_h: u32,
    out_w: u32,
    picks: u32,
    value: f32,
    _pad: u32,
}

/// Records `entry` with one invocation per element of a new `len`-element output.
fn run(gpu: &Gpu, entry: &'static str, p: Params, inputs: &[&GpuBuf]) -> GpuBuf {
    let len = p.len as usize;
    let out = gpu.alloc(len);
    if len > 0 {
        let mut buffers = vec![&out];
        buffers.extend_from_slice(inputs);
        gpu.launch(
            Kernel {
                shader: Shader::Layout,
                entry,
            },
            &p,
            &buffers,
            groups_1d(len),
        );
    }
    out
}

pub(super) fn permute(gpu: &Gpu, x: &GpuBuf, shape: &[usize], perm: &[usize]) -> GpuBuf {
    let rank = shape.len();
    let mut in_strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        in_strides[i] = in_strides[i + 1] * shape[i + 1];
    }
    let out_shape: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
    let mut strides = [0u32; 4];
    for (s, &a) in strides[4 - rank..].iter_mut().zip(perm) {
        *s = to_u32(in_strides[a]);
    }
    let p = Params {
        shape: rank4(&out_shape),
        strides,
        len: to_u32(x.len),
        ..Params::default()
    };
    run(gpu, "permute", p, &[x])
}

pub(super) fn pad2d(
    gpu: &Gpu,
    x: &GpuBuf,
    planes: usize,
    h: usize,
    w: usize,
    pads: [i32; 4],
    value: f32,
) -> GpuBuf {
    let [top, bottom, left, right] = pads;
    let out_h = (h as i32 + top + bottom) as usize;
    let out_w = (w as i32 + left + right) as usize;
    let p = Params {
        pads,
        len: to_u32(planes * out_h * out_w),
        h: to_u32(h),
        w: to_u32(w),
        out_h: to_u32(out_h),
        out_w: to_u32(out_w),
        value,
        ..Params::default()
    };
    run(gpu, "pad2d", p, &[x])
}

pub(super) fn gather_cols(
    gpu: &Gpu,
    x: &GpuBuf,
    rows: usize,
    cols: usize,
    index: &[u32],
) -> GpuBuf {
    let table = gpu.table(index);
    let p = Params {
        len: to_u32(rows * index.len()),
        w: to_u32(cols),
        picks: to_u32(index.len()),
        ..Params::default()
    };
    run(gpu, "gather_cols", p, &[x, &table])
}

/// The adjoint of `gather_cols`. The host inverts the index into, per column, the list of
/// picks that read it (offsets, then the picks), so each output sums its own picks.
pub(super) fn scatter_cols(
    gpu: &Gpu,
    g: &GpuBuf,
    rows: usize,
    cols: usize,
    index: &[u32],
) -> GpuBuf {
    let mut offsets = vec![0u32; cols + 1];
    for &c in index {
        offsets[c as usize + 1] += 1;
    }
    for c in 0..cols {
        offsets[c + 1] += offsets[c];
    }
    let mut picks = vec![0u32; index.len()];
    let mut next = offsets.clone();
    for (j, &c) in index.iter().enumerate() {
        picks[next[c as usize] as usize] = to_u32(j);
        next[c as usize] += 1;
    }
    offsets.extend(picks);
    let table = gpu.table(&offsets);
    let p = Params {
        len: to_u32(rows * cols),
        w: to_u32(cols),
        picks: to_u32(index.len()),
        ..Params::default()
    };
    run(gpu, "scatter_cols", p, &[g, &table])
}
