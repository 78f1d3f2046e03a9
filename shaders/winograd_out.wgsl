// The output transform of Winograd F(4x4, 3x3) (winograd.wgsl): Y = A^T M A turns a column's
// 36 products into its 4x4 output tile, stored in NCHW through the forward's epilogue
// (epilogue.wgsl: bias, residual, ReLU), cells past the plane's edge dropped. An invocation
// per (channel, column); a workgroup holds OUT_WG columns of one channel. With MOMENTS it also
// writes, like conv_moments.wgsl, each workgroup's count, mean and sum of squared deviations
// (M2) of the values it stored, at (part C + channel) 3 with part = the workgroup's column
// block, for a training batch norm (norm/moments.wgsl): Welford within an invocation, Chan's
// formula across the workgroup.

const C: u32 = {{C}}u;
const OUT_WG: u32 = {{OUT_WG}}u;
const MOMENTS: bool = {{MOMENTS}};

struct Params {
    // (image, tile) columns, and workgroups per channel (OUT_WG columns each)
    columns: u32,
    parts: u32,
    has_bias: u32,
    has_residual: u32,
    relu: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
// M, (36, C, columns).
@group(0) @binding(2) var<storage, read> products: array<f32>;
// The bias and the residual (shaped like the output) when their flags are set; else any buffer.
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read> residual: array<f32>;
{{MOMENTS_BINDING}}

var<workgroup> part_n: array<f32, OUT_WG>;
var<workgroup> part_mean: array<f32, OUT_WG>;
var<workgroup> part_m2: array<f32, OUT_WG>;

// A^T (4 x 6) times a 6-vector.
fn at6(m0: f32, m1: f32, m2: f32, m3: f32, m4: f32, m5: f32) -> vec4<f32> {
    return vec4(
        m0 + m1 + m2 + m3 + m4,
        m1 - m2 + 2.0 * (m3 - m4),
        m1 + m2 + 4.0 * (m3 + m4),
        m1 - m2 + 8.0 * (m3 - m4) + m5,
    );
}

// Chan's formula: the moments of slot `a` and slot `b` together, into `a`.
fn merge(a: u32, b: u32) {
    let n = part_n[a] + part_n[b];
    if (part_n[b] > 0.0) {
        let delta = part_mean[b] - part_mean[a];
        part_mean[a] += delta * part_n[b] / n;
        part_m2[a] += part_m2[b] + delta * delta * part_n[a] * part_n[b] / n;
        part_n[a] = n;
    }
}

@compute @workgroup_size(OUT_WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = flat_group(wid, nwg);
    if (g >= p.parts * C) {
        return;
    }
    let ch = g / p.parts;
    let part = g % p.parts;
    let j = part * OUT_WG + lid;
    var count = 0.0;
    var mean = 0.0;
    var m2 = 0.0;
    if (j < p.columns) {
        // A^T M: t[r][b] for the four output rows r and the six columns b of M.
        var t: array<vec4<f32>, 6>;
        for (var b = 0u; b < 6u; b++) {
            let at = (b * C + ch) * p.columns + j;
            let step = 6u * C * p.columns;
            t[b] = at6(products[at], products[at + step], products[at + 2u * step],
                       products[at + 3u * step], products[at + 4u * step],
                       products[at + 5u * step]);
        }
        let img = j / TILES;
        let tile = j % TILES;
        let y0 = tile / TX * 4u;
        let x0 = tile % TX * 4u;
        for (var r = 0u; r < 4u; r++) {
            // (A^T M A)[r][c] = A^T applied to row r of A^T M.
            let row = at6(t[0][r], t[1][r], t[2][r], t[3][r], t[4][r], t[5][r]);
            let y = y0 + r;
            for (var c = 0u; c < 4u; c++) {
                let x = x0 + c;
                if (y < H && x < W) {
                    let o = ((img * C + ch) * H + y) * W + x;
                    let v = epilogue(row[c], ch, o);
                    out[o] = v;
                    if (MOMENTS) {
                        count += 1.0;
                        let d = v - mean;
                        mean += d / count;
                        m2 += d * (v - mean);
                    }
                }
            }
        }
    }
    if (MOMENTS) {
        part_n[lid] = count;
        part_mean[lid] = mean;
        part_m2[lid] = m2;
        workgroupBarrier();
        for (var half = OUT_WG / 2u; half > 0u; half /= 2u) {
            if (lid < half) {
                merge(lid, lid + half);
            }
            workgroupBarrier();
        }
        if (lid == 0u) {
            let at = (part * C + ch) * 3u;
            moments[at] = part_n[0];
            moments[at + 1u] = part_mean[0];
            moments[at + 2u] = part_m2[0];
        }
    }
}
