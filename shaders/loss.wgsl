// The training losses with their gradients, each in one pass (src/backend/gpu/loss.rs).

struct Params {
    // softmax_xent: rows and columns of the logits; squared_error: rows is the length.
    rows: u32,
    cols: u32,
    scale: f32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> loss: array<f32>;
@group(0) @binding(2) var<storage, read_write> grad: array<f32>;
@group(0) @binding(3) var<storage, read> a: array<f32>;
@group(0) @binding(4) var<storage, read> t: array<f32>;

// One workgroup per row of logits `a` and soft targets `t`: loss = -scale sum t log softmax(a),
// grad = scale (softmax(a) sum t - t). The row maximum is subtracted before exp.
@compute @workgroup_size(WG)
fn softmax_xent(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let row = flat_group(wid, nwg);
    // Uniform across the workgroup: the whole group returns or none of it.
    if (row >= p.rows) {
        return;
    }
    let base = row * p.cols;
    var m = a[base];
    for (var j = lid; j < p.cols; j += WG) {
        m = max(m, a[base + j]);
    }
    let row_max = workgroup_max(lid, m);
    var s = 0.0;
    var mass = 0.0;
    var tz = 0.0;
    for (var j = lid; j < p.cols; j += WG) {
        let z = a[base + j] - row_max;
        s += exp(z);
        mass += t[base + j];
        tz += t[base + j] * z;
    }
    let total = workgroup_sum(lid, s);
    let row_mass = workgroup_sum(lid, mass);
    let row_tz = workgroup_sum(lid, tz);
    if (lid == 0u) {
        // sum t (z - log total) = sum t z - mass log total
        loss[row] = -p.scale * (row_tz - row_mass * log(total));
    }
    let k = p.scale * row_mass / total;
    for (var j = lid; j < p.cols; j += WG) {
        grad[base + j] = k * exp(a[base + j] - row_max) - p.scale * t[base + j];
    }
}

// One invocation per element: loss = scale (a - t)^2, grad = 2 scale (a - t).
@compute @workgroup_size(WG)
fn squared_error(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p.rows) {
        return;
    }
    let d = a[i] - t[i];
    loss[i] = p.scale * d * d;
    grad[i] = 2.0 * p.scale * d;
}
