//! The training losses with their gradients, each one dispatch (shaders/loss.wgsl).

use super::pipelines::{Kernel, Shader};
use super::{Gpu, GpuBuf, groups_1d, to_u32};
use bytemuck::{Pod, Zeroable};

/// Mirrors `Params` in loss.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
pub(super) struct Params {
    rows: u32,
    cols: u32,
    scale: f32,
    _pad: u32,
}

fn kernel(entry: &'static str) -> Kernel {
    Kernel {
        shader: Shader::Loss,
        entry,
    }
}

/// Softmax cross-entropy per row and its gradient: one workgroup per row.
pub(super) fn softmax_xent(
    gpu: &Gpu,
    z: &GpuBuf,
    t: &GpuBuf,
    rows: usize,
    cols: usize,
    scale: f32,
) -> [GpuBuf; 2] {
    let (loss, grad) = (gpu.alloc(rows), gpu.alloc(rows * cols));
    if rows * cols > 0 {
        let p = Params {
            rows: to_u32(rows),
            cols: to_u32(cols),
            scale,
            _pad: 0,
        };
        gpu.launch(kernel("softmax_xent"), &p, &[&loss, &grad, z, t], rows);
    }
    [loss, grad]
}

/// Squared error and its gradient, elementwise.
pub(super) fn squared_error(gpu: &Gpu, a: &GpuBuf, t: &GpuBuf, scale: f32) -> [GpuBuf; 2] {
    let len = a.len;
    let (loss, grad) = (gpu.alloc(len), gpu.alloc(len));
    if len > 0 {
        let p = Params {
            rows: to_u32(len),
            scale,
            ..Params::default()
        };
        gpu.launch(
            kernel("squared_error"),
            &p,
            &[&loss, &grad, a, t],
            groups_1d(len),
        );
    }
    [loss, grad]
}
