// Convolution and its two gradients as implicit GEMMs on the tiled core (gemm.wgsl): the
// im2col matrix is never stored; its cells are computed from indices.
// With P = OUT_H * OUT_W pixels per image and a patch index kk = (c, ky, kx):
//   MODE 0, forward:     out (c_out x n P)      = W (c_out x c_in kh kw) cols
//   MODE 1, grad_input:  dx  (c_in x n h w)     = W^T-by-patch (c_in x c_out kh kw) shifted g
//   MODE 2, grad_weight: dW  (c_out x c_in kh kw) = g (c_out x n P) cols^T
//   MODE 3, the forward with its output's moments for a batch norm (conv_moments.wgsl)
// Columns of the n-wide products run over (image, pixel); stores put them back in NCHW.
//
// Everything but the batch size is a constant of the compilation (one per layer shape), so
// the index arithmetic of the loads divides only by constants (shifts and masks for the
// powers of two of a board), and a stride of 1 costs no stride arithmetic.

const MODE: u32 = {{MODE}}u;
const C_IN: u32 = {{C_IN}}u;
const H: u32 = {{H}}u;
const W: u32 = {{W}}u;
const C_OUT: u32 = {{C_OUT}}u;
const KH: u32 = {{KH}}u;
const KW: u32 = {{KW}}u;
const PAD_H: u32 = {{PAD_H}}u;
const PAD_W: u32 = {{PAD_W}}u;
const STRIDE_H: u32 = {{STRIDE_H}}u;
const STRIDE_W: u32 = {{STRIDE_W}}u;
const OUT_H: u32 = (H + 2u * PAD_H - KH) / STRIDE_H + 1u;
const OUT_W: u32 = (W + 2u * PAD_W - KW) / STRIDE_W + 1u;
const TAPS: u32 = KH * KW;
const PIXELS: u32 = OUT_H * OUT_W;
const PLANE: u32 = H * W;
const FORWARD: bool = MODE == 0u || MODE == 3u;

// The parameters and bindings (conv_io.wgsl): lhs is the weight in the forward and the input
// gradient, the output gradient in the weight gradient; rhs is the input in the forward and
// the weight gradient, the output gradient in the input gradient.

// The output row (or column) that kernel row `k` read from input row `i`, or -1 if none:
// o stride + k - pad = i, so i + pad - k must be a non-negative multiple of the stride.
fn fed_by(i: u32, pad: u32, k: u32, stride: u32) -> i32 {
    let t = i32(i + pad) - i32(k);
    if (stride == 1u) {
        return t;
    }
    if (t < 0 || u32(t) % stride != 0u) {
        return -1;
    }
    return t / i32(stride);
}

// The im2col cell (patch index kk, pixel `pix` of image `img`) of the input in `rhs`.
fn im2col(img: u32, pix: u32, kk: u32) -> f32 {
    let c = kk / TAPS;
    let ky = kk % TAPS / KW;
    let kx = kk % KW;
    let iy = i32(pix / OUT_W * STRIDE_H + ky) - i32(PAD_H);
    let ix = i32(pix % OUT_W * STRIDE_W + kx) - i32(PAD_W);
    if (iy < 0 || iy >= i32(H) || ix < 0 || ix >= i32(W)) {
        return 0.0;
    }
    return rhs_at(((img * C_IN + c) * H + u32(iy)) * W + u32(ix));
}

fn a_k_fastest() -> bool {
    return true;
}

fn b_n_fastest() -> bool {
    return MODE != 2u;
}

// The forward's weight rows and the weight gradient's output-gradient planes are contiguous
// along k; the input gradient's A is a gather.
fn a_vec4() -> bool {
    return (FORWARD && C_IN * TAPS % 4u == 0u) || (MODE == 2u && PIXELS % 4u == 0u);
}

// A 1x1 kernel of stride 1 without padding reads the input (forward, weight gradient) or the
// output gradient (input gradient) as it is: B's quads along pixels are whole vec4s. Other
// kernels gather B.
const POINTWISE: bool = TAPS == 1u && STRIDE_H == 1u && STRIDE_W == 1u && PAD_H == 0u && PAD_W == 0u;
// The forward's quads of 4 pixels lie in one output row (quads start at multiples of 4): at
// stride 1 they read 4 neighbouring cells of one input row, whose index is worked out once
// for the quad instead of once a cell (on an NVIDIA H200 up to 1.18x faster inference).
const ROW_QUADS: bool = FORWARD && !POINTWISE && STRIDE_W == 1u && OUT_W % 4u == 0u;

