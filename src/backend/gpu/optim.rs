//! Optimizer steps (shaders/optim.wgsl): new parameter and state buffers, on the device.

use super::pipelines::{Kernel, Shader};
use super::{Gpu, GpuBuf, groups_1d, to_u32};
use crate::backend::OptimStep;
use bytemuck::{Pod, Zeroable};

/// Mirrors `Params` in optim.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
pub(super) struct Params {
    len: u32,
    lr: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    weight_decay: f32,
    c1: f32,
    c2: f32,
    /// What each gradient is multiplied by: a loss scale's inverse, else 1.
    unscale: f32,
    /// 1 where the gradients hold at `check_at` their sum, and the step is taken only where
    /// it is finite.
    checked: u32,
    check_at: u32,
    _pad: u32,
}

/// A step on scaled gradients: the scale's inverse, and where the gradients hold their sum.
#[derive(Clone, Copy)]
struct Scaled {
    unscale: f32,
    check_at: usize,
}

pub(super) fn step(
    gpu: &Gpu,
    step: OptimStep,
    w: &GpuBuf,
    g: &GpuBuf,
    s1: &GpuBuf,
    s2: &GpuBuf,
) -> [GpuBuf; 3] {
    step_checked(gpu, step, [w, g, s1, s2], None)
}

/// `step`, on gradients scaled as `scaled` says where it says.
fn step_checked(
    gpu: &Gpu,
    step: OptimStep,
    [w, g, s1, s2]: [&GpuBuf; 4],
    scaled: Option<Scaled>,
) -> [GpuBuf; 3] {
    let len = w.len;
    let checks = Params {
        unscale: scaled.map_or(1.0, |s| s.unscale),
        checked: scaled.is_some().into(),
        check_at: scaled.map_or(0, |s| to_u32(s.check_at)),
        ..Params::default()
    };
    let (new_w, new_s1) = (gpu.alloc(len), gpu.alloc(len));
    let groups = groups_1d(len);
    match step {
        OptimStep::Sgd {
            lr,
            momentum,
            weight_decay,
        } => {
            if len > 0 {
                let p = Params {
                    len: to_u32(len),
                    lr,
                    beta1: momentum,
                    weight_decay,
                    ..checks
                };
                gpu.launch(
                    Kernel {
                        shader: Shader::Optim,
                        entry: "sgd",
                    },
                    &p,
                    &[&new_w, &new_s1, w, g, s1],
                    groups,
                );
            }
            // Buffers are immutable, so the unchanged second state is shared, not copied.
            [new_w, new_s1, s2.clone()]
        }
        OptimStep::Adam {
            lr,
            beta1,
            beta2,
            eps,
            weight_decay,
            t,
        } => {
            let new_s2 = gpu.alloc(len);
            if len > 0 {
                let p = Params {
                    len: to_u32(len),
                    lr,
                    beta1,
                    beta2,
                    eps,
                    weight_decay,
                    c1: 1.0 - beta1.powi(t as i32),
                    c2: 1.0 - beta2.powi(t as i32),
                    ..checks
                };
                let buffers = [&new_w, &new_s1, w, g, s1, &new_s2, s2];
                gpu.launch(
                    Kernel {
                        shader: Shader::Optim,
                        entry: "adam",
                    },
                    &p,
                    &buffers,
                    groups,
                );
            }
            [new_w, new_s1, new_s2]
        }
    }
}

/// One step on many parameters with one kernel: the operands are laid end to end in flat
/// buffers (each parameter at a binding-aligned offset) and the new parameters and states are
/// views into the flat results. After the first step the parameters and states already are
/// such views, so only the gradients are gathered (by buffer copies, not kernels).
///
/// With `unscale` (a loss scale's inverse) the gradients are scaled ones: they are gathered
/// into zeros, so the gaps between them add nothing, their sum is reduced after them (three
/// more dispatches with the zeros), and the kernel unscales each gradient and takes the step
/// only where that sum is finite, so the host need not wait for it. Returns the sum then,
/// and only then.
pub(super) fn step_all(
    gpu: &Gpu,
    step: OptimStep,
    params: &[[&GpuBuf; 4]],
    unscale: Option<f32>,
) -> (Vec<[GpuBuf; 3]>, Option<GpuBuf>) {
    let align = gpu.view_align();
    let mut offsets = Vec::with_capacity(params.len());
    let mut total = 0;
    for [w, ..] in params {
        offsets.push(total);
        total += w.len.next_multiple_of(align);
    }
    // Copies operand k of every parameter to its offset in `into`.
    let gather = |k: usize, into: &GpuBuf| {
        for (p, &at) in params.iter().zip(&offsets) {
            gpu.copy_into(p[k], into, at);
        }
    };
    // Operand k of every parameter as one flat buffer: the memory they are views of when they
    // already lie so, else a gather.
    let flat = |k: usize| -> GpuBuf {
        if let Some(first) = params.first().map(|p| p[k])
            && first.offset == 0
            && first.mem.buffer.size() >= total as u64 * 4
        {
            let whole = GpuBuf {
                mem: first.mem.clone(),
                offset: 0,
                len: total,
            };
            if params
                .iter()
                .zip(&offsets)
                .all(|(p, &at)| p[k].is_view_of(&whole, at))
            {
                return whole;
            }
        }
        let whole = gpu.alloc(total);
        gather(k, &whole);
        whole
    };
    let sgd = matches!(step, OptimStep::Sgd { .. });
    let (w, s1) = (flat(0), flat(2));
    let (g, scaled, check) = match unscale {
        None => (flat(1), None, None),
        Some(unscale) => {
            let g = super::elementwise::fill(gpu, total + 1, 0.0);
            gather(1, &g);
            let check = super::reduce::sum_axis(gpu, &g.view(0, total), 1, total, 1);
            gpu.copy_into(&check, &g, total);
            let check_at = total;
            (g, Some(Scaled { unscale, check_at }), Some(check))
        }
    };
    // SGD has no second state: its operand is handed back untouched.
    let s2 = if sgd { s1.clone() } else { flat(3) };
    let [new_w, new_s1, new_s2] = step_checked(gpu, step, [&w, &g, &s1, &s2], scaled);
    let new = params
        .iter()
        .zip(offsets)
        .map(|(p, at)| {
            let len = p[0].len;
            let s2 = if sgd {
                p[3].clone()
            } else {
                new_s2.view(at, len)
            };
            [new_w.view(at, len), new_s1.view(at, len), s2]
        })
        .collect();
    (new, check)
}
