// A forward convolution split over k (small batches: too few output tiles to fill the
// device): its `splits` partial products, each (n, c_out, plane) in `parts` one after
// another, summed and passed through the forward's epilogue (epilogue.wgsl), an invocation
// per output.

struct Params {
    len: u32,
    splits: u32,
    channels: u32,
    plane: u32,
    has_bias: u32,
    has_residual: u32,
    relu: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> parts: array<f32>;
// The bias and the residual when their flags are set; otherwise any buffer.
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read> residual: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let o = flat_index(wid, nwg, lid);
    if (o >= p.len) {
        return;
    }
    var s = 0.0;
    for (var t = 0u; t < p.splits; t++) {
        s += parts[t * p.len + o];
    }
    out[o] = epilogue(s, o / p.plane % p.channels, o);
}
