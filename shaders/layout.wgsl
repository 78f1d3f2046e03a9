// Data movement: permute, pad/crop, column gather and its adjoint. One invocation per output.

struct Params {
    // permute: the output shape right-aligned to rank 4, and the input stride of each output axis
    shape: vec4<u32>,
    strides: vec4<u32>,
    // pad2d: top, bottom, left, right (negative crops)
    pads: vec4<i32>,
    len: u32,
    // pad2d: input plane h x w; gather/scatter: the (rows, cols) matrix (rows unused)
    h: u32,
    w: u32,
    out_h: u32,
    out_w: u32,
    // gather/scatter: number of picked columns
    picks: u32,
    value: f32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
// gather_cols: the column index; scatter_cols: per output column c, table[c]..table[c + 1]
// is the range of table[cols + 1 ..] listing the picks j with index[j] == c.
@group(0) @binding(3) var<storage, read> table: array<u32>;

@compute @workgroup_size(WG)
fn permute(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p.len) {
        return;
    }
    var rest = i;
    var src = 0u;
    for (var k = 0u; k < 4u; k++) {
        let axis = 3u - k;
        src += (rest % p.shape[axis]) * p.strides[axis];
        rest = rest / p.shape[axis];
    }
    out[i] = x[src];
}

@compute @workgroup_size(WG)
fn pad2d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p.len) {
        return;
    }
    let ox = i32(i % p.out_w);
    let oy = i32((i / p.out_w) % p.out_h);
    let plane = i / (p.out_w * p.out_h);
    let iy = oy - p.pads.x;
    let ix = ox - p.pads.z;
    var v = p.value;
    if (iy >= 0 && iy < i32(p.h) && ix >= 0 && ix < i32(p.w)) {
        v = x[(plane * p.h + u32(iy)) * p.w + u32(ix)];
    }
    out[i] = v;
}

@compute @workgroup_size(WG)
fn gather_cols(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p.len) {
        return;
    }
    let r = i / p.picks;
    out[i] = x[r * p.w + table[i % p.picks]];
}

// Sums in pick order, like the CPU reference.
@compute @workgroup_size(WG)
fn scatter_cols(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if (i >= p.len) {
        return;
    }
    let r = i / p.w;
    let c = i % p.w;
    var s = 0.0;
    for (var q = table[c]; q < table[c + 1u]; q++) {
        s += x[r * p.picks + table[p.w + 1u + q]];
    }
    out[i] = s;
}
