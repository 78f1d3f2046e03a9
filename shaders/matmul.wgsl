// Batched matrix products on the tiled core (gemm.wgsl). A batch of 1 on either side is
// broadcast; transposed operands are read with swapped strides. The operands are bound as
// vec4 arrays (the host binds whole 16-byte words): a quad along an operand's rows is one
// load when the row length is a multiple of 4, and single values are picked out of a word.
// A linear layer's inference form adds a bias per column and applies its activation as it
// stores (never split over k, so each stored value is a whole sum).

struct Params {
    gemm: GemmHeader,
    batch_a: u32,
    batch_b: u32,
    trans_a: u32,
    trans_b: u32,
    has_bias: u32,
    // 0 none, 1 ReLU, 2 tanh.
    act: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> lhs: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> rhs: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;

fn a_k_fastest() -> bool {
    return p.trans_a == 0u;
}

fn b_n_fastest() -> bool {
    return p.trans_b == 0u;
}

// Rows of A in memory are k long, or m long when transposed (and likewise for B), and each
// matrix of a batch starts at a multiple of its row length.
fn a_vec4() -> bool {
    return select(p.gemm.k, p.gemm.m, p.trans_a != 0u) % 4u == 0u;
}

fn b_vec4() -> bool {
    return select(p.gemm.n, p.gemm.k, p.trans_b != 0u) % 4u == 0u;
}

fn a_index(bat: u32, i: u32, kk: u32) -> u32 {
    let base = select(bat, 0u, p.batch_a == 1u) * p.gemm.m * p.gemm.k;
    if (p.trans_a != 0u) {
        return base + kk * p.gemm.m + i;
    }
    return base + i * p.gemm.k + kk;
}

fn b_index(bat: u32, kk: u32, j: u32) -> u32 {
    let base = select(bat, 0u, p.batch_b == 1u) * p.gemm.k * p.gemm.n;
    if (p.trans_b != 0u) {
        return base + j * p.gemm.k + kk;
    }
    return base + kk * p.gemm.n + j;
}

fn load_a(bat: u32, i: u32, kk: u32) -> f32 {
    let x = a_index(bat, i, kk);
    return lhs[x / 4u][x % 4u];
}

fn load_b(bat: u32, kk: u32, j: u32) -> f32 {
    let x = b_index(bat, kk, j);
    return rhs[x / 4u][x % 4u];
}

fn load_a4(bat: u32, i: u32, kk: u32) -> vec4<f32> {
    return lhs[a_index(bat, i, kk) / 4u];
}

fn load_b4(bat: u32, kk: u32, j: u32) -> vec4<f32> {
    return rhs[b_index(bat, kk, j) / 4u];
}

fn store_c(split: u32, bat: u32, i: u32, j: u32, v: f32) {
    var y = v;
    if (p.has_bias != 0u) {
        y += bias[j];
    }
    if (p.act == 1u) {
        y = max(y, 0.0);
    } else if (p.act == 2u) {
        // Clamped as elementwise.wgsl's tanh is: some drivers overflow a ratio of exponentials.
        y = tanh(clamp(y, -15.0, 15.0));
    }
    out[((split * p.gemm.batch + bat) * p.gemm.m + i) * p.gemm.n + j] = y;
}
