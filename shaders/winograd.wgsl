// Winograd F(4x4, 3x3) for stride-1, padding-1 3x3 convolutions (Lavin and Gray's scheme):
// each plane is cut into 4x4 output tiles, each read through the 6x6 input tile around it,
// and the convolution becomes 36 products, one per point xi = (a, b) of the 6x6 transform:
//   M[xi] (C_M x tiles) = U[xi] (C_M x C_K) V[xi] (C_K x tiles)
// with U = G f G^T the transformed filters and V = B^T d B the transformed input tiles. The
// output transform A^T M A, with the forward's epilogue, is winograd_out.wgsl. In MODEs 0
// and 1 both transforms are made as the tiled core (gemm.wgsl) loads its slices: no U or V
// is stored, so a layer costs the product and the output transform, two dispatches. A
// filter value is used by every column of a tile and an input value by every row, so the
// transforms' loads (9 and 16 a value) are spread over 64 to 128 multiply-adds each.
//
//   MODE 0, forward:        C_K = c_in, C_M = c_out, f = w[c_out][c_in]
//   MODE 1, input gradient: C_K = c_out, C_M = c_in, f = w[c_out][c_in] turned half a turn
//                           (the gradient of a padding-1 3x3 convolution is one with the
//                           flipped kernel and the channel axes swapped)
//   MODE 2, forward of transforms made ahead (winograd_in.wgsl): lhs holds U (36, C_M, C_K)
//                           and rhs V (36, C_K, columns), read as they are
// Columns run over (image, tile), tiles row-major within the image; the batch index of the
// product is the point xi = 6 a + b. Everything but the batch size is a constant.

const MODE: u32 = {{MODE}}u;
const C_K: u32 = {{C_K}}u;
const C_M: u32 = {{C_M}}u;

struct Params {
    gemm: GemmHeader,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
// The 3x3 filters, (c_out, c_in, 3, 3) in either mode.
@group(0) @binding(2) var<storage, read> lhs: array<f32>;
// The images (the input, or the output gradient), (n, C_K, H, W).
@group(0) @binding(3) var<storage, read> rhs: array<f32>;

// Row a of G (6 x 3).
fn g_row(a: u32) -> vec3<f32> {
    switch a {
        case 0u: { return vec3(0.25, 0.0, 0.0); }
        case 1u: { return vec3(-1.0, -1.0, -1.0) / 6.0; }
        case 2u: { return vec3(-1.0, 1.0, -1.0) / 6.0; }
        case 3u: { return vec3(1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0); }
        case 4u: { return vec3(1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0); }
        default: { return vec3(0.0, 0.0, 1.0); }
    }
}

// Row a of B^T (6 x 6), which has at most four non-zero entries: their columns and values
// (an unused fourth has the value 0).
fn bt_columns(a: u32) -> vec4<u32> {
    switch a {
        case 0u: { return vec4(0u, 2u, 4u, 0u); }
        case 5u: { return vec4(1u, 3u, 5u, 1u); }
        default: { return vec4(1u, 2u, 3u, 4u); }
    }
}

fn bt_values(a: u32) -> vec4<f32> {
    switch a {
        case 0u: { return vec4(4.0, -5.0, 1.0, 0.0); }
        case 1u: { return vec4(-4.0, -4.0, 1.0, 1.0); }
        case 2u: { return vec4(4.0, -4.0, -1.0, 1.0); }
        case 3u: { return vec4(-2.0, -1.0, 2.0, 1.0); }
        case 4u: { return vec4(2.0, -1.0, -2.0, 1.0); }
        default: { return vec4(4.0, -5.0, 1.0, 0.0); }
    }
}

// Tap t (row-major) of the filter from product channel kk to output channel i.
fn tap(i: u32, kk: u32, t: u32) -> f32 {
    if (MODE == 0u) {
        return lhs[(i * C_K + kk) * 9u + t];
    }
    return lhs[(kk * C_M + i) * 9u + 8u - t];
}

// U[xi][i][kk] = (G f G^T)[a][b].
fn load_a(bat: u32, i: u32, kk: u32) -> f32 {
    if (MODE == 2u) {
        return lhs[(bat * C_M + i) * C_K + kk];
    }
    let ga = g_row(bat / 6u);
    let gb = g_row(bat % 6u);
    var u = 0.0;
    for (var r = 0u; r < 3u; r++) {
        let row = vec3(tap(i, kk, r * 3u), tap(i, kk, r * 3u + 1u), tap(i, kk, r * 3u + 2u));
        u += ga[r] * dot(row, gb);
    }
    return u;
}

// The input cell (y, x) of plane `base`, or 0 in the padding.
fn cell(base: u32, y: i32, x: i32) -> f32 {
    if (y < 0 || y >= i32(H) || x < 0 || x >= i32(W)) {
        return 0.0;
    }
    return rhs[base + u32(y) * W + u32(x)];
}

// V[xi][kk][j] = (B^T d B)[a][b] for the 6x6 input tile d of column j.
fn load_b(bat: u32, kk: u32, j: u32) -> f32 {
    if (MODE == 2u) {
        return rhs[(bat * C_K + kk) * p.gemm.n + j];
    }
    let ca = bt_columns(bat / 6u);
    let va = bt_values(bat / 6u);
    let cb = bt_columns(bat % 6u);
    let vb = bt_values(bat % 6u);
    let tile = j % TILES;
    let base = (j / TILES * C_K + kk) * PLANE;
    let y0 = i32(tile / TX * 4u) - 1;
    let x0 = i32(tile % TX * 4u) - 1;
    var v = 0.0;
    for (var r = 0u; r < 4u; r++) {
        let y = y0 + i32(ca[r]);
        var row = 0.0;
        for (var c = 0u; c < 4u; c++) {
            row += vb[c] * cell(base, y, x0 + i32(cb[c]));
        }
        v += va[r] * row;
    }
    return v;
}

fn a_k_fastest() -> bool {
    return true;
}

fn b_n_fastest() -> bool {
    return true;
}

// Operands made in the loads come value by value; made ahead, they come in quads along
// their rows where the rows are whole quads.
fn a_vec4() -> bool {
    return MODE == 2u && C_K % 4u == 0u;
}

fn b_vec4() -> bool {
    return MODE == 2u && p.gemm.n % 4u == 0u;
}

fn load_a4(bat: u32, i: u32, kk: u32) -> vec4<f32> {
    return vec4(load_a(bat, i, kk), load_a(bat, i, kk + 1u), load_a(bat, i, kk + 2u),
                load_a(bat, i, kk + 3u));
}

fn load_b4(bat: u32, kk: u32, j: u32) -> vec4<f32> {
    return vec4(load_b(bat, kk, j), load_b(bat, kk, j + 1u), load_b(bat, kk, j + 2u),
                load_b(bat, kk, j + 3u));
}

// M, (36, C_M, columns): the output transform reads a column's 36 values.
fn store_c(split: u32, bat: u32, i: u32, j: u32, v: f32) {
    out[(bat * C_M + i) * p.gemm.n + j] = v;
}
