// The transforms of Winograd F(4x4, 3x3) made ahead of its products, for inference
// (winograd.wgsl's MODE 2 reads them): `filters` writes U = G f G^T, (36, C_M, C_K), an
// invocation per filter; `inputs` writes V = B^T d B, (36, C_K, columns), an invocation per
// (channel, column), columns running over (image, tile). Stored once, each is then read by
// the products as plain rows, where making it in the products' loads repeats it for every
// tile of the other operand (on a software adapter, whose loads are gathers, that dominated).

const C_K: u32 = {{C_K}}u;
const C_M: u32 = {{C_M}}u;

struct Params {
    // invocations with work: filters, or (channel, column) pairs
    count: u32,
    // (image, tile) columns of `inputs`
    columns: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
// The filters (C_M, C_K, 3, 3), or the images (n, C_K, H, W).
@group(0) @binding(2) var<storage, read> src: array<f32>;

// B^T (6 x 6) times a 6-vector.
fn bt6(d: array<f32, 6>) -> array<f32, 6> {
    return array<f32, 6>(
        4.0 * d[0] - 5.0 * d[2] + d[4],
        -4.0 * d[1] - 4.0 * d[2] + d[3] + d[4],
        4.0 * d[1] - 4.0 * d[2] - d[3] + d[4],
        -2.0 * d[1] - d[2] + 2.0 * d[3] + d[4],
        2.0 * d[1] - d[2] - 2.0 * d[3] + d[4],
        4.0 * d[1] - 5.0 * d[3] + d[5],
    );
}

// G (6 x 3) times a 3-vector.
fn g3(f: vec3<f32>) -> array<f32, 6> {
    return array<f32, 6>(
        0.25 * f.x,
        -(f.x + f.y + f.z) / 6.0,
        -(f.x - f.y + f.z) / 6.0,
        f.x / 24.0 + f.y / 12.0 + f.z / 6.0,
        f.x / 24.0 - f.y / 12.0 + f.z / 6.0,
        f.z,
    );
}

// Column b of a transform, v[a] for the six rows a, to points (a, b): point a * 6 + b of
// the entry at `at`, the points `step` apart.
fn store_column(at: u32, step: u32, b: u32, v: array<f32, 6>) {
    out[at + b * step] = v[0];
    out[at + (6u + b) * step] = v[1];
    out[at + (12u + b) * step] = v[2];
    out[at + (18u + b) * step] = v[3];
    out[at + (24u + b) * step] = v[4];
    out[at + (30u + b) * step] = v[5];
}

// Row r of filter f through G: (f G^T)[r].
fn filter_row(f: u32, r: u32) -> array<f32, 6> {
    let at = f * 9u + r * 3u;
    return g3(vec3(src[at], src[at + 1u], src[at + 2u]));
}

// The transforms are written out cell by cell with constant indices, without loops: a
// driver that does not unroll a loop keeps the arrays it indexes in local memory.
@compute @workgroup_size(WG)
fn filters(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let f = flat_index(wid, nwg, lid);
    if (f >= p.count) {
        return;
    }
    // G f G^T: each row of f through G, then each column of the result.
    let h0 = filter_row(f, 0u);
    let h1 = filter_row(f, 1u);
    let h2 = filter_row(f, 2u);
    let step = C_M * C_K;
    store_column(f, step, 0u, g3(vec3(h0[0], h1[0], h2[0])));
    store_column(f, step, 1u, g3(vec3(h0[1], h1[1], h2[1])));
    store_column(f, step, 2u, g3(vec3(h0[2], h1[2], h2[2])));
    store_column(f, step, 3u, g3(vec3(h0[3], h1[3], h2[3])));
    store_column(f, step, 4u, g3(vec3(h0[4], h1[4], h2[4])));
    store_column(f, step, 5u, g3(vec3(h0[5], h1[5], h2[5])));
}

// The input cell (y, x) of plane `base`, or 0 in the padding.
fn cell(base: u32, y: i32, x: i32) -> f32 {
    if (y < 0 || y >= i32(H) || x < 0 || x >= i32(W)) {
        return 0.0;
    }
    return src[base + u32(y) * W + u32(x)];
}

// Row y of the input tile whose first column is x0, through B^T: (d B)[y - y0].
fn input_row(base: u32, y: i32, x0: i32) -> array<f32, 6> {
    return bt6(array<f32, 6>(cell(base, y, x0), cell(base, y, x0 + 1), cell(base, y, x0 + 2),
                             cell(base, y, x0 + 3), cell(base, y, x0 + 4),
                             cell(base, y, x0 + 5)));
}

@compute @workgroup_size(WG)
fn inputs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let at = flat_index(wid, nwg, lid);
    if (at >= p.count) {
        return;
    }
    let ch = at / p.columns;
    let j = at % p.columns;
    let tile = j % TILES;
    let base = (j / TILES * C_K + ch) * PLANE;
    let y0 = i32(tile / TX * 4u) - 1;
    let x0 = i32(tile % TX * 4u) - 1;
    // B^T d B: each row of the 6x6 tile d through B^T, then each column of the result.
    let e0 = input_row(base, y0, x0);
    let e1 = input_row(base, y0 + 1, x0);
    let e2 = input_row(base, y0 + 2, x0);
    let e3 = input_row(base, y0 + 3, x0);
    let e4 = input_row(base, y0 + 4, x0);
    let e5 = input_row(base, y0 + 5, x0);
    // V[(a, b)][ch][j], the points C_K columns apart; `at` is ch * columns + j.
    let step = C_K * p.columns;
    store_column(at, step, 0u, bt6(array<f32, 6>(e0[0], e1[0], e2[0], e3[0], e4[0], e5[0])));
    store_column(at, step, 1u, bt6(array<f32, 6>(e0[1], e1[1], e2[1], e3[1], e4[1], e5[1])));
    store_column(at, step, 2u, bt6(array<f32, 6>(e0[2], e1[2], e2[2], e3[2], e4[2], e5[2])));
    store_column(at, step, 3u, bt6(array<f32, 6>(e0[3], e1[3], e2[3], e3[3], e4[3], e5[3])));
    store_column(at, step, 4u, bt6(array<f32, 6>(e0[4], e1[4], e2[4], e3[4], e4[4], e5[4])));
    store_column(at, step, 5u, bt6(array<f32, 6>(e0[5], e1[5], e2[5], e3[5], e4[5], e5[5])));
}