fn b_vec4() -> bool {
    return (POINTWISE && PIXELS % 4u == 0u) || ROW_QUADS;
}

fn a_index(i: u32, kk: u32) -> u32 {
    if (FORWARD) {
        return i * C_IN * TAPS + kk;
    }
    if (MODE == 1u) {
        // i = input channel, kk = (output channel, tap)
        return (kk / TAPS * C_IN + i) * TAPS + kk % TAPS;
    }
    // i = output channel, kk = (image, pixel)
    return (kk / PIXELS * C_OUT + i) * PIXELS + kk % PIXELS;
}

fn load_b(bat: u32, kk: u32, j: u32) -> f32 {
    if (FORWARD) {
        return im2col(j / PIXELS, j % PIXELS, kk);
    }
    if (MODE == 1u) {
        // kk = (output channel, tap), j = (image, input pixel): the output pixel this tap of
        // that input pixel fed, if any.
        let co = kk / TAPS;
        let ky = kk % TAPS / KW;
        let kx = kk % KW;
        let oy = fed_by(j % PLANE / W, PAD_H, ky, STRIDE_H);
        let ox = fed_by(j % W, PAD_W, kx, STRIDE_W);
        if (oy < 0 || oy >= i32(OUT_H) || ox < 0 || ox >= i32(OUT_W)) {
            return 0.0;
        }
        return rhs_at(((j / PLANE * C_OUT + co) * OUT_H + u32(oy)) * OUT_W + u32(ox));
    }
    // kk = (image, pixel), j = patch index
    return im2col(kk / PIXELS, kk % PIXELS, j);
}

// The input cell at `x` of the row starting at `row`, or 0 in the padding.
fn row_cell(row: u32, x: i32) -> f32 {
    if (x < 0 || x >= i32(W)) {
        return 0.0;
    }
    return rhs_at(row + u32(x));
}

// ROW_QUADS: the im2col cells of patch index kk at pixels j..j+3, one output row's.
// Pointwise: kk and j are (channel, (image, pixel)), or the reverse for the weight gradient,
// and the planes of input and output are the same.
fn load_b4(bat: u32, kk: u32, j: u32) -> vec4<f32> {
    if (ROW_QUADS) {
        let pix = j % PIXELS;
        let iy = i32(pix / OUT_W * STRIDE_H + kk % TAPS / KW) - i32(PAD_H);
        if (iy < 0 || iy >= i32(H)) {
            return vec4(0.0);
        }
        let row = ((j / PIXELS * C_IN + kk / TAPS) * H + u32(iy)) * W;
        let x = i32(pix % OUT_W + kk % KW) - i32(PAD_W);
        return vec4(row_cell(row, x), row_cell(row, x + 1), row_cell(row, x + 2), row_cell(row, x + 3));
    }
    if (MODE == 2u) {
        return rhs[(kk / PIXELS * C_IN + j) * PIXELS / 4u + kk % PIXELS / 4u];
    }
    let channels = select(C_OUT, C_IN, FORWARD);
    return rhs[(j / PIXELS * channels + kk) * PIXELS / 4u + j % PIXELS / 4u];
}

fn store_c(split: u32, bat: u32, i: u32, j: u32, v: f32) {
    if (FORWARD) {
        let o = (j / PIXELS * C_OUT + i) * PIXELS + j % PIXELS;
        if (p.gemm.splits > 1u) {
            // A split forward's parts: split_sum.wgsl adds them and applies the epilogue.
            out[split * p.gemm.m * p.gemm.n + o] = v;
            return;
        }
        let y = epilogue(v, i, o);
        out[o] = y;
{{NOTE_OUTPUT}}
    } else if (MODE == 1u) {
        out[split * p.gemm.m * p.gemm.n + (j / PLANE * C_IN + i) * PLANE + j % PLANE] = v;
    } else {
        out[split * p.gemm.m * p.gemm.n + i * p.gemm.n + j] = v;
    }
}
