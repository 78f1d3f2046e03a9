// The tiled matrix product on f32 registers (the operands and output: gemm_operands.wgsl).
// Each workgroup computes one BM x BN tile of C, TM x TN outputs per invocation, staging
// BK-deep slices of A and B in two workgroup buffers: while the invocations multiply one
// slice, the next is already loaded into registers, and it is written into the other buffer
// before the single barrier of each step.
//
// The host fills {{END_TILE}}: code every invocation runs once its tile is stored (conv's
// moments), or nothing.

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
    let g = flat_group(wid, nwg);
    if (g >= launched()) {
        return;
    }
    let at = place(g);

{{STAGED}}
    if (at.slices > 0u) {
        let k0 = at.k_begin;
        let buf = 0u;
{{LOAD_SLICE}}
{{STASH_SLICE}}
    }
    workgroupBarrier();

{{ACCUMULATORS}}
    for (var s = 0u; s < at.slices; s++) {
        let buf = s % 2u;
        let more = s + 1u < at.slices;
        // Issue the next slice's loads before the arithmetic that hides them.
        if (more) {
            let k0 = at.k_begin + (s + 1u) * BK;
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
