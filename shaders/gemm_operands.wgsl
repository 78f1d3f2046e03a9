// The operands and output of the tiled matrix product, shared by its two cores (gemm.wgsl on
// f32 registers, gemm_tensor.wgsl on cooperative matrices): C (m x n) = A (m x k) B (k x n)
// for each of `batch` products, with the k range split into `splits` parts whose partial
// products the host sums. Each workgroup computes one BM x BN tile of C from BK-deep slices
// of A and B, which the core defines.
//
// Operands move in quads: 4 consecutive values along an operand's fastest axis in memory,
// read whole where the family says it can (an aligned vec4, or a gather whose index it works
// out once a quad) and the quad lies inside the matrix, else as 4 checked scalars (edges,
// unaligned sizes, other gathers).
//
// The including family file defines `p` (a struct whose first field `gemm` is a GemmHeader)
// and these functions, called only with indices inside the matrices:
//   load_a(batch, i, kk) -> f32        load_b(batch, kk, j) -> f32
//   a_k_fastest() -> bool              b_n_fastest() -> bool   (memory order)
//   a_vec4() -> bool                   b_vec4() -> bool        (quads are read whole)
//   load_a4(batch, i, kk) -> vec4<f32> load_b4(batch, kk, j) -> vec4<f32>
//       the quad starting there along the fast axis; called only where a_vec4() / b_vec4()
//   store_c(split, batch, i, j, value)

struct GemmHeader {
    m: u32,
    n: u32,
    k: u32,
    batch: u32,
    // k elements per split (a multiple of BK)
    k_split: u32,
    splits: u32,
    tiles_m: u32,
    tiles_n: u32,
}

// A workgroup's share of the launch: its split-K part, its product, its tile's origin, and
// its k range in BK-deep slices.
struct Place {
    split: u32,
    bat: u32,
    row0: u32,
    col0: u32,
    k_begin: u32,
    k_end: u32,
    slices: u32,
}

// Workgroups of the launch, split-K parts included.
fn launched() -> u32 {
    return p.gemm.tiles_m * p.gemm.tiles_n * p.gemm.batch * p.gemm.splits;
}

// The place of workgroup g (below `launched()`).
fn place(g: u32) -> Place {
    let h = p.gemm;
    let tiles = h.tiles_m * h.tiles_n;
    let bt = g % (tiles * h.batch);
    let split = g / (tiles * h.batch);
    let k_begin = split * h.k_split;
    let k_end = min(h.k, k_begin + h.k_split);
    return Place(split, bt / tiles, ((bt % tiles) / h.tiles_n) * BM, ((bt % tiles) % h.tiles_n) * BN,
                 k_begin, k_end, (k_end - k_begin + BK - 1u) / BK);
}

// Quad q of an A slice: its first row and depth within the slice.
fn quad_a(q: u32) -> vec2<u32> {
    if (a_k_fastest()) {
        return vec2(q / (BK / 4u), q % (BK / 4u) * 4u);
    }
    return vec2(q % (BM / 4u) * 4u, q / (BM / 4u));
}

// Quad q of a B slice: its depth and first column within the slice.
fn quad_b(q: u32) -> vec2<u32> {
    if (b_n_fastest()) {
        return vec2(q / (BN / 4u), q % (BN / 4u) * 4u);
    }
    return vec2(q % (BK / 4u) * 4u, q / (BK / 4u));
}

fn fetch_a(bat: u32, row0: u32, k0: u32, k_end: u32, q: u32) -> vec4<f32> {
    let at = quad_a(q);
    let i = row0 + at.x;
    let kk = k0 + at.y;
    var v = vec4(0.0);
    if (a_k_fastest()) {
        if (i < p.gemm.m) {
            if (a_vec4() && kk + 3u < k_end) {
                return load_a4(bat, i, kk);
            }
            for (var c = 0u; c < 4u; c++) {
                if (kk + c < k_end) {
                    v[c] = load_a(bat, i, kk + c);
                }
            }
        }
    } else if (kk < k_end) {
        if (a_vec4() && i + 3u < p.gemm.m) {
            return load_a4(bat, i, kk);
        }
        for (var c = 0u; c < 4u; c++) {
            if (i + c < p.gemm.m) {
                v[c] = load_a(bat, i + c, kk);
            }
        }
    }
    return v;
}

fn fetch_b(bat: u32, col0: u32, k0: u32, k_end: u32, q: u32) -> vec4<f32> {
    let at = quad_b(q);
    let kk = k0 + at.x;
    let j = col0 + at.y;
    var v = vec4(0.0);
    if (b_n_fastest()) {
        if (kk < k_end) {
            if (b_vec4() && j + 3u < p.gemm.n) {
                return load_b4(bat, kk, j);
            }
            for (var c = 0u; c < 4u; c++) {
                if (j + c < p.gemm.n) {
                    v[c] = load_b(bat, kk, j + c);
                }
            }
        }
    } else if (j < p.gemm.n) {
        if (b_vec4() && kk + 3u < k_end) {
            return load_b4(bat, kk, j);
        }
        for (var c = 0u; c < 4u; c++) {
            if (kk + c < k_end) {
                v[c] = load_b(bat, kk + c, j);
            }
        }
    }
    return v;
}

// Row i, columns j..j+3 of the accumulators, each stored where it lies inside C.
fn store_quad(split: u32, bat: u32, i: u32, j: u32, v: vec4<f32>) {
    if (i >= p.gemm.m) {
        return;
    }
    if (j < p.gemm.n) {
        store_c(split, bat, i, j, v.x);
    }
    if (j + 1u < p.gemm.n) {
        store_c(split, bat, i, j + 1u, v.y);
    }
    if (j + 2u < p.gemm.n) {
        store_c(split, bat, i, j + 2u, v.z);
    }
    if (j + 3u < p.gemm.n) {
        store_c(split, bat, i, j + 3u, v.w);
    }
}
