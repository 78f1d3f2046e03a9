// Forward reduction from x: the mean first, then the variance as the mean square deviation
// from it (two passes over the channel: no cancellation).

@group(0) @binding(5) var<storage, read> x: array<f32>;

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
        store_statistics(ch, m, v);
    }
}
