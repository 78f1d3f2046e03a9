//! Batched matrix products on the tiled GEMM (shaders/matmul.wgsl).

use super::gemm::{self, GemmHeader, GemmParams};
use super::pipelines::Shader;
use super::{Gpu, GpuBuf, to_u32};
use crate::backend::MatmulDims;
use bytemuck::{Pod, Zeroable};

/// Mirrors `Params` in matmul.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(super) struct Params {
    gemm: GemmHeader,
    batch_a: u32,
    batch_b: u32,
    trans_a: u32,
    trans_b: u32,
}

pub(super) fn matmul(gpu: &Gpu, a: &GpuBuf, b: &GpuBuf, d: MatmulDims) -> GpuBuf {
    let (tile, h) = GemmHeader::plan((d.m, d.n, d.k), d.batch(), true, gpu.0.context.occupancy());
    let p = Params {
        gemm: h,
        batch_a: to_u32(d.batch_a),
        batch_b: to_u32(d.batch_b),
        trans_a: d.trans_a.into(),
        trans_b: d.trans_b.into(),
    };
    gemm::run(gpu, Shader::Matmul(tile), &p, &[a, b])
}

impl GemmParams for Params {
    fn header(&self) -> GemmHeader {
        self.gemm
    }
}
