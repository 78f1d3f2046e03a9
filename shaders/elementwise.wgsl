// Elementwise kernels: fill, unary ops, and binary ops with broadcasting.
// Op codes are those of src/backend/gpu/elementwise.rs.

struct Params {
    // Output shape right-aligned to rank 4 (leading 1s).
    shape: vec4<u32>,
    // Element strides of each input per output axis; 0 along broadcast axes.
    a_strides: vec4<u32>,
    b_strides: vec4<u32>,
    len: u32,
    op: u32,
    scalar: f32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;

fn nan() -> f32 {
    // A runtime value, so the constant evaluator does not reject it.
    var bits = 0x7fc00000u;
    return bitcast<f32>(bits);
}

// x^y with the C meaning for negative bases (WGSL's pow is undefined there): the sign of an
// odd integer power, NaN for a fractional one.
fn powf(x: f32, y: f32) -> f32 {
    if (y == 0.0) {
        return 1.0;
    }
    if (x == 0.0) {
        return select(1.0 / x, 0.0, y > 0.0);
    }
    let m = pow(abs(x), y);
    if (x > 0.0) {
        return m;
    }
    if (floor(y) != y) {
        return nan();
    }
    // Every float of magnitude 2^24 or more is an even integer.
    let odd = abs(y) < 16777216.0 && (i32(y) & 1) != 0;
    return select(m, -m, odd);
}

fn unary_op(x: f32) -> f32 {
    switch p.op {
        case 0u: { return -x; }
        case 1u: { return exp(x); }
        case 2u: { return log(x); }
        case 3u: { return max(x, 0.0); }
        // Clamped: some drivers compute tanh as a ratio of exponentials that overflows.
        case 4u: { return tanh(clamp(x, -15.0, 15.0)); }
        case 5u: { return 1.0 / (1.0 + exp(-x)); }
        case 6u: { return x + p.scalar; }
        case 7u: { return x * p.scalar; }
        default: { return powf(x, p.scalar); }
    }
}

fn binary_op(x: f32, y: f32) -> f32 {
    switch p.op {
        case 0u: { return x + y; }
        case 1u: { return x - y; }
        case 2u: { return x * y; }
        case 3u: { return x / y; }
        case 4u: { return powf(x, y); }
        // The backward of relu: the gradient y where the input x was positive.
        default: { return select(0.0, y, x > 0.0); }
    }
}

@compute @workgroup_size(WG)
fn fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i < p.len) {
        out[i] = p.scalar;
    }
}

@compute @workgroup_size(WG)
fn unary(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i < p.len) {
        out[i] = unary_op(a[i]);
    }
}

@compute @workgroup_size(WG)
fn binary(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p.len) {
        return;
    }
    var rest = i;
    var ia = 0u;
    var ib = 0u;
    for (var k = 0u; k < 4u; k++) {
        let axis = 3u - k;
        let c = rest % p.shape[axis];
        rest = rest / p.shape[axis];
        ia += c * p.a_strides[axis];
        ib += c * p.b_strides[axis];
    }
    out[i] = binary_op(a[ia], b[ib]);
}
