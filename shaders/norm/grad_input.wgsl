// Backward elementwise pass: dx = gamma / sqrt(var + eps) (g - dbeta / m - x^ dgamma / m),
// m = n plane values per channel, g masked by a fused ReLU's output y.

@group(0) @binding(1) var<storage, read_write> dx: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> g: array<f32>;
@group(0) @binding(4) var<storage, read> y: array<f32>;
@group(0) @binding(5) var<storage, read> mean: array<f32>;
@group(0) @binding(6) var<storage, read> variance: array<f32>;
@group(0) @binding(7) var<storage, read> gamma: array<f32>;
@group(0) @binding(8) var<storage, read> dstats: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p.len) {
        return;
    }
    let ch = channel_of(i);
    let r = inv_std(variance[ch]);
    let per = 1.0 / f32(p.n * p.plane);
    let xhat = (x[i] - mean[ch]) * r;
    let dgamma = dstats[ch];
    let dbeta = dstats[p.dbeta_at + ch];
    dx[i] = gamma[ch] * r * (through_relu(g[i], y[i]) - dbeta * per - xhat * dgamma * per);
}
