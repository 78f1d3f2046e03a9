//! Batched matrix products on `matrixmultiply`'s SGEMM; transposes are free (strides).

use super::CpuBuf;
use crate::backend::MatmulDims;
use rayon::prelude::*;

/// The SIMD kernel `matrixmultiply` runs on this CPU. It picks one at run time by CPU features
/// (its `avx512` feature, on by default, compiles the AVX-512 kernel in); this repeats its
/// order of checks so that benchmarks can say which path ran.
pub fn sgemm_kernel() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return "avx512f";
        }
        if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2")
        {
            return "fma+avx2";
        }
        if std::arch::is_x86_feature_detected!("avx") {
            return "avx";
        }
    }
    #[cfg(target_arch = "aarch64")]
    if std::arch::is_aarch64_feature_detected!("neon") {
        return "neon";
    }
    "portable"
}

/// C (m x n, row-major, `c_row` apart) += or = A * B, with A and B given by element strides.
/// `accumulate` adds to C instead of overwriting it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    (rsa, csa): (usize, usize),
    b: &[f32],
    (rsb, csb): (usize, usize),
    c: &mut [f32],
    accumulate: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(
        k == 0 || (m - 1) * rsa + (k - 1) * csa < a.len(),
        "gemm: A too small"
    );
    assert!(
        k == 0 || (k - 1) * rsb + (n - 1) * csb < b.len(),
        "gemm: B too small"
    );
    assert!(c.len() >= m * n, "gemm: C too small");
    let beta = if accumulate { 1.0 } else { 0.0 };
    // SAFETY: the asserts above keep every index the kernel reads or writes inside the slices.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            rsa as isize,
            csa as isize,
            b.as_ptr(),
            rsb as isize,
            csb as isize,
            beta,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
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
