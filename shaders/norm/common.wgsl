// Training-mode batch norm over x as (n, c, plane): per channel the batch mean and biased
// variance, y = (x - mean) gamma / sqrt(var + eps) + beta (then a ReLU when `relu` is set),
// and the backward. Two kernels each
// way: a per-channel reduction (one workgroup per channel, its invocations striding over the
// channel's n * plane values), then one elementwise pass. The forward reduction also moves the
// running averages, so nothing else is launched for them. After a convolution that wrote its
// output's moments, the forward reduction reads those instead of x.

struct Params {
    n: u32,
    c: u32,
    plane: u32,
    // n * c * plane
    len: u32,
    eps: f32,
    momentum: f32,
    // count / (count - 1): the running variance is unbiased
    unbias: f32,
    // 1: a ReLU follows the normalisation (forward), or masks the gradient (backward)
    relu: u32,
    // where dbeta starts in the backward's per-channel sums buffer (dgamma at 0)
    dbeta_at: u32,
    // the moments' parts per channel (moments.wgsl)
    parts: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;

// The flat index of the channel's i-th value (i < n plane).
fn at(ch: u32, i: u32) -> u32 {
    let s = i / p.plane;
    return (s * p.c + ch) * p.plane + (i - s * p.plane);
}

fn channel_of(i: u32) -> u32 {
    return (i / p.plane) % p.c;
}

fn inv_std(v: f32) -> f32 {
    return inverseSqrt(v + p.eps);
}

// The output gradient as the normalisation sees it: where a fused ReLU's output `y` is not
// positive, none passes.
fn through_relu(g: f32, y: f32) -> f32 {
    if (p.relu != 0u && !(y > 0.0)) {
        return 0.0;
    }
    return g;
}
