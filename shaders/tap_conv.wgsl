// Tap convolution (src/tensor/ops/taps.rs) on the tiled core (gemm.wgsl): a convolution whose
// taps a table gives, for boards whose cells are not a grid (checkers' dark squares). With a
// patch index kk = (input channel, tap) and a column j = (image, output cell):
//   MODE 0, forward:     out (c_out x n CELLS_OUT) = W (c_out x c_in TAPS) cols
//   MODE 2, grad_weight: dW  (c_out x c_in TAPS)   = g (c_out x n CELLS_OUT) cols^T
// where cols[kk, j] is the input at the cell the table names for that tap of that output
// cell, or 0 where it names none. As in conv.wgsl the column matrix is never stored, and the
// layer's shape is compiled in. The input gradient is the forward through the transposed
// table (taps.rs), so it needs no mode of its own.

const MODE: u32 = {{MODE}}u;
const C_IN: u32 = {{C_IN}}u;
const CELLS_IN: u32 = {{CELLS_IN}}u;
const C_OUT: u32 = {{C_OUT}}u;
const CELLS_OUT: u32 = {{CELLS_OUT}}u;
const TAPS: u32 = {{TAPS}}u;
const FORWARD: bool = MODE == 0u;

// The parameters and bindings (conv_io.wgsl): lhs is the weight in the forward, the output
// gradient in the weight gradient; rhs is the input.
// table[cell * TAPS + tap]: the input cell that tap of that output cell reads, or NO_CELL
// (u32::MAX); CELLS_OUT * TAPS entries, which the host checks
@group(0) @binding(6) var<storage, read> table: array<u32>;

// The column cell (patch index kk, output cell `cell` of image `img`). NO_CELL, like any
// entry past the input's cells, reads zero, so no table can make this read out of range.
fn column(img: u32, cell: u32, kk: u32) -> f32 {
    let src = table[cell * TAPS + kk % TAPS];
    if (src >= CELLS_IN) {
        return 0.0;
    }
    return rhs_at((img * C_IN + kk / TAPS) * CELLS_IN + src);
}

fn a_k_fastest() -> bool {
    return true;
}

fn b_n_fastest() -> bool {
    return FORWARD;
}

// The forward's weight rows and the weight gradient's output-gradient planes are contiguous
// along k (quads start at multiples of 4); B is a gather through the table.
fn a_vec4() -> bool {
    return (FORWARD && C_IN * TAPS % 4u == 0u) || (!FORWARD && CELLS_OUT % 4u == 0u);
}

fn b_vec4() -> bool {
    return false;
}

fn a_index(i: u32, kk: u32) -> u32 {
    if (FORWARD) {
        return i * C_IN * TAPS + kk;
    }
    // i = output channel, kk = (image, output cell)
    return (kk / CELLS_OUT * C_OUT + i) * CELLS_OUT + kk % CELLS_OUT;
}

fn load_b(bat: u32, kk: u32, j: u32) -> f32 {
    if (FORWARD) {
        return column(j / CELLS_OUT, j % CELLS_OUT, kk);
    }
    // kk = (image, output cell), j = patch index
    return column(kk / CELLS_OUT, kk % CELLS_OUT, j);
}

// Never called: b_vec4() is false, every column cell being looked up in the table.
fn load_b4(bat: u32, kk: u32, j: u32) -> vec4<f32> {
    return vec4(0.0);
}

fn store_c(split: u32, bat: u32, i: u32, j: u32, v: f32) {
    if (FORWARD) {
        // Never split (taps.rs plans the forward whole).
        let o = (j / CELLS_OUT * C_OUT + i) * CELLS_OUT + j % CELLS_OUT;
        out[o] = epilogue(v, i, o);
    } else {
        out[split * p.gemm.m * p.gemm.n + i * p.gemm.n + j] = v;
    }
}
