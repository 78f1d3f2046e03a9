// Per-channel sums of x as (n, c, plane), one workgroup per channel: a conv's bias gradient
// in one pass (two axis sums otherwise).

@group(0) @binding(1) var<storage, read_write> sums: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let ch = flat_group(wid, nwg);
    if (ch >= p.c) {
        return;
    }
    var s = 0.0;
    for (var i = lid; i < p.n * p.plane; i += WG) {
        s += x[at(ch, i)];
    }
    let total = workgroup_sum(lid, s);
    if (lid == 0u) {
        sums[ch] = total;
    }
}
