// The parameters and bindings shared by the convolution products (conv.wgsl, tap_conv.wgsl):
// the tiled core's header and the flags of the forward's epilogue (epilogue.wgsl: out =
// relu?(product + bias? + residual?), each flag 0 or 1); the output; the product's two
// operands, which each family's header names per mode; and the forward's bias and residual
// (shaped like the output) when their flags are set, otherwise, and in the other modes, any
// buffer.
struct Params {
    gemm: GemmHeader,
    has_bias: u32,
    has_residual: u32,
    relu: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> lhs: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> rhs: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read> residual: array<f32>;

// The operands are bound as vec4 arrays (whole 16-byte words); single values are picked out.
fn lhs_at(x: u32) -> f32 {
    return lhs[x / 4u][x % 4u];
}

fn rhs_at(x: u32) -> f32 {
    return rhs[x / 4u][x % 4u];
}

// A's values, at the index each family's a_index(i, kk) gives.
fn load_a(bat: u32, i: u32, kk: u32) -> f32 {
    return lhs_at(a_index(i, kk));
}

fn load_a4(bat: u32, i: u32, kk: u32) -> vec4<f32> {
    return lhs[a_index(i, kk) / 4u];
}
