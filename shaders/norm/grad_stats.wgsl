// Backward reduction: one workgroup per channel. dbeta = sum g, dgamma = sum g x^ with
// x^ = (x - mean) / sqrt(var + eps), g first masked by a fused ReLU's output y. Both go into
// one buffer (dgamma at 0, dbeta at dbeta_at), so the input-gradient pass binds them once.

@group(0) @binding(1) var<storage, read_write> dstats: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> g: array<f32>;
@group(0) @binding(4) var<storage, read> y: array<f32>;
@group(0) @binding(5) var<storage, read> mean: array<f32>;
@group(0) @binding(6) var<storage, read> variance: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let ch = flat_group(wid, nwg);
    if (ch >= p.c) {
        return;
    }
    let m = mean[ch];
    let r = inv_std(variance[ch]);
    var sg = 0.0;
    var sgx = 0.0;
    for (var i = lid; i < p.n * p.plane; i += WG) {
        let k = at(ch, i);
        let gk = through_relu(g[k], y[k]);
        sg += gk;
        sgx += gk * (x[k] - m) * r;
    }
    let total_g = workgroup_sum(lid, sg);
    let total_gx = workgroup_sum(lid, sgx);
    if (lid == 0u) {
        dstats[ch] = total_gx;
        dstats[p.dbeta_at + ch] = total_g;
    }
}
