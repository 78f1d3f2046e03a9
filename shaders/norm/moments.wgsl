// Forward reduction from the moments a convolution wrote as it stored its output
// (conv_moments.wgsl): `parts` (count, mean, M2) triples per channel at (t c + ch) 3, each
// over disjoint values. Their union's mean is the count-weighted mean of the parts', and its
// M2 the parts' M2 plus each part's count times its mean's squared distance from the whole's:
// a sum of non-negative terms, as exact as the two-pass definition.

@group(0) @binding(5) var<storage, read> moments: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let ch = flat_group(wid, nwg);
    if (ch >= p.c) {
        return;
    }
    var s = 0.0;
    for (var t = lid; t < p.parts; t += WG) {
        let at = (t * p.c + ch) * 3u;
        s += moments[at] * moments[at + 1u];
    }
    let count = f32(p.n * p.plane);
    let m = workgroup_sum(lid, s) / count;
    var q = 0.0;
    for (var t = lid; t < p.parts; t += WG) {
        let at = (t * p.c + ch) * 3u;
        let d = moments[at + 1u] - m;
        q += moments[at + 2u] + moments[at] * d * d;
    }
    let v = workgroup_sum(lid, q) / count;
    if (lid == 0u) {
        store_statistics(ch, m, v);
    }
}
