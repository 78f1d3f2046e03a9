// Forward reduction: one workgroup per channel. The mean first, then the variance as the mean
// square deviation from it (two passes over the channel: no cancellation), then the running
// averages moved towards both.

@group(0) @binding(1) var<storage, read_write> mean: array<f32>;
@group(0) @binding(2) var<storage, read_write> variance: array<f32>;
@group(0) @binding(3) var<storage, read_write> run_mean_out: array<f32>;
@group(0) @binding(4) var<storage, read_write> run_var_out: array<f32>;
@group(0) @binding(5) var<storage, read> x: array<f32>;
@group(0) @binding(6) var<storage, read> run_mean: array<f32>;
@group(0) @binding(7) var<storage, read> run_var: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let ch = flat_group(wid, nwg);
    if (ch >= p.c) {
        return;
    }
    let count = p.n * p.plane;
    var s = 0.0;
    for (var i = lid; i < count; i += WG) {
        s += x[at(ch, i)];
    }
    let m = workgroup_sum(lid, s) / f32(count);
    var q = 0.0;
    for (var i = lid; i < count; i += WG) {
        let d = x[at(ch, i)] - m;
        q += d * d;
    }
    let v = workgroup_sum(lid, q) / f32(count);
    if (lid == 0u) {
        mean[ch] = m;
        variance[ch] = v;
        run_mean_out[ch] = (1.0 - p.momentum) * run_mean[ch] + p.momentum * m;
        run_var_out[ch] = (1.0 - p.momentum) * run_var[ch] + p.momentum * p.unbias * v;
    }
}
