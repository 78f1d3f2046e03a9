//! Convolution as a matrix product: out (c_out x pixels) = W (c_out x c_in*kh*kw) * B, where
//! B has a row per kernel tap (c_in, ky, kx) and a column per output pixel.
//!
//! On our kernels the board networks' 3x3 convolutions run without B, as direct convolutions
//! (`direct`); other convolutions that keep the image's size read B straight from zero-bordered
//! images into the SGEMM's panels (`bordered`). A size-keeping convolution's input gradient is
//! the same kind of convolution (flipped kernel). Other shapes and the portable path build B as
//! a column matrix (`columns`).

use super::CpuBuf;
use super::gemm::{self, Kernel, OutLayout, PackedA, Panels, Store, Strided, gemm, tile_shape};
use crate::backend::ConvDims;
use bordered::Bordered;
use columns::{col2im, columns, is_pointwise, patch_len};
use direct::DirectWeights;
use rayon::prelude::*;
use std::sync::{Arc, Mutex, PoisonError, Weak};

mod bordered;
mod columns;
mod direct;
pub(crate) mod taps;

/// Multiply-adds of one image's product from which a batch smaller than the thread pool
/// splits each image's product across the threads (az-small's 64-channel 3x3 conv has
/// 2.4 M, az-tiny's 32-channel one 0.6 M, too few to pay for the hand-off).
const SPLIT_MIN_MACS: usize = 1 << 20;

/// Images whose columns go into one product at most: one product over several images packs
/// the weights once instead of once per image (a board's image is only 64 columns wide). More
/// than 4 makes the group's column matrix outgrow the core's cache (az-tiny's is 74 KB an
/// image): 16 measured up to 1.4x slower at batch 64 (docs/RESULTS.md).
const MAX_GROUP: usize = 4;

/// relu?(conv(x, w) + bias? + residual?) on the selected kernel. Our kernels take the weights
/// packed, and kept while the buffer lives ([`cached`]), so a model's weights are packed once,
/// not once a call.
pub fn forward(
    x: &[f32],
    w: &CpuBuf,
    bias: Option<&[f32]>,
    residual: Option<&[f32]>,
    relu: bool,
    d: ConvDims,
) -> CpuBuf {
    let kernel = Kernel::selected();
    let packed = kernel.is_ours().then(|| cached(kernel, w, &d));
    let w = Weights {
        rows: w.as_slice(),
        packed: packed.as_deref(),
    };
    forward_on(kernel, x, w, bias, residual, relu, d)
}

/// Whether `d` keeps the image's size: stride 1 and an output as large as its input (an odd
/// kernel with padding `(k - 1) / 2`).
fn keeps_size(d: &ConvDims) -> bool {
    d.unit_stride() && d.out_h() == d.h && d.out_w() == d.w
}

/// A convolution's weights packed for one of our kernels: for the direct convolution, or as
/// the SGEMM's A.
pub(crate) enum Packing {
    Direct(DirectWeights),
    Gemm(PackedA),
    /// bf16 tiles for AMX (tap convolutions at mixed precision).
    Amx(super::amx::PackedA),
}

impl Packing {
    /// `w` (c_out rows of a patch) packed for the path `kernel` (one of ours) takes for `d`.
    fn new(kernel: Kernel, w: &[f32], d: &ConvDims) -> Packing {
        if direct::serves(kernel, d) {
            Packing::Direct(DirectWeights::new(kernel, w, (d.c_out, d.c_in)))
        } else {
            let k = patch_len(d);
            Packing::Gemm(PackedA::new(kernel, (d.c_out, k), w, (k, 1)))
        }
    }

    fn fits(&self, kernel: Kernel, d: &ConvDims) -> bool {
        match self {
            Packing::Direct(p) => p.fits(kernel, (d.c_out, d.c_in)),
            Packing::Gemm(p) => p.fits(kernel, (d.c_out, patch_len(d))),
            Packing::Amx(_) => false,
        }
    }
}

