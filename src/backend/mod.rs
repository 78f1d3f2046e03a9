//! Backends: where tensor data lives and the kernels that compute on it.
//!
//! A [`Backend`] owns buffers of `f32` and runs a small set of primitive kernels on them. All
//! buffers are dense and row-major; every op produces a new contiguous buffer, so kernels
//! never see strides. The CPU backend is the reference the GPU backend (wgpu) is tested
//! against (tests/nn/gpu_parity.rs).
//! `Tensor` (src/tensor) holds a `Storage` and dispatches each op to the backend of its data.

pub mod cpu;
#[cfg(feature = "gpu")]
pub mod gpu;

use std::fmt;

/// Elementwise ops of one tensor. Scalar parameters travel with the op.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UnaryOp {
    Neg,
    Exp,
    Log,
    Relu,
    Tanh,
    Sigmoid,
    /// x + c
    AddScalar(f32),
    /// x * c
    MulScalar(f32),
    /// x ^ c
    PowScalar(f32),
}

/// Elementwise ops of two tensors, with broadcasting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    /// a ^ b
    Pow,
    /// b where a > 0, else 0: the backward of relu (a = relu input, b = upstream gradient).
    ReluGrad,
}

/// The activation a linear layer's fused inference form applies to its outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Relu,
    Tanh,
}

impl Activation {
    pub fn op(self) -> UnaryOp {
        match self {
            Activation::Relu => UnaryOp::Relu,
            Activation::Tanh => UnaryOp::Tanh,
        }
    }
}

/// Shapes of a linear layer: `rows` inputs of `inputs` values each, `outputs` of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearDims {
    pub rows: usize,
    pub inputs: usize,
    pub outputs: usize,
}

impl LinearDims {
    /// x (rows, inputs) times the transpose of w (outputs, inputs).
    pub fn product(&self) -> MatmulDims {
        MatmulDims {
            batch_a: 1,
            batch_b: 1,
            m: self.rows,
            k: self.inputs,
            n: self.outputs,
            trans_a: false,
            trans_b: true,
        }
    }
}

/// Shapes of a batched matrix product: `batch` products of (m x k) by (k x n). With `trans_a`
/// the stored A is (k x m); with `trans_b` the stored B is (n x k). A batch of 1 on either side
/// is broadcast over the other's batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatmulDims {
    pub batch_a: usize,
    pub batch_b: usize,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub trans_a: bool,
    pub trans_b: bool,
}

impl MatmulDims {
    pub fn batch(&self) -> usize {
        self.batch_a.max(self.batch_b)
    }
}

/// A 2-D convolution (cross-correlation): input (n, c_in, h, w), weight (c_out, c_in, kh, kw),
/// zero padding `pad_h`/`pad_w` on each side, the window moved `stride_h`/`stride_w` cells at a
/// time; output (n, c_out, ho, wo) with ho = (h + 2 pad_h - kh) / stride_h + 1 (rounded down:
/// cells past the last whole step are not read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvDims {
    pub n: usize,
    pub c_in: usize,
    pub h: usize,
    pub w: usize,
    pub c_out: usize,
    pub kh: usize,
    pub kw: usize,
    pub pad_h: usize,
    pub pad_w: usize,
    pub stride_h: usize,
    pub stride_w: usize,
}

impl ConvDims {
    pub fn out_h(&self) -> usize {
        (self.h + 2 * self.pad_h - self.kh) / self.stride_h + 1
    }
    pub fn out_w(&self) -> usize {
        (self.w + 2 * self.pad_w - self.kw) / self.stride_w + 1
    }
    /// Stride 1 both ways: the common case, which the kernels keep on their fast paths.
    pub fn unit_stride(&self) -> bool {
        self.stride_h == 1 && self.stride_w == 1
    }
    /// The output as a batch norm of it sees it.
    pub fn output(&self) -> NormDims {
        NormDims {
            n: self.n,
            c: self.c_out,
            plane: self.out_h() * self.out_w(),
        }
    }
}

/// A convolution whose taps a table gives (a tap convolution): input (n, c_in, cells_in),
/// weight (c_out, c_in x taps), output (n, c_out, cells_out), where output cell `s` reads
/// through tap `t` the input cell `table[s * taps + t]`, or zero where that is [`NO_CELL`].
/// A board on which cells are not a grid (checkers' dark squares and their diagonal
/// neighbours) convolves this way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TapDims {
    pub n: usize,
    pub c_in: usize,
    pub cells_in: usize,
    pub c_out: usize,
    pub cells_out: usize,
    pub taps: usize,
}

