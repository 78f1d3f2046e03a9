// Optimizer steps, elementwise over a parameter (see OptimStep in src/backend/mod.rs).
// Bindings: the outputs SGD writes come first, so it binds a prefix of Adam's set.

struct Params {
    len: u32,
    lr: f32,
    // SGD: momentum; Adam: beta1 and beta2
    beta1: f32,
    beta2: f32,
    eps: f32,
    weight_decay: f32,
    // Adam's bias corrections 1 - beta^t, computed on the host like the CPU reference
    c1: f32,
    c2: f32,
    // what each gradient is multiplied by: a loss scale's inverse, else 1
    unscale: f32,
    // 1 where g holds at check_at the sum of the (scaled) gradients, and the step is taken
    // only where it is finite
    checked: u32,
    check_at: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> w_out: array<f32>;
@group(0) @binding(2) var<storage, read_write> s1_out: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> g: array<f32>;
@group(0) @binding(5) var<storage, read> s1: array<f32>;
@group(0) @binding(6) var<storage, read_write> s2_out: array<f32>;
@group(0) @binding(7) var<storage, read> s2: array<f32>;

// Whether the step is taken: unchecked, always; checked, where the gradients' sum is finite
// (an infinity's or a NaN's bits have every exponent bit set; a comparison could be folded
// away by a compiler that assumes finite values).
fn taken() -> bool {
    return p.checked == 0u || (bitcast<u32>(g[p.check_at]) & 0x7f800000u) != 0x7f800000u;
}

@compute @workgroup_size(WG)
fn sgd(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p.len) {
        return;
    }
    if (!taken()) {
        s1_out[i] = s1[i];
        w_out[i] = w[i];
        return;
    }
    let v = p.beta1 * s1[i] + g[i] * p.unscale + p.weight_decay * w[i];
    s1_out[i] = v;
    w_out[i] = w[i] - p.lr * v;
}

@compute @workgroup_size(WG)
fn adam(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p.len) {
        return;
    }
    if (!taken()) {
        s1_out[i] = s1[i];
        s2_out[i] = s2[i];
        w_out[i] = w[i];
        return;
    }
    let gi = g[i] * p.unscale + p.weight_decay * w[i];
    let m = p.beta1 * s1[i] + (1.0 - p.beta1) * gi;
    let v = p.beta2 * s2[i] + (1.0 - p.beta2) * gi * gi;
    s1_out[i] = m;
    s2_out[i] = v;
    w_out[i] = w[i] - p.lr * (m / p.c1) / (sqrt(v / p.c2) + p.eps);
}
