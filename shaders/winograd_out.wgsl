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

// Column b of M through A^T: (A^T M)[r][b] for the four rows r, M[(a, b)] of the column at
// `at` being `step` apart for each a.
fn column(at: u32, step: u32, b: u32) -> vec4<f32> {
    return at6(products[at + b * step], products[at + (6u + b) * step],
               products[at + (12u + b) * step], products[at + (18u + b) * step],
               products[at + (24u + b) * step], products[at + (30u + b) * step]);
}

// The output cell at `o`, column x of its plane, through the epilogue unless past the plane's
// edge, counted into `stats` (count, mean and M2, Welford's).
fn store_cell(ch: u32, o: u32, x: u32, y: f32, stats: ptr<function, vec3<f32>>) {
    if (x >= W) {
        return;
    }
    let v = epilogue(y, ch, o);
    out[o] = v;
    if (MOMENTS) {
        let count = (*stats).x + 1.0;
        let d = v - (*stats).y;
        let mean = (*stats).y + d / count;
        *stats = vec3(count, mean, (*stats).z + d * (v - mean));
    }
}

// A row of the output tile, cells (y, x0 .. x0 + 3) of the plane at `plane`; a row or cell past
// the plane's edge is dropped.
fn store_row(ch: u32, plane: u32, y: u32, x0: u32, row: vec4<f32>,
             stats: ptr<function, vec3<f32>>) {
    if (y >= H) {
        return;
    }
    let o = plane + y * W + x0;
    store_cell(ch, o, x0, row.x, stats);
    store_cell(ch, o + 1u, x0 + 1u, row.y, stats);
    store_cell(ch, o + 2u, x0 + 2u, row.z, stats);
    store_cell(ch, o + 3u, x0 + 3u, row.w, stats);
}

// Written out with constant indices, without loops: a driver that does not unroll a loop keeps
// the arrays it indexes in local memory.
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
    var stats = vec3(0.0);
    if (j < p.columns) {
        // A^T M: t_b = its column b, (A^T M)[r][b] for the four output rows r.
        let at = ch * p.columns + j;
        let step = C * p.columns;
        let t0 = column(at, step, 0u);
        let t1 = column(at, step, 1u);
        let t2 = column(at, step, 2u);
        let t3 = column(at, step, 3u);
        let t4 = column(at, step, 4u);
        let t5 = column(at, step, 5u);
        let tile = j % TILES;
        let plane = (j / TILES * C + ch) * PLANE;
        let y0 = tile / TX * 4u;
        let x0 = tile % TX * 4u;
        // (A^T M A)[r] = A^T applied to row r of A^T M.
        store_row(ch, plane, y0, x0, at6(t0.x, t1.x, t2.x, t3.x, t4.x, t5.x), &stats);
        store_row(ch, plane, y0 + 1u, x0, at6(t0.y, t1.y, t2.y, t3.y, t4.y, t5.y), &stats);
        store_row(ch, plane, y0 + 2u, x0, at6(t0.z, t1.z, t2.z, t3.z, t4.z, t5.z), &stats);
        store_row(ch, plane, y0 + 3u, x0, at6(t0.w, t1.w, t2.w, t3.w, t4.w, t5.w), &stats);
    }
    if (MOMENTS) {
        part_n[lid] = stats.x;
        part_mean[lid] = stats.y;
        part_m2[lid] = stats.z;
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
