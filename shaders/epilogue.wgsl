// The forward convolution's epilogue, shared by its store (conv.wgsl) and the sum of a split
// forward's parts (split_sum.wgsl): relu?(y + bias[ch]? + residual[o]?), with the flags
// `has_bias`, `has_residual` and `relu` of `p` (0 or 1) and the `bias` and `residual`
// bindings of the including family.
fn epilogue(y: f32, ch: u32, o: u32) -> f32 {
    var v = y;
    if (p.has_bias != 0u) {
        v += bias[ch];
    }
    if (p.has_residual != 0u) {
        v += residual[o];
    }
    if (p.relu != 0u) {
        v = max(v, 0.0);
    }
    return v;
}
