// The tiled matrix product shared by matmul and conv: C (m x n) = A (m x k) B (k x n) for each
// of `batch` products, with the k range split into `splits` parts whose partial products the
// host sums. Each workgroup computes one BM x BN tile of C, TM x TN outputs per invocation,
// staging BK-deep slices of A and B in workgroup memory.
//
// The including family file defines `p` (a struct whose first field `gemm` is a GemmHeader)
// and these functions, called only with indices inside the matrices:
//   load_a(batch, i, kk) -> f32        load_b(batch, kk, j) -> f32
//   a_k_fastest() -> bool              b_n_fastest() -> bool   (memory order, for coalescing)
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

const BM: u32 = {{BM}}u;
const BN: u32 = {{BN}}u;
const BK: u32 = {{BK}}u;
const TM: u32 = {{TM}}u;
const TN: u32 = {{TN}}u;
const ROWS: u32 = BM / TM;
const COLS: u32 = BN / TN;
const THREADS: u32 = ROWS * COLS;

// Stored k-major: tile_a[kk * BM + i], tile_b[kk * BN + j].
var<workgroup> tile_a: array<f32, BK * BM>;
var<workgroup> tile_b: array<f32, BK * BN>;

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

    // Invocation (x, y) owns rows y + ROWS r and columns x + COLS c of the tile, so that
    // neighbouring invocations read neighbouring tile_b cells and write neighbouring outputs.
    var acc: array<f32, TM * TN>;
    for (var k0 = k_begin; k0 < k_end; k0 += BK) {
        for (var e = li; e < BM * BK; e += THREADS) {
            // Neighbouring invocations load neighbouring addresses of A.
            var i = e / BK;
            var kk = e % BK;
            if (!a_k_fastest()) {
                i = e % BM;
                kk = e / BM;
            }
            var v = 0.0;
            if (row0 + i < h.m && k0 + kk < k_end) {
                v = load_a(bat, row0 + i, k0 + kk);
            }
            tile_a[kk * BM + i] = v;
        }
        for (var e = li; e < BN * BK; e += THREADS) {
            var j = e % BN;
            var kk = e / BN;
            if (!b_n_fastest()) {
                j = e / BK;
                kk = e % BK;
            }
            var v = 0.0;
            if (col0 + j < h.n && k0 + kk < k_end) {
                v = load_b(bat, k0 + kk, col0 + j);
            }
            tile_b[kk * BN + j] = v;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < BK; kk++) {
            var av: array<f32, TM>;
            var bv: array<f32, TN>;
            for (var r = 0u; r < TM; r++) {
                av[r] = tile_a[kk * BM + lid.y + r * ROWS];
            }
            for (var c = 0u; c < TN; c++) {
                bv[c] = tile_b[kk * BN + lid.x + c * COLS];
            }
            for (var r = 0u; r < TM; r++) {
                for (var c = 0u; c < TN; c++) {
                    acc[r * TN + c] = fma(av[r], bv[c], acc[r * TN + c]);
                }
            }
        }
        workgroupBarrier();
    }
    for (var r = 0u; r < TM; r++) {
        for (var c = 0u; c < TN; c++) {
            let i = row0 + lid.y + r * ROWS;
            let j = col0 + lid.x + c * COLS;
            if (i < h.m && j < h.n) {
                store_c(split, bat, i, j, acc[r * TN + c]);
            }
        }
    }
}
