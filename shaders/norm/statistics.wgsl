// What both forward reductions write, one workgroup per channel: the batch mean and biased
// variance, and the running averages moved towards both. Binding 5 is their source: x
// (stats.wgsl) or a convolution's moments (moments.wgsl).

@group(0) @binding(1) var<storage, read_write> mean: array<f32>;
@group(0) @binding(2) var<storage, read_write> variance: array<f32>;
@group(0) @binding(3) var<storage, read_write> run_mean_out: array<f32>;
@group(0) @binding(4) var<storage, read_write> run_var_out: array<f32>;
@group(0) @binding(6) var<storage, read> run_mean: array<f32>;
@group(0) @binding(7) var<storage, read> run_var: array<f32>;

fn store_statistics(ch: u32, m: f32, v: f32) {
    mean[ch] = m;
    variance[ch] = v;
    run_mean_out[ch] = (1.0 - p.momentum) * run_mean[ch] + p.momentum * m;
    run_var_out[ch] = (1.0 - p.momentum) * run_var[ch] + p.momentum * p.unbias * v;
}