/// What a forward adds to its products: the bias, the images' residual and the ReLU.
#[derive(Clone, Copy)]
struct Epilogue<'a> {
    bias: Option<&'a [f32]>,
    /// The whole batch's residual (n, c_out, cells).
    residual: Option<&'a [f32]>,
    relu: bool,
}

/// Packed weights kept for a weight buffer while it lives: inference, whose weights (batch
/// norm folded in) are one buffer a model version, packs them once, which at batch 1 costs a
/// third of a 64-channel convolution. A training step's weights are new buffers each step.
type PackCache = Vec<(Weak<Vec<f32>>, Arc<Packing>)>;

/// The most buffers whose packed weights are kept (two networks' convolutions in a match or
/// gating, with room to spare).
const PACK_CACHE: usize = 128;

/// `w` packed for `kernel` and `d`: the packing kept for it, or a new one, then kept.
fn cached(kernel: Kernel, w: &CpuBuf, d: &ConvDims) -> Arc<Packing> {
    cached_as(
        w,
        |p| p.fits(kernel, d),
        || Packing::new(kernel, w.as_slice(), d),
    )
}

/// The packing kept for `w` that `fits`, or `make`'s, then kept.
fn cached_as(
    w: &CpuBuf,
    fits: impl Fn(&Packing) -> bool,
    make: impl FnOnce() -> Packing,
) -> Arc<Packing> {
    static CACHE: Mutex<PackCache> = Mutex::new(Vec::new());
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    // A Weak keeps its allocation, so a live entry's pointer is never another buffer's.
    cache.retain(|(buf, _)| buf.strong_count() > 0);
    let me = Arc::downgrade(&w.0);
    if let Some((_, p)) = cache.iter().find(|(buf, p)| buf.ptr_eq(&me) && fits(p)) {
        return p.clone();
    }
    let packed = Arc::new(make());
    if cache.len() == PACK_CACHE {
        cache.remove(0);
    }
    cache.push((me, packed.clone()));
    packed
}

/// A convolution's weights (c_out rows of a patch each), and packed for our kernel if it is one.
#[derive(Clone, Copy)]
pub(crate) struct Weights<'a> {
    rows: &'a [f32],
    packed: Option<&'a Packing>,
}

/// [`forward`] on a given kernel. Each task takes a group of images (the batch shared out over
/// the threads, at most `MAX_GROUP` a group) and computes them in one product; but a batch with
/// fewer images than threads (batch 1 in play and analysis) splits each large image's product
/// by output channels instead, so every core works on it. Each output cell is computed alike
/// either way, so the results do not depend on the split.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward_on(
    kernel: Kernel,
    x: &[f32],
    w: Weights,
    bias: Option<&[f32]>,
    residual: Option<&[f32]>,
    relu: bool,
    d: ConvDims,
) -> CpuBuf {
    // Our kernels read the weights packed (once a call for every task, if not given).
    let made = (kernel.is_ours() && w.packed.is_none()).then(|| Packing::new(kernel, w.rows, &d));
    let packed = match w.packed.or(made.as_ref()) {
        Some(Packing::Direct(dw)) => {
            let epi = Epilogue {
                bias,
                residual,
                relu,
            };
            return CpuBuf::new(direct::forward(dw, x, epi, &d));
        }
        Some(Packing::Gemm(p)) => Some(p),
        Some(Packing::Amx(_)) => unreachable!("a grid convolution's weights are not AMX tiles"),
        None => None,
    };
    let pixels = d.out_h() * d.out_w();
    let k = patch_len(&d);
    let image = d.c_out * pixels;
    let mut out = vec![0.0f32; d.n * image];
    let threads = rayon::current_num_threads().max(1);
    // Our kernels write a group's images in place, which needs every tile inside one image.
    let one_image = kernel.is_ours() && !pixels.is_multiple_of(tile_shape(kernel).1);
    let max_group = if one_image { 1 } else { MAX_GROUP };
    let group = d.n.div_ceil(threads).clamp(1, max_group);
    let rows = |images: std::ops::Range<usize>, c: std::ops::Range<usize>| ConvRows {
        packed: packed.map(|p| (p, c.clone())),
        w: &w.rows[c.start * k..c.end * k],
        bias: bias.map(|b| &b[c.clone()]),
        residual: residual.map(|r| {
            &r[images.start * image + c.start * pixels..(images.end - 1) * image + c.end * pixels]
        }),
        relu,
        k,
        pixels,
    };
    if d.n < threads && d.c_out * k * pixels >= SPLIT_MIN_MACS {
        // Whole tiles of the kernel's rows a task.
        let per_task = d
            .c_out
            .div_ceil(threads)
            .next_multiple_of(tile_shape(kernel).0);
        let mut scratch = Vec::new();
        for (i, dst) in out.chunks_mut(image).enumerate() {
            let op = Operand::new(kernel, x, i..i + 1, &d, &mut scratch);
            dst.par_chunks_mut(per_task * pixels)
                .enumerate()
                .for_each(|(t, part)| {
                    let c = t * per_task..t * per_task + part.len() / pixels;
                    rows(i..i + 1, c).compute(&op, part, &mut Vec::new());
                });
        }
    } else {
        out.par_chunks_mut(group * image).enumerate().for_each_init(
            || (Vec::new(), Vec::new()),
            |(scratch, product), (j, dst)| {
                let images = j * group..j * group + dst.len() / image;
                let op = Operand::new(kernel, x, images.clone(), &d, scratch);
                rows(images, 0..d.c_out).compute(&op, dst, product);
            },
        );
    }
    CpuBuf::new(out)
}

