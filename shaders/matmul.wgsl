// Batched matrix products on the tiled core (gemm.wgsl). A batch of 1 on either side is
// broadcast; transposed operands are read with swapped strides.

struct Params {
    gemm: GemmHeader,
    batch_a: u32,
    batch_b: u32,
    trans_a: u32,
    trans_b: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> lhs: array<f32>;
@group(0) @binding(3) var<storage, read> rhs: array<f32>;

fn a_k_fastest() -> bool {
    return p.trans_a == 0u;
}

fn b_n_fastest() -> bool {
    return p.trans_b == 0u;
}

fn load_a(bat: u32, i: u32, kk: u32) -> f32 {
    let base = select(bat, 0u, p.batch_a == 1u) * p.gemm.m * p.gemm.k;
    if (p.trans_a != 0u) {
        return lhs[base + kk * p.gemm.m + i];
    }
    return lhs[base + i * p.gemm.k + kk];
}

fn load_b(bat: u32, kk: u32, j: u32) -> f32 {
    let base = select(bat, 0u, p.batch_b == 1u) * p.gemm.k * p.gemm.n;
    if (p.trans_b != 0u) {
        return rhs[base + j * p.gemm.k + kk];
    }
    return rhs[base + kk * p.gemm.n + j];
}

fn store_c(split: u32, bat: u32, i: u32, j: u32, v: f32) {
    out[((split * p.gemm.batch + bat) * p.gemm.m + i) * p.gemm.n + j] = v;
}
