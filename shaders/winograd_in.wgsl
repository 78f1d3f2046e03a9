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

@compute @workgroup_size(WG)
fn filters(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let f = flat_index(wid, nwg, lid);
    if (f >= p.count) {
        return;
    }
    // G f: each column of f through G, then each row of the result through G.
    var gf: array<array<f32, 6>, 3>;
    for (var s = 0u; s < 3u; s++) {
        gf[s] = g3(vec3(src[f * 9u + s], src[f * 9u + 3u + s], src[f * 9u + 6u + s]));
    }
    for (var a = 0u; a < 6u; a++) {
        let row = g3(vec3(gf[0][a], gf[1][a], gf[2][a]));
        for (var b = 0u; b < 6u; b++) {
            out[(a * 6u + b) * C_M * C_K + f] = row[b];
        }
    }
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
    // B^T d: each column of the 6x6 tile d through B^T (cells off the plane are 0).
    var bd: array<array<f32, 6>, 6>;
    for (var c = 0u; c < 6u; c++) {
        var col: array<f32, 6>;
        let x = x0 + i32(c);
        for (var r = 0u; r < 6u; r++) {
            let y = y0 + i32(r);
            if (y >= 0 && y < i32(H) && x >= 0 && x < i32(W)) {
                col[r] = src[base + u32(y) * W + u32(x)];
            } else {
                col[r] = 0.0;
            }
        }
        bd[c] = bt6(col);
    }
    // (B^T d) B: each row through B^T.
    for (var a = 0u; a < 6u; a++) {
        let row = bt6(array<f32, 6>(bd[0][a], bd[1][a], bd[2][a], bd[3][a], bd[4][a], bd[5][a]));
        for (var b = 0u; b < 6u; b++) {
            out[((a * 6u + b) * C_K + ch) * p.columns + j] = row[b];
        }
    }
}