/// B of a group's product: the column matrix, or (on our kernels, for a convolution that keeps
/// the image's size) the bordered images, read straight into the panels.
enum Operand<'a> {
    Columns(&'a [f32]),
    Bordered(Bordered<'a>),
    Taps(taps::TapPanels<'a>),
}

impl<'a> Operand<'a> {
    fn new(
        kernel: Kernel,
        x: &'a [f32],
        images: std::ops::Range<usize>,
        d: &ConvDims,
        scratch: &'a mut Vec<f32>,
    ) -> Self {
        if kernel.is_ours() && keeps_size(d) {
            Operand::Bordered(Bordered::new(x, images, d, scratch))
        } else {
            Operand::Columns(columns(x, images, d, scratch))
        }
    }
}

/// Some output channels of some images' convolution: their weight rows, bias and residual.
struct ConvRows<'a> {
    /// On our kernels: the packed weights of every channel, and these channels' rows.
    packed: Option<(&'a PackedA, std::ops::Range<usize>)>,
    w: &'a [f32],
    bias: Option<&'a [f32]>,
    /// The images' residual, from the first channel of the first image on.
    residual: Option<&'a [f32]>,
    relu: bool,
    k: usize,
    pixels: usize,
}

impl ConvRows<'_> {
    /// Writes the channels of the images into `dst` (images x channels x pixels). Our kernels
    /// write `dst` in place, the ReLU in their store. On the portable path one image's product
    /// is `dst` itself; several images' product (channels x images*pixels) is made in
    /// `product` and copied out.
    fn compute(&self, op: &Operand, dst: &mut [f32], product: &mut Vec<f32>) {
        let channels = self.w.len() / self.k;
        let pixels = self.pixels;
        let images = dst.len() / (channels * pixels);
        let n = images * pixels;
        let accumulate = self.bias.is_some() || self.residual.is_some();
        if let Some((packed, ref rows)) = self.packed {
            self.prefill(dst, images, |g, ch| (g * channels + ch) * pixels);
            let strided;
            let panels: &dyn Panels = match op {
                Operand::Columns(cols) => {
                    strided = Strided {
                        b: cols,
                        rs: n,
                        cs: 1,
                    };
                    &strided
                }
                Operand::Bordered(b) => b,
                Operand::Taps(t) => t,
            };
            let out = OutLayout {
                ldc: pixels,
                block: pixels,
                block_stride: channels * pixels,
            };
            let store = Store {
                accumulate,
                relu: self.relu,
            };
            gemm::product(packed, rows.clone(), (panels, n), dst, out, store);
            return;
        }
        let Operand::Columns(cols) = op else {
            unreachable!("the portable path reads a column matrix")
        };
        let c: &mut [f32] = if images == 1 {
            dst
        } else {
            product.resize(channels * n, 0.0);
            product
        };
        self.prefill(c, images, |g, ch| ch * n + g * pixels);
        let k = self.k;
        gemm(
            Kernel::Portable,
            channels,
            k,
            n,
            self.w,
            (k, 1),
            cols,
            (n, 1),
            c,
            accumulate,
        );
        if images == 1 {
            if self.relu {
                dst.iter_mut().for_each(|v| *v = v.max(0.0));
            }
            return;
        }
        for (g, out) in dst.chunks_mut(channels * pixels).enumerate() {
            for (ch, row) in out.chunks_mut(pixels).enumerate() {
                let src = &product[ch * n + g * pixels..][..pixels];
                if self.relu {
                    row.iter_mut().zip(src).for_each(|(o, &v)| *o = v.max(0.0));
                } else {
                    row.copy_from_slice(src);
                }
            }
        }
    }

    /// Puts the bias and residual into `c`, image `g`'s channel `ch` from `at(g, ch)`, for the
    /// product to accumulate onto, so every cell sums in the same order however the images
    /// are grouped.
    fn prefill(&self, c: &mut [f32], images: usize, at: impl Fn(usize, usize) -> usize) {
        let pixels = self.pixels;
        let channels = self.w.len() / self.k;
        for g in 0..images {
            for ch in 0..channels {
                let row = &mut c[at(g, ch)..][..pixels];
                if let Some(r) = self.residual {
                    row.copy_from_slice(&r[(g * channels + ch) * pixels..][..pixels]);
                }
                match (self.bias, self.residual) {
                    (Some(b), Some(_)) => row.iter_mut().for_each(|v| *v += b[ch]),
                    (Some(b), None) => row.fill(b[ch]),
                    (None, _) => {}
                }
            }
        }
    }
}

pub fn grad_input(g: &[f32], w: &[f32], d: ConvDims) -> CpuBuf {
    grad_input_on(Kernel::selected(), g, w, d)
}

pub(crate) fn grad_input_on(kernel: Kernel, g: &[f32], w: &[f32], d: ConvDims) -> CpuBuf {
    let pixels = d.out_h() * d.out_w();
    let k = patch_len(&d);
    // A size-keeping convolution's transpose is the convolution of the output gradient with
    // the kernel flipped and its channel axes swapped.
    if keeps_size(&d) {
        // flipped[ci][co][ky][kx] = w[co][ci][kh-1-ky][kw-1-kx]
        let taps = d.kh * d.kw;
        let mut flipped = vec![0.0f32; w.len()];
        for (co, filter) in w.chunks_exact(k).enumerate() {
            for (ci, kernel) in filter.chunks_exact(taps).enumerate() {
                let dst = &mut flipped[(ci * d.c_out + co) * taps..][..taps];
                dst.iter_mut()
                    .zip(kernel.iter().rev())
                    .for_each(|(o, &v)| *o = v);
            }
        }
        let back = ConvDims {
            c_in: d.c_out,
            c_out: d.c_in,
            ..d
        };
        let w = Weights {
            rows: &flipped,
            packed: None,
        };
        return forward_on(kernel, g, w, None, None, false, back);
    }
    let image = d.c_in * d.h * d.w;
    let mut out = vec![0.0f32; d.n * image];
    out.par_chunks_mut(image).enumerate().for_each_init(
        Vec::new,
        |scratch: &mut Vec<f32>, (i, dst)| {
            let gi = &g[i * d.c_out * pixels..(i + 1) * d.c_out * pixels];
            // The column matrix's gradient W^T g: for a pointwise conv, dx itself.
            let product = |out: &mut [f32]| {
                gemm(
                    kernel,
                    k,
                    d.c_out,
                    pixels,
                    w,
                    (1, k),
                    gi,
                    (pixels, 1),
                    out,
                    false,
                )
            };
            if is_pointwise(&d) {
                product(dst);
                return;
            }
            scratch.resize(k * pixels, 0.0);
            product(scratch);
            col2im(scratch, &d, dst);
        },
    );
    CpuBuf::new(out)
}

/// The output gradient of some images as B (image pixels x output channels) of the weight
/// gradient's product: row (g, q), column co is g's gradient at (co, q).
struct OutputGrad<'a> {
    g: &'a [f32],
    c_out: usize,
    pixels: usize,
}

