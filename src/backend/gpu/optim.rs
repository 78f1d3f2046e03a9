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
}

pub(super) fn step(
    gpu: &Gpu,
    step: OptimStep,
    w: &GpuBuf,
    g: &GpuBuf,
    s1: &GpuBuf,
    s2: &GpuBuf,
) -> [GpuBuf; 3] {
    let len = w.0.len;
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
                    ..Params::default()
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
