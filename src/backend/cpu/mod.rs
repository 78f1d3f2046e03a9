//! The CPU backend: the reference for the GPU kernels and a fast fallback. Kernels run on the
//! current rayon pool; matrix products go through our packed SGEMM (`gemm`).

pub mod amx;
mod conv;
mod elementwise;
mod gemm;
mod layout;
mod loss;
mod matmul;
mod norm;
mod optim;
mod reduce;

pub use gemm::{KERNEL_VAR, Kernel, fma_peak};
pub use matmul::sgemm_kernel;

use super::{
    Activation, Backend, BinaryOp, ConvDims, LinearDims, MatmulDims, NormDims, OptimStep, Running,
    TapDims, UnaryOp,
};
use std::sync::{Arc, Mutex, PoisonError};

/// A CPU buffer: shared, immutable once made.
#[derive(Clone)]
pub struct CpuBuf(pub(crate) Arc<Vec<f32>>);

impl std::fmt::Debug for CpuBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuBuf(len {})", self.0.len())
    }
}

impl CpuBuf {
    pub(crate) fn new(v: Vec<f32>) -> Self {
        CpuBuf(Arc::new(v))
    }
    pub(crate) fn as_slice(&self) -> &[f32] {
        &self.0
    }
    /// Whether both are the same buffer (not merely equal contents).
    pub(crate) fn same(&self, other: &CpuBuf) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Drop for CpuBuf {
    fn drop(&mut self) {
        // The last holder of a large buffer hands its allocation back for reuse.
        if let Some(v) = Arc::get_mut(&mut self.0)
            && v.capacity() >= RECYCLE_MIN
        {
            let mut kept = RECYCLED.lock().unwrap_or_else(PoisonError::into_inner);
            if kept.len() == RECYCLE_MAX {
                kept.remove(0);
            }
            kept.push(std::mem::take(v));
        }
    }
}

/// Freed allocations of large buffers, kept for the next buffer of their size. A training step
/// frees and allocates the same few sizes of activation many times; given back to the system
/// and faulted in again, their pages cost a tenth of the step in the kernel.
static RECYCLED: Mutex<Vec<Vec<f32>>> = Mutex::new(Vec::new());

/// The least values a buffer has to be kept (1 MB), and the most buffers kept.
const RECYCLE_MIN: usize = 1 << 18;
const RECYCLE_MAX: usize = 32;

/// An empty vector with room for `len` values: a kept allocation of that size if there is one.
fn allocation(len: usize) -> Vec<f32> {
    if len >= RECYCLE_MIN {
        let mut kept = RECYCLED.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(i) = kept.iter().position(|v| v.capacity() == len) {
            let mut v = kept.swap_remove(i);
            v.clear();
            return v;
        }
    }
    Vec::with_capacity(len)
}

/// A buffer of `len` values that `fill` writes, without zeroing it first: zeroing the outputs
/// of the convolutions and batch norms, only to overwrite them, was 5% of a training step.
///
/// # Safety
/// `fill` writes every cell of the slice it is given.
pub(crate) unsafe fn written(
    len: usize,
    fill: impl FnOnce(&mut [std::mem::MaybeUninit<f32>]),
) -> Vec<f32> {
    let mut v = allocation(len);
    fill(&mut v.spare_capacity_mut()[..len]);
    // SAFETY: the first `len` cells were written (the caller's contract).
    unsafe { v.set_len(len) };
    v
}

/// Distinct test values in [-2, 2), `seed` choosing the sequence.
#[cfg(test)]
pub(crate) fn test_values(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 7919 + seed * 104_729) % 1000) as f32 / 250.0 - 2.0)
        .collect()
}

/// Below this many elements an elementwise kernel runs on one thread: splitting costs more.
pub(crate) const PAR_MIN: usize = 1 << 15;

#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu;

impl Backend for Cpu {
    type Buf = CpuBuf;