/// A tap that reads no cell (off the board): it reads zero.
pub const NO_CELL: u32 = u32::MAX;

impl TapDims {
    /// Rows of the product's right side: one per input channel and tap.
    pub fn patch(&self) -> usize {
        self.c_in * self.taps
    }

    /// For gathering the product's right side, (patch, cells_out) an image, from an image's
    /// (c_in x cells_in) values followed by one zero: each entry's column in that row.
    fn column_index(&self, table: &[u32]) -> Vec<u32> {
        let zero = (self.c_in * self.cells_in) as u32;
        let mut index = Vec::with_capacity(self.patch() * self.cells_out);
        for c in 0..self.c_in {
            for t in 0..self.taps {
                index.extend((0..self.cells_out).map(|s| match table[s * self.taps + t] {
                    NO_CELL => zero,
                    cell => (c * self.cells_in) as u32 + cell,
                }));
            }
        }
        index
    }
}

/// A tap convolution's right side, (n, patch, cells_out): a column gather from the images,
/// each with a zero column appended.
fn tap_columns<B: Backend + ?Sized>(be: &B, x: &B::Buf, d: TapDims, table: &[u32]) -> B::Buf {
    let width = d.c_in * d.cells_in;
    let padded = be.pad2d(x, 1, d.n, width, [0, 0, 0, 1], 0.0);
    be.gather_cols(&padded, d.n, width + 1, &d.column_index(table))
}

/// [`Backend::tap_conv`] composed of the primitive kernels: the gathered columns, a batched
/// product with the weight, then the bias, residual and ReLU as their own passes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn composed_tap_conv<B: Backend + ?Sized>(
    be: &B,
    x: &B::Buf,
    w: &B::Buf,
    bias: Option<&B::Buf>,
    residual: Option<&B::Buf>,
    relu: bool,
    d: TapDims,
    table: &[u32],
) -> B::Buf {
    let columns = tap_columns(be, x, d, table);
    let dims = MatmulDims {
        batch_a: 1,
        batch_b: d.n,
        m: d.c_out,
        k: d.patch(),
        n: d.cells_out,
        trans_a: false,
        trans_b: false,
    };
    let mut y = be.matmul(w, &columns, dims);
    let shape = [d.n, d.c_out, d.cells_out];
    if let Some(b) = bias {
        y = be.binary(BinaryOp::Add, &y, &shape, b, &[1, d.c_out, 1], &shape);
    }
    if let Some(r) = residual {
        y = be.binary(BinaryOp::Add, &y, &shape, r, &shape, &shape);
    }
    if relu {
        y = be.unary(UnaryOp::Relu, &y);
    }
    y
}

/// A batch norm's layout: (n, c, plane), statistics per channel over its n * plane values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NormDims {
    pub n: usize,
    pub c: usize,
    pub plane: usize,
}

impl NormDims {
    /// Values per channel.
    pub fn count(&self) -> usize {
        self.n * self.plane
    }
    /// The whole array's shape and a per-channel operand's, for broadcasting.
    fn shapes(&self) -> ([usize; 3], [usize; 3]) {
        ([self.n, self.c, self.plane], [1, self.c, 1])
    }
}

/// A batch norm's running averages and how far a training batch moves them:
/// new = (1 - momentum) old + momentum batch, the batch variance unbiased (n plane / (n plane - 1)).
#[derive(Debug)]
pub struct Running<'a, B> {
    pub mean: &'a B,
    pub var: &'a B,
    pub momentum: f32,
}

impl<B> Clone for Running<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B> Copy for Running<'_, B> {}

/// [`Backend::conv2d_batch_norm_train`] as its two ops, one after the other.
#[allow(clippy::too_many_arguments)]
fn conv_then_batch_norm<B: Backend + ?Sized>(
    be: &B,
    x: &B::Buf,
    w: &B::Buf,
    gamma: &B::Buf,
    beta: &B::Buf,
    running: Running<'_, B::Buf>,
    relu: bool,
    d: ConvDims,
    eps: f32,
) -> [B::Buf; 6] {
    let conv = be.conv2d(x, w, None, d);
    let [y, mean, var, run_mean, run_var] =
        be.batch_norm_train(&conv, gamma, beta, running, relu, d.output(), eps);
    [conv, y, mean, var, run_mean, run_var]
}

