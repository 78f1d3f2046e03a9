// Forward elementwise pass: y = (x - mean) gamma / sqrt(var + eps) + beta, then max(y, 0)
// with a fused ReLU.

@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> mean: array<f32>;
@group(0) @binding(4) var<storage, read> variance: array<f32>;
@group(0) @binding(5) var<storage, read> gamma: array<f32>;
@group(0) @binding(6) var<storage, read> beta: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p.len) {
        return;
    }
    let ch = channel_of(i);
    let v = (x[i] - mean[ch]) * (gamma[ch] * inv_std(variance[ch])) + beta[ch];
    if (p.relu != 0u) {
        y[i] = max(v, 0.0);
    } else {
        y[i] = v;
    }
}
