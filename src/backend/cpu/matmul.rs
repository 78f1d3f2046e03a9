//! Batched matrix products on our SGEMM; transposes are given by strides.

use super::CpuBuf;
use super::elementwise::unary_scalar;
use super::gemm::{Kernel, gemm};
use crate::backend::{Activation, LinearDims, MatmulDims};
use rayon::prelude::*;

/// The kernel products run on, as benchmarks name it (chosen at run time by CPU features).
pub fn sgemm_kernel() -> &'static str {
    Kernel::selected().name()
}

pub fn matmul(a: &[f32], b: &[f32], d: MatmulDims) -> CpuBuf {
    let MatmulDims { m, k, n, .. } = d;
    let a_strides = if d.trans_a { (1, m) } else { (k, 1) };
    let b_strides = if d.trans_b { (1, k) } else { (n, 1) };
    let mut out = vec![0.0f32; d.batch() * m * n];
    let product = |(i, c): (usize, &mut [f32])| {
        let ai = if d.batch_a == 1 { 0 } else { i };
        let bi = if d.batch_b == 1 { 0 } else { i };
        gemm(
            Kernel::selected(),
            m,
            k,
            n,
            &a[ai * m * k..(ai + 1) * m * k],
            a_strides,
            &b[bi * k * n..(bi + 1) * k * n],
            b_strides,
            c,
            false,
        );
    };
    if d.batch() > 1 && m * k * n * d.batch() >= 1 << 16 {
        out.par_chunks_mut(m * n).enumerate().for_each(product);
    } else {
        out.chunks_mut(m * n).enumerate().for_each(product);
    }
    CpuBuf::new(out)
}

/// act?(x w^T + bias?): the product accumulated onto copies of the bias, then the activation
/// in place, so the layer makes one array, not three.
pub fn linear(
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    act: Option<Activation>,
    d: LinearDims,
) -> CpuBuf {
    let LinearDims {
        rows,
        inputs,
        outputs,
    } = d;
    let mut out = match bias {
        Some(b) => b.repeat(rows),
        None => vec![0.0; rows * outputs],
    };
    // w is stored (outputs, inputs): its transpose is read with swapped strides.
    let (x_strides, w_strides) = ((inputs, 1), (1, inputs));
    let kernel = Kernel::selected();
    gemm(
        kernel, rows, inputs, outputs, x, x_strides, w, w_strides, &mut out, true,
    );
    if let Some(act) = act {
        let op = act.op();
        out.iter_mut().for_each(|v| *v = unary_scalar(op, *v));
    }
    CpuBuf::new(out)
}