impl Panels for OutputGrad<'_> {
    fn pack(
        &self,
        k: std::ops::Range<usize>,
        cols: std::ops::Range<usize>,
        nr: usize,
        dst: &mut [f32],
    ) {
        let image = self.c_out * self.pixels;
        let width = cols.len();
        for (p, row) in k.zip(dst.chunks_exact_mut(nr)) {
            let (g, q) = (p / self.pixels, p % self.pixels);
            let src = self.g[g * image + cols.start * self.pixels + q..]
                .iter()
                .step_by(self.pixels);
            row[..width].iter_mut().zip(src).for_each(|(o, &v)| *o = v);
            row[width..].fill(0.0);
        }
    }
}

/// The batch's images shared out over the threads, each task summing its images into an
/// accumulator of its own (`len` zeros to start) with `add(images, accumulator)`: the partial
/// sums, in image order, for the caller to add.
fn image_partials(
    n: usize,
    len: usize,
    add: impl Fn(std::ops::Range<usize>, &mut [f32]) + Sync,
) -> Vec<Vec<f32>> {
    let threads = rayon::current_num_threads().max(1);
    let per_task = n.div_ceil(threads).max(1);
    (0..n)
        .step_by(per_task)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|start| {
            let mut acc = vec![0.0f32; len];
            add(start..(start + per_task).min(n), &mut acc);
            acc
        })
        .collect()
}

