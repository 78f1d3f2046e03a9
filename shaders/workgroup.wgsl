// Reductions across one workgroup, for the kernel families that combine a row or a channel
// in a workgroup (reduce, loss, norm).

var<workgroup> partial: array<f32, WG>;

// The maximum (`take_max`) or the sum of `value` over the workgroup (WG is a power of two);
// every invocation gets it. Call from uniform control flow.
fn workgroup_combine(lid: u32, value: f32, take_max: bool) -> f32 {
    partial[lid] = value;
    for (var w = WG / 2u; w > 0u; w = w / 2u) {
        workgroupBarrier();
        if (lid < w) {
            if (take_max) {
                partial[lid] = max(partial[lid], partial[lid + w]);
            } else {
                partial[lid] = partial[lid] + partial[lid + w];
            }
        }
    }
    workgroupBarrier();
    let result = partial[0];
    // Nobody may overwrite `partial` before everyone has read the result.
    workgroupBarrier();
    return result;
}

fn workgroup_sum(lid: u32, value: f32) -> f32 {
    return workgroup_combine(lid, value, false);
}

fn workgroup_max(lid: u32, value: f32) -> f32 {
    return workgroup_combine(lid, value, true);
}