    fn upload(&self, data: &[f32]) -> CpuBuf {
        CpuBuf::new(data.to_vec())
    }
    fn download(&self, buf: &CpuBuf) -> Vec<f32> {
        buf.0.to_vec()
    }
    fn filled(&self, len: usize, value: f32) -> CpuBuf {
        CpuBuf::new(vec![value; len])
    }
    fn len(&self, buf: &CpuBuf) -> usize {
        buf.0.len()
    }
    fn unary(&self, op: UnaryOp, x: &CpuBuf) -> CpuBuf {
        elementwise::unary(op, x.as_slice())
    }
    fn binary(
        &self,
        op: BinaryOp,
        a: &CpuBuf,
        a_shape: &[usize],
        b: &CpuBuf,
        b_shape: &[usize],
        out: &[usize],
    ) -> CpuBuf {
        elementwise::binary(op, a.as_slice(), a_shape, b.as_slice(), b_shape, out)
    }
    fn sum_axis(&self, x: &CpuBuf, outer: usize, n: usize, inner: usize) -> CpuBuf {
        reduce::sum_axis(x.as_slice(), outer, n, inner)
    }
    fn softmax(&self, x: &CpuBuf, rows: usize, cols: usize, log: bool) -> CpuBuf {
        reduce::softmax(x.as_slice(), rows, cols, log)
    }
    fn softmax_xent(
        &self,
        z: &CpuBuf,
        t: &CpuBuf,
        rows: usize,
        cols: usize,
        scale: f32,
    ) -> [CpuBuf; 2] {
        loss::softmax_xent(z.as_slice(), t.as_slice(), rows, cols, scale)
    }
    fn squared_error(&self, p: &CpuBuf, t: &CpuBuf, scale: f32) -> [CpuBuf; 2] {
        loss::squared_error(p.as_slice(), t.as_slice(), scale)
    }
    fn matmul(&self, a: &CpuBuf, b: &CpuBuf, dims: MatmulDims) -> CpuBuf {
        matmul::matmul(a.as_slice(), b.as_slice(), dims)
    }
    fn linear(
        &self,
        x: &CpuBuf,
        w: &CpuBuf,
        bias: Option<&CpuBuf>,
        act: Option<Activation>,
        d: LinearDims,
    ) -> CpuBuf {
        let bias = bias.map(|b| b.as_slice());
        matmul::linear(x.as_slice(), w.as_slice(), bias, act, d)
    }
    fn permute(&self, x: &CpuBuf, shape: &[usize], perm: &[usize]) -> CpuBuf {
        layout::permute(x.as_slice(), shape, perm)
    }
    fn pad2d(
        &self,
        x: &CpuBuf,
        planes: usize,
        h: usize,
        w: usize,
        pads: [i32; 4],
        value: f32,
    ) -> CpuBuf {
        layout::pad2d(x.as_slice(), planes, h, w, pads, value)
    }
    fn gather_cols(&self, x: &CpuBuf, rows: usize, cols: usize, index: &[u32]) -> CpuBuf {
        layout::gather_cols(x.as_slice(), rows, cols, index)
    }
    fn scatter_cols(&self, g: &CpuBuf, rows: usize, cols: usize, index: &[u32]) -> CpuBuf {
        layout::scatter_cols(g.as_slice(), rows, cols, index)
    }
    fn conv2d(&self, x: &CpuBuf, w: &CpuBuf, bias: Option<&CpuBuf>, d: ConvDims) -> CpuBuf {
        conv::forward(x.as_slice(), w, bias.map(|b| b.as_slice()), None, false, d)
    }
    fn conv2d_add_relu(
        &self,
        x: &CpuBuf,
        w: &CpuBuf,
        bias: &CpuBuf,
        residual: Option<&CpuBuf>,
        relu: bool,
        d: ConvDims,
    ) -> CpuBuf {
        let residual = residual.map(|r| r.as_slice());
        conv::forward(x.as_slice(), w, Some(bias.as_slice()), residual, relu, d)
    }
    fn tap_conv(
        &self,
        x: &CpuBuf,
        w: &CpuBuf,
        bias: Option<&CpuBuf>,
        residual: Option<&CpuBuf>,
        relu: bool,
        d: TapDims,
        table: &[u32],
    ) -> CpuBuf {
        let kernel = Kernel::selected();
        if !kernel.is_ours() {
            return super::composed_tap_conv(self, x, w, bias, residual, relu, d, table);
        }
        let (bias, residual) = (bias.map(|b| b.as_slice()), residual.map(|r| r.as_slice()));
        conv::taps::forward(kernel, x.as_slice(), w, bias, residual, relu, d, table)
    }
    fn batch_norm_train(
        &self,
        x: &CpuBuf,
        gamma: &CpuBuf,
        beta: &CpuBuf,
        running: Running<'_, CpuBuf>,
        relu: bool,
        d: NormDims,
        eps: f32,
    ) -> [CpuBuf; 5] {
        let [x, gamma, beta] = [x, gamma, beta].map(CpuBuf::as_slice);
        let [y, mean, var] = norm::train(x, gamma, beta, relu, d, eps);
        let [run_mean, run_var] = super::fold_running(self, running, &mean, &var, d);
        [y, mean, var, run_mean, run_var]
    }
    fn batch_norm_train_grad(
        &self,
        x: &CpuBuf,
        g: &CpuBuf,
        relu_out: Option<&CpuBuf>,
        mean: &CpuBuf,
        var: &CpuBuf,
        gamma: &CpuBuf,
        d: NormDims,
        eps: f32,
    ) -> [CpuBuf; 3] {
        let [x, g, mean, var, gamma] = [x, g, mean, var, gamma].map(CpuBuf::as_slice);
        norm::train_grad(
            x,
            g,
            relu_out.map(CpuBuf::as_slice),
            mean,
            var,
            gamma,
            d,
            eps,
        )
    }
    fn conv2d_grad_input(&self, g: &CpuBuf, w: &CpuBuf, d: ConvDims) -> CpuBuf {
        conv::grad_input(g.as_slice(), w.as_slice(), d)
    }
    fn conv2d_grad_weight(&self, x: &CpuBuf, g: &CpuBuf, d: ConvDims) -> CpuBuf {
        conv::grad_weight(x.as_slice(), g.as_slice(), d)
    }
    fn optim_step(
        &self,
        step: OptimStep,
        w: &CpuBuf,
        g: &CpuBuf,
        s1: &CpuBuf,
        s2: &CpuBuf,
    ) -> [CpuBuf; 3] {
        optim::step(step, w, g, s1, s2)
    }
}