pub fn grad_weight(x: &[f32], g: &[f32], d: ConvDims) -> CpuBuf {
    grad_weight_on(Kernel::selected(), x, g, d)
}

/// dW = sum over images of g_i (c_out x pixels) * cols_i^T. Each task sums its images'
/// contributions into its own accumulator; then they are added. Our kernels compute the
/// transpose, dW^T (patch x c_out) = cols * g^T, over `MAX_GROUP` images a product: the
/// column matrix's rows are A's rows as they are, and the short B (c_out columns) is packed
/// from the output gradient.
pub(crate) fn grad_weight_on(kernel: Kernel, x: &[f32], g: &[f32], d: ConvDims) -> CpuBuf {
    if direct::serves(kernel, &d) {
        return CpuBuf::new(direct::grad_weight(kernel, x, g, &d));
    }
    let pixels = d.out_h() * d.out_w();
    let k = patch_len(&d);
    let image = d.c_out * pixels;
    let partials = image_partials(d.n, d.c_out * k, |images, acc| {
        let mut scratch = Vec::new();
        if kernel.is_ours() {
            for first in images.clone().step_by(MAX_GROUP) {
                let group = first..(first + MAX_GROUP).min(images.end);
                let cols = columns(x, group.clone(), &d, &mut scratch);
                let n = group.len() * pixels;
                let b = OutputGrad {
                    g: &g[group.start * image..group.end * image],
                    c_out: d.c_out,
                    pixels,
                };
                let store = Store {
                    accumulate: true,
                    relu: false,
                };
                let out = OutLayout::matrix(d.c_out);
                let a = PackedA::new(kernel, (k, n), cols, (n, 1));
                gemm::product(&a, 0..k, (&b, d.c_out), acc, out, store);
            }
            return;
        }
        for i in images {
            let gi = &g[i * image..(i + 1) * image];
            let cols = columns(x, i..i + 1, &d, &mut scratch);
            // dW (c_out x k) += g_i (c_out x pixels) * cols^T (pixels x k)
            let (c_out, dw) = (d.c_out, &mut *acc);
            gemm(
                kernel,
                c_out,
                pixels,
                k,
                gi,
                (pixels, 1),
                cols,
                (1, pixels),
                dw,
                true,
            );
        }
    });
    let mut total = vec![0.0f32; d.c_out * k];
    for p in partials {
        if kernel.is_ours() {
            // p is dW^T: (patch x c_out).
            for (t, row) in p.chunks_exact(d.c_out).enumerate() {
                for (co, v) in row.iter().enumerate() {
                    total[co * k + t] += v;
                }
            }
        } else {
            total.iter_mut().zip(p).for_each(|(t, v)| *t += v);
        }
    }
    CpuBuf::new(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::backend::cpu::test_values as values;

    /// A square kernel with the same padding and stride both ways.
    #[allow(clippy::too_many_arguments)]
    fn dims(
        n: usize,
        c_in: usize,
        (h, w): (usize, usize),
        c_out: usize,
        k: usize,
        pad: usize,
        stride: usize,
    ) -> ConvDims {
        ConvDims {
            n,
            c_in,
            h,
            w,
            c_out,
            kh: k,
            kw: k,
            pad_h: pad,
            pad_w: pad,
            stride_h: stride,
            stride_w: stride,
        }
    }

    fn close(got: &[f32], want: &[f32], terms: usize, what: &str) {
        assert_eq!(got.len(), want.len(), "{what}: length");
        // Sums of `terms` products of values below 2 in size, added in another order.
        let tol = 2e-6 * terms as f32 * 4.0 + 1e-6;
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(
                (g - w).abs() <= tol,
                "{what}: cell {i}: {g} vs {w} (tolerance {tol})"
            );
        }
    }

    /// Every kernel this CPU runs (so an AVX-512 machine tests the AVX2 kernels too) against
    /// the portable path: the forward pass with every epilogue, the input and weight
    /// gradients. Shapes: the direct 3x3 board convolution (batch 1 split over channel
    /// blocks, output channels not a whole number of blocks, more images than a
    /// weight-gradient chunk), rows narrower than an AVX-512 tile, a width no tile divides,
    /// 1x1, 5x5 and strided convolutions; on 1 and 3 threads.
    #[test]
    fn every_supported_kernel_convolves_as_the_portable_path_does() {
        // (n, c_in, h, w, c_out, k, pad, stride)
        let shapes = [
            (1, 5, 8, 8, 70, 3, 1, 1),
            (5, 3, 8, 8, 33, 3, 1, 1),
            (40, 2, 8, 8, 8, 3, 1, 1),
            (3, 2, 8, 4, 9, 3, 1, 1),
            (2, 3, 5, 7, 4, 3, 1, 1),
            (3, 6, 8, 8, 5, 1, 0, 1),
            (2, 3, 8, 8, 4, 5, 2, 1),
            (2, 4, 7, 6, 3, 3, 1, 2),
        ];
        for (n, c_in, h, w, c_out, k, pad, stride) in shapes {
            let d = dims(n, c_in, (h, w), c_out, k, pad, stride);
            let (pixels, patch) = (d.out_h() * d.out_w(), patch_len(&d));
            let x = values(n * c_in * h * w, 1);
            let wt = values(c_out * patch, 2);
            let (bias, residual) = (values(c_out, 3), values(n * c_out * pixels, 4));
            let g = values(n * c_out * pixels, 5);
            let rows = Weights {
                rows: &wt,
                packed: None,
            };
            for threads in [1, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let run = |kernel: Kernel| {
                    pool.install(|| {
                        let mut out = Vec::new();
                        for (b, r, relu) in [
                            (false, false, false),
                            (true, true, true),
                            (true, false, true),
                        ] {
                            let (b, r) = (b.then_some(&bias[..]), r.then_some(&residual[..]));
                            out.push(
                                forward_on(kernel, &x, rows, b, r, relu, d)
                                    .as_slice()
                                    .to_vec(),
                            );
                        }
                        out.push(grad_input_on(kernel, &g, &wt, d).as_slice().to_vec());
                        out.push(grad_weight_on(kernel, &x, &g, d).as_slice().to_vec());
                        out
                    })
                };
                let want = run(Kernel::Portable);
                for kernel in Kernel::supported() {
                    let got = run(kernel);
                    let terms = [patch, patch, patch, c_out * k * k, n * pixels];
                    let names = [
                        "forward",
                        "forward+bias+residual+relu",
                        "forward+bias+relu",
                        "input gradient",
                        "weight gradient",
                    ];
                    for (((got, want), terms), name) in got.iter().zip(&want).zip(terms).zip(names)
                    {
                        close(
                            got,
                            want,
                            terms,
                            &format!("{kernel:?} {d:?} {threads} threads: {name}"),
                        );
                    }
                }
            }
        }
    }

    /// The public forward pass, whose packed weights come from the cache, computes what the
    /// pass given only the weights' rows does, on the first call and on a later one.
    #[test]
    fn cached_packed_weights_compute_what_fresh_ones_do() {
        let kernel = Kernel::selected();
        for k in [1, 3] {
            let d = dims(2, 4, (8, 8), 6, k, k / 2, 1);
            let x = values(2 * 4 * 64, 1);
            let w = CpuBuf::new(values(6 * 4 * k * k, 2));
            let rows = Weights {
                rows: w.as_slice(),
                packed: None,
            };
            let fresh = forward_on(kernel, &x, rows, None, None, true, d);
            for _ in 0..2 {
                assert_eq!(
                    forward(&x, &w, None, None, true, d).as_slice(),
                    fresh.as_slice()
                );
            }
        }
    }

    /// Images grouped into one product come out bit for bit as one image a product: 3x3
    /// "same", strided and pointwise convs, with every epilogue, and a last group cut short
    /// (8 images on 1, 3 and 8 threads: groups of 4, of 3 and of 1).
    #[test]
    fn grouped_images_compute_what_one_image_a_product_does() {
        // (c_in, h, w, c_out, k, pad, stride)
        for (c_in, h, w, c_out, k, pad, stride) in [
            (5, 8, 8, 7, 3, 1, 1),
            (3, 8, 4, 4, 3, 1, 1),
            (4, 7, 6, 3, 3, 1, 2),
            (6, 8, 8, 5, 1, 0, 1),
        ] {
            let d = dims(8, c_in, (h, w), c_out, k, pad, stride);
            let pixels = d.out_h() * d.out_w();
            let x = values(d.n * c_in * h * w, 1);
            let wt = CpuBuf::new(values(c_out * patch_len(&d), 2));
            let (bias, residual) = (values(c_out, 3), values(d.n * c_out * pixels, 4));
            for (b, r, relu) in [
                (false, false, false),
                (true, false, true),
                (true, true, true),
                (false, true, false),
            ] {
                let (b, r) = (b.then_some(&bias[..]), r.then_some(&residual[..]));
                let run = |threads| {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    pool.install(|| forward(&x, &wt, b, r, relu, d).as_slice().to_vec())
                };
                let one = run(8);
                for threads in [1, 3] {
                    assert_eq!(run(threads), one, "{d:?} on {threads} threads");
                }
            }
        }
    }

    /// Batch 1 on several threads splits the image's product by output channels; every cell
    /// comes out as on one thread, whatever the split, with every epilogue.
    #[test]
    fn a_split_product_computes_what_one_thread_does() {
        let d = dims(1, 32, (8, 8), 70, 3, 1, 1);
        assert!(
            d.c_out * patch_len(&d) * 64 >= SPLIT_MIN_MACS,
            "large enough to split"
        );
        let x = values(d.c_in * 64, 1);
        let w = CpuBuf::new(values(d.c_out * patch_len(&d), 2));
        let (bias, residual) = (values(d.c_out, 3), values(d.c_out * 64, 4));
        let on = |threads: usize, b: Option<&[f32]>, r: Option<&[f32]>, relu: bool| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| forward(&x, &w, b, r, relu, d).as_slice().to_vec())
        };
        for (b, r, relu) in [
            (false, false, false),
            (true, false, true),
            (true, true, true),
        ] {
            let (b, r) = (b.then_some(&bias[..]), r.then_some(&residual[..]));
            let one = on(1, b, r, relu);
            for threads in [2, 3, 8] {
                assert_eq!(on(threads, b, r, relu), one, "{threads} threads");
            }
        }
    }
}
