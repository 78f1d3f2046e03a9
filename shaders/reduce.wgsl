// Reductions. The sums read x as (outer, n, inner) and sum the middle axis in chunks of
// `chunk` elements: out is (outer, chunks, inner), summed again by the host when chunks > 1,
// so long sums are spread over many workgroups.

struct Params {
    outer: u32,
    n: u32,
    inner: u32,
    chunk: u32,
    chunks: u32,
    // softmax: 1 for log-softmax
    log: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;

// inner == 1: one workgroup per (row, chunk); its invocations stride along the row.
@compute @workgroup_size(WG)
fn sum_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let g = flat_group(wid, nwg);
    if (g >= p.outer * p.chunks) {
        return;
    }
    let row = g / p.chunks;
    let start = (g % p.chunks) * p.chunk;
    let end = min(p.n, start + p.chunk);
    var s = 0.0;
    for (var j = start + lid; j < end; j += WG) {
        s += x[row * p.n + j];
    }
    let total = workgroup_sum(lid, s);
    if (lid == 0u) {
        out[g] = total;
    }
}

// inner > 1: one invocation per output; neighbours read neighbouring columns.
@compute @workgroup_size(WG)
fn sum_cols(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let t = flat_index(wid, nwg, lid);
    if (t >= p.outer * p.chunks * p.inner) {
        return;
    }
    let i = t % p.inner;
    let oc = t / p.inner;
    let o = oc / p.chunks;
    let start = (oc % p.chunks) * p.chunk;
    let end = min(p.n, start + p.chunk);
    var s = 0.0;
    for (var j = start; j < end; j++) {
        s += x[(o * p.n + j) * p.inner + i];
    }
    out[t] = s;
}

// Softmax of each row of (outer, n): one workgroup per row; the row maximum is subtracted.
@compute @workgroup_size(WG)
fn softmax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let row = flat_group(wid, nwg);
    if (row >= p.outer) {
        return;
    }
    let base = row * p.n;
    var m = x[base];
    for (var j = lid; j < p.n; j += WG) {
        m = max(m, x[base + j]);
    }
    let row_max = workgroup_max(lid, m);
    var s = 0.0;
    for (var j = lid; j < p.n; j += WG) {
        s += exp(x[base + j] - row_max);
    }
    let total = workgroup_sum(lid, s);
    if (p.log != 0u) {
        let log_total = log(total);
        for (var j = lid; j < p.n; j += WG) {
            out[base + j] = x[base + j] - row_max - log_total;
        }
    } else {
        let inv = 1.0 / total;
        for (var j = lid; j < p.n; j += WG) {
            out[base + j] = exp(x[base + j] - row_max) * inv;
        }
    }
}
