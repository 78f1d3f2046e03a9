// The tiled matrix product shared by matmul and conv: C (m x n) = A (m x k) B (k x n) for each
// of `batch` products, with the k range split into `splits` parts whose partial products the
// host sums. Each workgroup computes one BM x BN tile of C, TM x TN outputs per invocation,
// staging BK-deep slices of A and B in two workgroup buffers: while the invocations multiply
// one slice, the next is already loaded into registers, and it is written into the other
// buffer before the single barrier of each step.
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
// and the host fills {{END_TILE}}: code every invocation runs once its tile is stored
// (conv's moments), or nothing.

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

const BM: u32 = {{BM}}u;
const BN: u32 = {{BN}}u;
const BK: u32 = {{BK}}u;
const TM: u32 = {{TM}}u;
const TN: u32 = {{TN}}u;
const ROWS: u32 = BM / TM;
const COLS: u32 = BN / TN;
const THREADS: u32 = ROWS * COLS;
// Quads of each slice per invocation (the host checks these divide evenly).
const A_QUADS: u32 = BM * BK / 4u / THREADS;
const B_QUADS: u32 = BN * BK / 4u / THREADS;

// Slices stored k-major in quads of rows (columns): tile_a[buf][kk * BM / 4 + i / 4] holds
// rows i..i+3 at depth kk, so an invocation reads its rows 4 at a time.
var<workgroup> tile_a: array<array<vec4<f32>, BK * BM / 4u>, 2>;
var<workgroup> tile_b: array<array<vec4<f32>, BK * BN / 4u>, 2>;

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

fn stash_a(buf: u32, q: u32, v: vec4<f32>) {
    let at = quad_a(q);
    if (a_k_fastest()) {
        // A quad along k spreads over 4 depths of one row.
        let x = at.x / 4u;
        let e = at.x % 4u;
        tile_a[buf][at.y * (BM / 4u) + x][e] = v.x;
        tile_a[buf][(at.y + 1u) * (BM / 4u) + x][e] = v.y;
        tile_a[buf][(at.y + 2u) * (BM / 4u) + x][e] = v.z;
        tile_a[buf][(at.y + 3u) * (BM / 4u) + x][e] = v.w;
    } else {
        tile_a[buf][at.y * (BM / 4u) + at.x / 4u] = v;
    }
}

fn stash_b(buf: u32, q: u32, v: vec4<f32>) {
    let at = quad_b(q);
    if (b_n_fastest()) {
        tile_b[buf][at.x * (BN / 4u) + at.y / 4u] = v;
    } else {
        let y = at.y / 4u;
        let e = at.y % 4u;
        tile_b[buf][at.x * (BN / 4u) + y][e] = v.x;
        tile_b[buf][(at.x + 1u) * (BN / 4u) + y][e] = v.y;
        tile_b[buf][(at.x + 2u) * (BN / 4u) + y][e] = v.z;
        tile_b[buf][(at.x + 3u) * (BN / 4u) + y][e] = v.w;
    }
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

// Invocation (x, y) owns the row quads y + ROWS r and column quads x + COLS c of the tile:
// neighbouring invocations read neighbouring tile_b quads and write neighbouring outputs.
//
// The per-invocation work is written out by the host (gemm.rs, `Tile::register_block`): the
// accumulators, the staged loads and the multiply-adds as separate variables indexed by
// constants, so that no driver needs to unroll a loop to keep them in registers (an array
// indexed in a loop the compiler does not unroll lives in slow local memory).
@compute @workgroup_size(COLS, ROWS)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let h = p.gemm;
    let tiles = h.tiles_m * h.tiles_n;
    let g = flat_group(wid, nwg);
    if (g >= tiles * h.batch * h.splits) {
        return;
    }
    let split = g / (tiles * h.batch);
    let bt = g % (tiles * h.batch);
    let bat = bt / tiles;
    let row0 = ((bt % tiles) / h.tiles_n) * BM;
    let col0 = ((bt % tiles) % h.tiles_n) * BN;
    let k_begin = split * h.k_split;
    let k_end = min(h.k, k_begin + h.k_split);
    let slices = (k_end - k_begin + BK - 1u) / BK;

{{STAGED}}
    if (slices > 0u) {
        let k0 = k_begin;
        let buf = 0u;
{{LOAD_SLICE}}
{{STASH_SLICE}}
    }
    workgroupBarrier();

{{ACCUMULATORS}}
    for (var s = 0u; s < slices; s++) {
        let buf = s % 2u;
        let more = s + 1u < slices;
        // Issue the next slice's loads before the arithmetic that hides them.
        if (more) {
            let k0 = k_begin + (s + 1u) * BK;
{{LOAD_SLICE}}
        }
        for (var kk = 0u; kk < BK; kk++) {
{{MULTIPLY}}
        }
        // The other buffer was last read in the previous step, before its barrier.
        if (more) {
            let buf = 1u - s % 2u;
{{STASH_SLICE}}
        }
        workgroupBarrier();
    }

{{STORE}}
{{END_TILE}}
}
