//! Training-mode batch norm (shaders/norm/): two kernels forward (the per-channel statistics,
//! which also move the running averages, then the normalisation) and two backward (the
//! per-channel gradient sums, then the input gradient). The formulas are on
//! [`Backend::batch_norm_train`](super::Backend::batch_norm_train) and its gradient. After a
//! convolution that wrote its output's moments, the statistics are made from those.

use super::pipelines::{Kernel, NormPass, Shader};
use super::{Gpu, GpuBuf, groups_1d, to_u32};
use crate::backend::{NormDims, Running};
use bytemuck::{Pod, Zeroable};

/// Mirrors `Params` in norm/common.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
pub(super) struct Params {
    n: u32,
    c: u32,
    plane: u32,
    len: u32,
    eps: f32,
    momentum: f32,
    unbias: f32,
    relu: u32,
    dbeta_at: u32,
    parts: u32,
    _pad: [u32; 2],
}

fn params(d: NormDims, eps: f32, momentum: f32) -> Params {
    let count = d.count();
    Params {
        n: to_u32(d.n),
        c: to_u32(d.c),
        plane: to_u32(d.plane),
        len: to_u32(d.n * d.c * d.plane),
        eps,
        momentum,
        unbias: if count > 1 {
            count as f32 / (count - 1) as f32
        } else {
            1.0
        },
        ..Params::default()
    }
}

fn kernel(pass: NormPass) -> Kernel {
    Kernel {
        shader: Shader::Norm(pass),
        entry: "main",
    }
}

/// Where the forward's statistics come from.
pub(super) enum Source<'a> {
    /// Two passes over x.
    Input,
    /// `parts` moments per channel written by the convolution that made x
    /// (`conv::forward_moments`).
    Moments(&'a GpuBuf, usize),
}

/// [y, mean, var, running mean, running var].
#[allow(clippy::too_many_arguments)]
pub(super) fn train(
    gpu: &Gpu,
    x: &GpuBuf,
    source: Source<'_>,
    gamma: &GpuBuf,
    beta: &GpuBuf,
    running: Running<'_, GpuBuf>,
    relu: bool,
    d: NormDims,
    eps: f32,
) -> [GpuBuf; 5] {
    let (pass, read, parts) = match source {
        Source::Input => (NormPass::Stats, x, 0),
        Source::Moments(moments, parts) => (NormPass::Moments, moments, parts),
    };
    let p = Params {
        relu: relu.into(),
        parts: to_u32(parts),
        ..params(d, eps, running.momentum)
    };
    let [mean, var, run_mean, run_var] = [(); 4].map(|_| gpu.alloc(d.c));
    let y = gpu.alloc(p.len as usize);
    gpu.launch(
        kernel(pass),
        &p,
        &[
            &mean,
            &var,
            &run_mean,
            &run_var,
            read,
            running.mean,
            running.var,
        ],
        d.c,
    );
    if p.len > 0 {
        gpu.launch(
            kernel(NormPass::Normalize),
            &p,
            &[&y, x, &mean, &var, gamma, beta],
            groups_1d(p.len as usize),
        );
    }
    [y, mean, var, run_mean, run_var]
}

/// [dx, dgamma, dbeta]; dgamma and dbeta are views into one buffer.
#[allow(clippy::too_many_arguments)]
pub(super) fn train_grad(
    gpu: &Gpu,
    x: &GpuBuf,
    g: &GpuBuf,
    relu_out: Option<&GpuBuf>,
    mean: &GpuBuf,
    var: &GpuBuf,
    gamma: &GpuBuf,
    d: NormDims,
    eps: f32,
) -> [GpuBuf; 3] {
    let dbeta_at = d.c.next_multiple_of(gpu.view_align());
    let p = Params {
        relu: relu_out.is_some().into(),
        dbeta_at: to_u32(dbeta_at),
        ..params(d, eps, 0.0)
    };
    // Without a ReLU the mask is not read; g stands in for it.
    let y = relu_out.unwrap_or(g);
    let dstats = gpu.alloc(dbeta_at + d.c);
    let dx = gpu.alloc(p.len as usize);
    gpu.launch(
        kernel(NormPass::GradStats),
        &p,
        &[&dstats, x, g, y, mean, var],
        d.c,
    );
    if p.len > 0 {
        gpu.launch(
            kernel(NormPass::GradInput),
            &p,
            &[&dx, x, g, y, mean, var, gamma, &dstats],
            groups_1d(p.len as usize),
        );
    }
    [dx, dstats.view(0, d.c), dstats.view(dbeta_at, d.c)]
}

/// Per-channel sums of (n, c, plane), as (c).
pub(super) fn channel_sum(gpu: &Gpu, x: &GpuBuf, d: NormDims) -> GpuBuf {
    let sums = gpu.alloc(d.c);
    gpu.launch(
        kernel(NormPass::ChannelSum),
        &params(d, 0.0, 0.0),
        &[&sums, x],
        d.c,
    );
    sums
}