/// The running averages moved towards a batch's mean and (biased) variance.
fn fold_running<B: Backend + ?Sized>(
    be: &B,
    r: Running<'_, B::Buf>,
    mean: &B::Buf,
    var: &B::Buf,
    d: NormDims,
) -> [B::Buf; 2] {
    let count = d.count();
    let unbias = if count > 1 {
        count as f32 / (count - 1) as f32
    } else {
        1.0
    };
    let c = [d.c];
    let toward = |old: &B::Buf, batch: &B::Buf, scale: f32| {
        let old = be.unary(UnaryOp::MulScalar(1.0 - r.momentum), old);
        let batch = be.unary(UnaryOp::MulScalar(r.momentum * scale), batch);
        be.binary(BinaryOp::Add, &old, &c, &batch, &c, &c)
    };
    [toward(r.mean, mean, 1.0), toward(r.var, var, unbias)]
}

/// 1 / sqrt(var + eps), per channel.
fn inv_std<B: Backend + ?Sized>(be: &B, var: &B::Buf, eps: f32) -> B::Buf {
    be.unary(
        UnaryOp::PowScalar(-0.5),
        &be.unary(UnaryOp::AddScalar(eps), var),
    )
}

/// Hyperparameters of one optimizer step, applied elementwise to a parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptimStep {
    /// v = momentum v + (g + wd w); w = w - lr v
    Sgd {
        lr: f32,
        momentum: f32,
        weight_decay: f32,
    },
    /// Adam with L2 weight decay added to the gradient; `t` is the 1-based step count for the
    /// bias corrections.
    Adam {
        lr: f32,
        beta1: f32,
        beta2: f32,
        eps: f32,
        weight_decay: f32,
        t: u32,
    },
}

/// The kernels every backend provides. Buffers are immutable once made: ops, optimizer steps
/// included, return new buffers (a pool makes that cheap on the GPU).
pub trait Backend: Send + Sync {
    type Buf: Clone + Send + Sync + fmt::Debug;

    fn upload(&self, data: &[f32]) -> Self::Buf;
    fn download(&self, buf: &Self::Buf) -> Vec<f32>;
    /// Several buffers read back together: on a GPU, one copy and one wait for all of them.
    fn download_all(&self, bufs: &[&Self::Buf]) -> Vec<Vec<f32>> {
        bufs.iter().map(|b| self.download(b)).collect()
    }
    fn filled(&self, len: usize, value: f32) -> Self::Buf;
    fn len(&self, buf: &Self::Buf) -> usize;

