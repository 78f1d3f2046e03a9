//! Batched matrix products on the tiled GEMM (shaders/matmul.wgsl), and a linear layer's
//! inference form, whose bias and activation are applied as the product is stored.

use super::gemm::{self, GemmHeader, GemmParams};
use super::pipelines::Shader;
use super::{Gpu, GpuBuf, to_u32};
use crate::backend::{Activation, LinearDims, MatmulDims};
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
    has_bias: u32,
    /// 0 none, 1 ReLU, 2 tanh.
    act: u32,
}

impl Params {
    fn new(gemm: GemmHeader, d: MatmulDims, has_bias: bool, act: Option<Activation>) -> Params {
        Params {
            gemm,
            batch_a: to_u32(d.batch_a),
            batch_b: to_u32(d.batch_b),
            trans_a: d.trans_a.into(),
            trans_b: d.trans_b.into(),
            has_bias: has_bias.into(),
            act: match act {
                None => 0,
                Some(Activation::Relu) => 1,
                Some(Activation::Tanh) => 2,
            },
        }
    }
}

pub(super) fn matmul(gpu: &Gpu, a: &GpuBuf, b: &GpuBuf, d: MatmulDims) -> GpuBuf {
    let (tile, h) = GemmHeader::plan((d.m, d.n, d.k), d.batch(), true, gpu.0.context.occupancy());
    let p = Params::new(h, d, false, None);
    // The bias binding is declared by every product; where unused any buffer fills it.
    gemm::run(gpu, Shader::Matmul(tile), &p, &[a, b, a])
}

/// act?(x w^T + bias?) in one dispatch: never split over k, since the store that adds the
/// bias and applies the activation must see whole sums (a layer's inputs are few).
pub(super) fn linear(
    gpu: &Gpu,
    x: &GpuBuf,
    w: &GpuBuf,
    bias: Option<&GpuBuf>,
    act: Option<Activation>,
    d: LinearDims,
) -> GpuBuf {
    let dims = d.product();
    let occupancy = gpu.0.context.occupancy();
    let (tile, h) = GemmHeader::plan((dims.m, dims.n, dims.k), 1, false, occupancy);
    let p = Params::new(h, dims, bias.is_some(), act);
    gemm::run(gpu, Shader::Matmul(tile), &p, &[x, w, bias.unwrap_or(x)])
}

impl GemmParams for Params {
    fn header(&self) -> GemmHeader {
        self.gemm
    }
}
