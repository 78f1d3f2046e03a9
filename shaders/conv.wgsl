// Convolution and its two gradients as implicit GEMMs on the tiled core (gemm.wgsl): the
// im2col matrix is never stored; its cells are computed from indices.
// With P = out_h * out_w pixels per image and a patch index kk = (c, ky, kx):
//   MODE 0, forward:     out (c_out x n P)      = W (c_out x c_in kh kw) cols
//   MODE 1, grad_input:  dx  (c_in x n h w)     = W^T-by-patch (c_in x c_out kh kw) shifted g
//   MODE 2, grad_weight: dW  (c_out x c_in kh kw) = g (c_out x n P) cols^T
// Columns of the n-wide products run over (image, pixel); stores put them back in NCHW.

const MODE: u32 = {{MODE}}u;
// 1: the strides come from the parameters; 0: the stride-1 build, where they fold away.
const STRIDED: u32 = {{STRIDED}}u;

struct Params {
    gemm: GemmHeader,
    c_in: u32,
    h: u32,
    w: u32,
    c_out: u32,
    kh: u32,
    kw: u32,
    pad_h: u32,
    pad_w: u32,
    stride_h: u32,
    stride_w: u32,
    out_h: u32,
    out_w: u32,
    has_bias: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
// forward and grad_input: the weight; grad_weight: the output gradient
@group(0) @binding(2) var<storage, read> lhs: array<f32>;
// forward and grad_weight: the input; grad_input: the output gradient
@group(0) @binding(3) var<storage, read> rhs: array<f32>;
// forward: the bias when has_bias is 1 (otherwise any buffer)
@group(0) @binding(4) var<storage, read> bias: array<f32>;

fn stride_h() -> u32 {
    return select(1u, p.stride_h, STRIDED == 1u);
}

fn stride_w() -> u32 {
    return select(1u, p.stride_w, STRIDED == 1u);
}

// The output row (or column) that kernel row `k` read from input row `i`, or -1 if none:
// o stride + k - pad = i, so i + pad - k must be a non-negative multiple of the stride.
fn fed_by(i: u32, pad: u32, k: u32, stride: u32) -> i32 {
    let t = i32(i + pad) - i32(k);
    if (STRIDED == 0u) {
        return t;
    }
    if (t < 0 || u32(t) % stride != 0u) {
        return -1;
    }
    return t / i32(stride);
}

// The im2col cell (patch index kk, pixel `pix` of image `img`) of the input in `rhs`.
fn im2col(img: u32, pix: u32, kk: u32) -> f32 {
    let taps = p.kh * p.kw;
    let c = kk / taps;
    let ky = (kk % taps) / p.kw;
    let kx = kk % p.kw;
    let iy = i32(pix / p.out_w * stride_h() + ky) - i32(p.pad_h);
    let ix = i32(pix % p.out_w * stride_w() + kx) - i32(p.pad_w);
    if (iy < 0 || iy >= i32(p.h) || ix < 0 || ix >= i32(p.w)) {
        return 0.0;
    }
    return rhs[((img * p.c_in + c) * p.h + u32(iy)) * p.w + u32(ix)];
}

fn a_k_fastest() -> bool {
    return true;
}

fn b_n_fastest() -> bool {
    return MODE != 2u;
}

fn load_a(bat: u32, i: u32, kk: u32) -> f32 {
    let taps = p.kh * p.kw;
    let pixels = p.out_h * p.out_w;
    if (MODE == 0u) {
        return lhs[i * p.c_in * taps + kk];
    }
    if (MODE == 1u) {
        // i = input channel, kk = (output channel, tap)
        return lhs[((kk / taps) * p.c_in + i) * taps + kk % taps];
    }
    // i = output channel, kk = (image, pixel)
    return lhs[((kk / pixels) * p.c_out + i) * pixels + kk % pixels];
}

fn load_b(bat: u32, kk: u32, j: u32) -> f32 {
    let pixels = p.out_h * p.out_w;
    if (MODE == 0u) {
        return im2col(j / pixels, j % pixels, kk);
    }
    if (MODE == 1u) {
        // kk = (output channel, tap), j = (image, input pixel): the output pixel this tap of
        // that input pixel fed, if any.
        let taps = p.kh * p.kw;
        let co = kk / taps;
        let ky = (kk % taps) / p.kw;
        let kx = kk % p.kw;
        let img = j / (p.h * p.w);
        let oy = fed_by((j / p.w) % p.h, p.pad_h, ky, p.stride_h);
        let ox = fed_by(j % p.w, p.pad_w, kx, p.stride_w);
        if (oy < 0 || oy >= i32(p.out_h) || ox < 0 || ox >= i32(p.out_w)) {
            return 0.0;
        }
        return rhs[((img * p.c_out + co) * p.out_h + u32(oy)) * p.out_w + u32(ox)];
    }
    // kk = (image, pixel), j = patch index
    return im2col(kk / pixels, kk % pixels, j);
}

fn store_c(split: u32, bat: u32, i: u32, j: u32, v: f32) {
    let base = split * p.gemm.m * p.gemm.n;
    if (MODE == 0u) {
        let pixels = p.out_h * p.out_w;
        let b = select(0.0, bias[i], p.has_bias != 0u && split == 0u);
        out[base + ((j / pixels) * p.c_out + i) * pixels + j % pixels] = v + b;
    } else if (MODE == 1u) {
        let plane = p.h * p.w;
        out[base + ((j / plane) * p.c_in + i) * plane + j % plane] = v;
    } else {
        out[base + i * p.gemm.n + j] = v;
    }
}