    fn unary(&self, op: UnaryOp, x: &Self::Buf) -> Self::Buf;
    /// `a` and `b` have the rank of `out`, each dimension equal to out's or 1 (broadcast).
    fn binary(
        &self,
        op: BinaryOp,
        a: &Self::Buf,
        a_shape: &[usize],
        b: &Self::Buf,
        b_shape: &[usize],
        out: &[usize],
    ) -> Self::Buf;
    /// Sums the middle axis of an (outer, n, inner) array into (outer, inner).
    fn sum_axis(&self, x: &Self::Buf, outer: usize, n: usize, inner: usize) -> Self::Buf;
    /// Per-channel sums of an (n, c, plane) array, as (c). This default sums two axes in turn;
    /// the GPU makes one pass.
    fn channel_sum(&self, x: &Self::Buf, d: NormDims) -> Self::Buf {
        let planes = self.sum_axis(x, d.n * d.c, d.plane, 1);
        self.sum_axis(&planes, 1, d.n, d.c)
    }
    /// Softmax (or log-softmax) of each row of a (rows, cols) array, numerically stable.
    fn softmax(&self, x: &Self::Buf, rows: usize, cols: usize, log: bool) -> Self::Buf;
    /// Softmax cross-entropy of each row of (rows, cols) logits `z` against the same row of
    /// soft targets `t`, with its gradient, in one pass: [loss (rows), grad (rows, cols)],
    /// loss_r = -scale sum_j t_rj log softmax(z_r)_j, grad_r = scale (softmax(z_r) sum_j t_rj
    /// - t_r). Training's policy loss: differentiated op by op it took about ten kernels.
    fn softmax_xent(
        &self,
        z: &Self::Buf,
        t: &Self::Buf,
        rows: usize,
        cols: usize,
        scale: f32,
    ) -> [Self::Buf; 2];
    /// Elementwise squared error and its gradient in one pass: [scale (p - t)^2,
    /// 2 scale (p - t)]. Training's value loss.
    fn squared_error(&self, p: &Self::Buf, t: &Self::Buf, scale: f32) -> [Self::Buf; 2];
    fn matmul(&self, a: &Self::Buf, b: &Self::Buf, dims: MatmulDims) -> Self::Buf;
    /// act?(x w^T + bias?) for x (rows, inputs), w (outputs, inputs) and a bias per output: a
    /// linear layer's inference form (no backward; training composes matmul, add and the
    /// activation on the tape). The CPU starts its product from the bias and applies the
    /// activation in place; the GPU applies both as its GEMM stores (one dispatch, not three).
    fn linear(
        &self,
        x: &Self::Buf,
        w: &Self::Buf,
        bias: Option<&Self::Buf>,
        act: Option<Activation>,
        d: LinearDims,
    ) -> Self::Buf;
    /// Output axis i is input axis `perm[i]`.
    fn permute(&self, x: &Self::Buf, shape: &[usize], perm: &[usize]) -> Self::Buf;
    /// Pads (positive) or crops (negative) the last two axes of (planes, h, w) by
    /// [top, bottom, left, right], filling new cells with `value`.
    fn pad2d(
        &self,
        x: &Self::Buf,
        planes: usize,
        h: usize,
        w: usize,
        pads: [i32; 4],
        value: f32,
    ) -> Self::Buf;
    /// `out[r, j] = x[r, index[j]]` for a (rows, cols) array.
    fn gather_cols(&self, x: &Self::Buf, rows: usize, cols: usize, index: &[u32]) -> Self::Buf;
    /// The adjoint of `gather_cols`: out (rows, cols) zero except `out[r, index[j]] += g[r, j]`.
    fn scatter_cols(&self, g: &Self::Buf, rows: usize, cols: usize, index: &[u32]) -> Self::Buf;
    fn conv2d(
        &self,
        x: &Self::Buf,
        w: &Self::Buf,
        bias: Option<&Self::Buf>,
        d: ConvDims,
    ) -> Self::Buf;
    /// relu?(conv2d(x, w, bias) + residual?), `residual` shaped like the output: the inference
    /// form of conv, batch norm folded into `w` and `bias`, residual add and ReLU. Only
    /// inference uses it (no backward). This default composes the primitive kernels; the CPU
    /// backend fuses them into the convolution's pass over each image, the GPU into its GEMM's
    /// store (one dispatch).
    fn conv2d_add_relu(
        &self,
        x: &Self::Buf,
        w: &Self::Buf,
        bias: &Self::Buf,
        residual: Option<&Self::Buf>,
        relu: bool,
        d: ConvDims,
    ) -> Self::Buf {
        let y = self.conv2d(x, w, Some(bias), d);
        let shape = [d.n, d.c_out, d.out_h(), d.out_w()];
        let y = match residual {
            Some(r) => self.binary(BinaryOp::Add, &y, &shape, r, &shape, &shape),
            None => y,
        };
        if relu {
            self.unary(UnaryOp::Relu, &y)
        } else {
            y
        }
    }
    /// Training-mode batch norm of `x` (n, c, plane): per channel the batch mean and biased
    /// variance, then y = (x - mean) gamma / sqrt(var + eps) + beta (and max(y, 0) with
    /// `relu`), and the running averages moved towards the batch's. Returns [y, mean, var, running mean, running var] (all but
    /// y of shape (c)). This default composes the primitive kernels (about eight passes over
    /// x); the CPU backend makes two reading passes and one writing pass, the GPU two kernels.
    #[allow(clippy::too_many_arguments)]
    fn batch_norm_train(
        &self,
        x: &Self::Buf,
        gamma: &Self::Buf,
        beta: &Self::Buf,
        running: Running<'_, Self::Buf>,
        relu: bool,
        d: NormDims,
        eps: f32,
    ) -> [Self::Buf; 5] {
        let (full, ch) = d.shapes();
        let per_value = UnaryOp::MulScalar(1.0 / d.count() as f32);
        let mean = self.unary(per_value, &self.channel_sum(x, d));
        let centred = self.binary(BinaryOp::Sub, x, &full, &mean, &ch, &full);
        let squares = self.binary(BinaryOp::Mul, &centred, &full, &centred, &full, &full);
        let var = self.unary(per_value, &self.channel_sum(&squares, d));
        let c = [d.c];
        let scale = self.binary(BinaryOp::Mul, gamma, &c, &inv_std(self, &var, eps), &c, &c);
        let y = self.binary(BinaryOp::Mul, &centred, &full, &scale, &ch, &full);
        let y = self.binary(BinaryOp::Add, &y, &full, beta, &ch, &full);
        let y = if relu {
            self.unary(UnaryOp::Relu, &y)
        } else {
            y
        };
        let [run_mean, run_var] = fold_running(self, running, &mean, &var, d);
        [y, mean, var, run_mean, run_var]
    }
    /// A training batch norm of a convolution's output: `conv2d(x, w)` (no bias) and
    /// [`Backend::batch_norm_train`] of it, as [conv output, y, mean, var, running mean,
    /// running var]. This default runs the two; the GPU has the convolution write each
    /// output tile's per-channel moments as it stores the tile and makes the statistics from
    /// those, so that the normalisation is the only pass over the output.
    #[allow(clippy::too_many_arguments)]
    fn conv2d_batch_norm_train(
        &self,
        x: &Self::Buf,
        w: &Self::Buf,
        gamma: &Self::Buf,
        beta: &Self::Buf,
        running: Running<'_, Self::Buf>,
        relu: bool,
        d: ConvDims,
        eps: f32,
    ) -> [Self::Buf; 6] {
        conv_then_batch_norm(self, x, w, gamma, beta, running, relu, d, eps)
    }
    /// The backward of [`Backend::batch_norm_train`] from the output gradient `g`, with
    /// x^ = (x - mean) / sqrt(var + eps) and m = n plane values per channel:
    /// dbeta = sum g, dgamma = sum g x^, dx = gamma / sqrt(var + eps) (g - dbeta/m - x^ dgamma/m).
    /// `relu_out`: the forward's output where it applied a ReLU; g passes only where that is
    /// positive. Returns [dx, dgamma, dbeta].
    #[allow(clippy::too_many_arguments)]
    fn batch_norm_train_grad(
        &self,
        x: &Self::Buf,
        g: &Self::Buf,
        relu_out: Option<&Self::Buf>,
        mean: &Self::Buf,
        var: &Self::Buf,
        gamma: &Self::Buf,
        d: NormDims,
        eps: f32,
    ) -> [Self::Buf; 3] {
        let (full, ch) = d.shapes();
        let masked;
        let g = match relu_out {
            Some(y) => {
                masked = self.binary(BinaryOp::ReluGrad, y, &full, g, &full, &full);
                &masked
            }
            None => g,
        };
        let c = [d.c];
        let per_value = UnaryOp::MulScalar(1.0 / d.count() as f32);
        let inv_std = inv_std(self, var, eps);
        let centred = self.binary(BinaryOp::Sub, x, &full, mean, &ch, &full);
        let xhat = self.binary(BinaryOp::Mul, &centred, &full, &inv_std, &ch, &full);
        let dbeta = self.channel_sum(g, d);
        let g_xhat = self.binary(BinaryOp::Mul, g, &full, &xhat, &full, &full);
        let dgamma = self.channel_sum(&g_xhat, d);
        let mean_g = self.unary(per_value, &dbeta);
        let centred_g = self.binary(BinaryOp::Sub, g, &full, &mean_g, &ch, &full);
        let mean_g_xhat = self.unary(per_value, &dgamma);
        let along_xhat = self.binary(BinaryOp::Mul, &xhat, &full, &mean_g_xhat, &ch, &full);
        let centred_g = self.binary(BinaryOp::Sub, &centred_g, &full, &along_xhat, &full, &full);
        let scale = self.binary(BinaryOp::Mul, gamma, &c, &inv_std, &c, &c);
        let dx = self.binary(BinaryOp::Mul, &centred_g, &full, &scale, &ch, &full);
        [dx, dgamma, dbeta]
    }
    /// Gradient of the conv input from the output gradient `g` (n, c_out, ho, wo).
    /// relu?(tap_conv(x, w) + bias? + residual?) (see [`TapDims`]); `residual` shaped like
    /// the output. The CPU backend reads the taps straight into its SGEMM's panels (under the
    /// portable GEMM it composes the primitive kernels, `composed_tap_conv`); the GPU's tiled
    /// product looks each column cell up in the table as it loads its tiles.
    #[allow(clippy::too_many_arguments)]
    fn tap_conv(
        &self,
        x: &Self::Buf,
        w: &Self::Buf,
        bias: Option<&Self::Buf>,
        residual: Option<&Self::Buf>,
        relu: bool,
        d: TapDims,
        table: &[u32],
    ) -> Self::Buf;
    /// The weight gradient of a tap convolution of `x` given the output gradient `g`:
    /// per image g (c_out, cells_out) times its columns transposed, summed over the images.
    /// This default composes the primitive kernels (the CPU's path); the GPU looks the
    /// columns up in its product.
    fn tap_conv_grad_weight(
        &self,
        x: &Self::Buf,
        g: &Self::Buf,
        d: TapDims,
        table: &[u32],
    ) -> Self::Buf {
        let columns = tap_columns(self, x, d, table);
        let dims = MatmulDims {
            batch_a: d.n,
            batch_b: d.n,
            m: d.c_out,
            k: d.cells_out,
            n: d.patch(),
            trans_a: false,
            trans_b: true,
        };
        let per_image = self.matmul(g, &columns, dims);
        self.sum_axis(&per_image, 1, d.n, d.c_out * d.patch())
    }
    fn conv2d_grad_input(&self, g: &Self::Buf, w: &Self::Buf, d: ConvDims) -> Self::Buf;
    /// Gradient of the conv weight from the input and the output gradient.
    fn conv2d_grad_weight(&self, x: &Self::Buf, g: &Self::Buf, d: ConvDims) -> Self::Buf;
    /// One optimizer step on a parameter: returns the new `w` and state buffers (`s1`: momentum
    /// or Adam's first moment; `s2`: Adam's second moment, returned unchanged by SGD).
    fn optim_step(
        &self,
        step: OptimStep,
        w: &Self::Buf,
        g: &Self::Buf,
        s1: &Self::Buf,
        s2: &Self::Buf,
    ) -> [Self::Buf; 3];
    /// One optimizer step on many parameters: for each [w, g, s1, s2], the new [w, s1, s2].
    /// This default steps each in turn; the GPU runs one kernel for all of them.
    fn optim_step_all(&self, step: OptimStep, params: &[[&Self::Buf; 4]]) -> Vec<[Self::Buf; 3]> {
        params
            .iter()
            .map(|&[w, g, s1, s2]| self.optim_step(step, w, g, s1, s2))
            .collect()
    }
    /// [`Backend::optim_step_all`] on gradients scaled by a loss scale: each is multiplied by
    /// `unscale` (the scale's inverse) as the step reads it, and the step is taken only where
    /// every gradient entry is finite; where one is not, each parameter and state comes back
    /// as it was. Also returns the check, one value: the sum of the scaled gradients, finite
    /// exactly when the step was taken. This default reads the gradients back to decide
    /// (the CPU's are its memory); the GPU decides on the device, without a wait.
    fn optim_step_all_scaled(
        &self,
        step: OptimStep,
        params: &[[&Self::Buf; 4]],
        unscale: f32,
    ) -> (Vec<[Self::Buf; 3]>, Self::Buf) {
        let sum: f32 = params
            .iter()
            .map(|p| self.download(p[1]).iter().sum::<f32>())
            .sum();
        let check = self.upload(&[sum]);
        if !sum.is_finite() {
            let kept = params
                .iter()
                .map(|&[w, _, s1, s2]| [w, s1, s2].map(Clone::clone));
            return (kept.collect(), check);
        }
        let unscaled: Vec<Self::Buf> = params
            .iter()
            .map(|p| self.unary(UnaryOp::MulScalar(unscale), p[1]))
            .collect();
        let params: Vec<[&Self::Buf; 4]> = params
            .iter()
            .zip(&unscaled)
            .map(|(&[w, _, s1, s2], g)| [w, g, s1, s2])
            .collect();
        (self.optim_step_all(step, &params), check)
    }
}
