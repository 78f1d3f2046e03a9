// The tiled matrix product on cooperative matrices (tensor cores), for `precision=mixed`
// (the operands and output: gemm_operands.wgsl). Each workgroup computes one 64 x 64 tile of
// C from BK-deep slices of A and B, converted to f16 as they are staged in workgroup memory;
// each of the first four subgroups multiplies a 32 x 32 quarter of the tile as 2 x 2 16x16
// f16 products accumulated in f32. The accumulators go through workgroup memory to the
// family's `store_c`, so the epilogue (bias, residual, ReLU, layout) is the f32 core's.
//
// The host launches THREADS invocations, at least four subgroups of at most 32 (it refuses
// mixed precision on an adapter whose subgroups may be wider); narrower subgroups share the
// quarters and store the same values. Only f16's range and its 11 significant bits are lost:
// every sum is f32.
//
// Cooperative operations must be reached by uniform control flow, so nothing returns early
// or branches around them: a workgroup past the launch's end computes the last tile again
// and stores nothing.

const BM: u32 = 64u;
const BN: u32 = 64u;
const BK: u32 = {{BK}}u;
const THREADS: u32 = {{THREADS}}u;

// A slice row-major (row i at i * BK), B's row-major (depth kk at kk * BN), and C's tile.
var<workgroup> half_a: array<f16, BM * BK>;
var<workgroup> half_b: array<f16, BK * BN>;
var<workgroup> tile_c: array<f32, BM * BN>;

fn stash_a(q: u32, v: vec4<f32>) {
    let at = quad_a(q);
    let h = vec4<f16>(v);
    let o = at.x * BK + at.y;
    // A quad runs along k (one row) or along the rows (one depth).
    let step = select(BK, 1u, a_k_fastest());
    half_a[o] = h.x;
    half_a[o + step] = h.y;
    half_a[o + 2u * step] = h.z;
    half_a[o + 3u * step] = h.w;
}

fn stash_b(q: u32, v: vec4<f32>) {
    let at = quad_b(q);
    let h = vec4<f16>(v);
    let o = at.x * BN + at.y;
    let step = select(BN, 1u, b_n_fastest());
    half_b[o] = h.x;
    half_b[o + step] = h.y;
    half_b[o + 2u * step] = h.z;
    half_b[o + 3u * step] = h.w;
}

@compute @workgroup_size(THREADS)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32, @builtin(subgroup_id) sg: u32) {
    let past_end = flat_group(wid, nwg) >= launched();
    let at = place(min(flat_group(wid, nwg), launched() - 1u));

    // This subgroup's quarter of the tile.
    let r0 = (sg % 4u / 2u) * 32u;
    let c0 = (sg % 2u) * 32u;
    var acc00 = coop_mat16x16<f32, C>();
    var acc01 = coop_mat16x16<f32, C>();
    var acc10 = coop_mat16x16<f32, C>();
    var acc11 = coop_mat16x16<f32, C>();
    for (var s = 0u; s < at.slices; s++) {
        let k0 = at.k_begin + s * BK;
        for (var q = li; q < BM * BK / 4u; q += THREADS) {
            stash_a(q, fetch_a(at.bat, at.row0, k0, at.k_end, q));
        }
        for (var q = li; q < BN * BK / 4u; q += THREADS) {
            stash_b(q, fetch_b(at.bat, at.col0, k0, at.k_end, q));
        }
        workgroupBarrier();
        for (var kk = 0u; kk < BK; kk += 16u) {
            let a0 = coopLoadT<coop_mat16x16<f16, A>>(&half_a[r0 * BK + kk], BK);
            let a1 = coopLoadT<coop_mat16x16<f16, A>>(&half_a[(r0 + 16u) * BK + kk], BK);
            let b0 = coopLoadT<coop_mat16x16<f16, B>>(&half_b[kk * BN + c0], BN);
            let b1 = coopLoadT<coop_mat16x16<f16, B>>(&half_b[kk * BN + c0 + 16u], BN);
            acc00 = coopMultiplyAdd(a0, b0, acc00);
            acc01 = coopMultiplyAdd(a0, b1, acc01);
            acc10 = coopMultiplyAdd(a1, b0, acc10);
            acc11 = coopMultiplyAdd(a1, b1, acc11);
        }
        // The next slice overwrites the staged one.
        workgroupBarrier();
    }
    coopStoreT(acc00, &tile_c[r0 * BN + c0], BN);
    coopStoreT(acc01, &tile_c[r0 * BN + c0 + 16u], BN);
    coopStoreT(acc10, &tile_c[(r0 + 16u) * BN + c0], BN);
    coopStoreT(acc11, &tile_c[(r0 + 16u) * BN + c0 + 16u], BN);
    workgroupBarrier();
    if (past_end) {
        return;
    }
    for (var q = li; q < BM * BN / 4u; q += THREADS) {
        let i = q / (BN / 4u);
        let j = q % (BN / 4u) * 4u;
        let o = i * BN + j;
        let v = vec4(tile_c[o], tile_c[o + 1u], tile_c[o + 2u], tile_c[o + 3u]);
        store_quad(at.split, at.bat, at.row0 + i, at.col0 + j, v);
    }
}
