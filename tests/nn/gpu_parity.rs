//! The GPU backend against the CPU reference: every tensor op, forward and backward, on
//! random inputs with odd sizes (so GEMM tiles and workgroups are partly filled).
//!
//! Runs on any wgpu adapter, the software one (Mesa lavapipe) included. Without an adapter
//! the tests skip with a note, unless CHECKERS_ZERO_REQUIRE_ALL=1, where they fail.
//!
//! Comparisons: `Elem` is |a-b| <= max(rtol max(|a|,|b|), atol) per element; `Norm` is
//! ||a-b|| <= rel ||a|| over the whole tensor, for results whose summation order differs
//! between the backends (products, convolutions, reductions), where single elements near
//! zero may carry the rounding of large terms that cancelled.

use crate::common;
use checkers_zero::backend::gpu::{SUBMIT_EVERY, TileShape, WinogradChoice};
use checkers_zero::backend::{Activation, OptimStep};
use checkers_zero::net::ValueModel;
use checkers_zero::net::towers::{TowerArch, TowerNet};
use checkers_zero::nn::{Architecture, Ctx, Module, NetPreset, PolicyValueNet};
use checkers_zero::tensor::{Device, DeviceChoice, RunningStats, Tape, Tensor, Var};
use common::on_gpu;
use rand::SeedableRng;
use rand::rngs::StdRng;
#[derive(Clone, Copy, Debug)]
pub(super) enum Tol {
    Elem { rtol: f32, atol: f32 },
    Norm(f32),
}

pub(super) fn assert_close(what: &str, cpu: &[f32], gpu: &[f32], tol: Tol) {
    assert_eq!(cpu.len(), gpu.len(), "{what}: lengths differ");
    match tol {
        Tol::Elem { rtol, atol } => {
            for (i, (&a, &b)) in cpu.iter().zip(gpu).enumerate() {
                let ok = (a - b).abs() <= (rtol * a.abs().max(b.abs())).max(atol)
                    || (a.is_nan() && b.is_nan());
                assert!(ok, "{what}[{i}]: cpu {a} vs gpu {b} ({tol:?})");
            }
        }
        Tol::Norm(rel) => {
            let diff = cpu
                .iter()
                .zip(gpu)
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f32>()
                .sqrt();
            let norm = cpu.iter().map(|a| a * a).sum::<f32>().sqrt();
            assert!(
                diff <= rel * norm.max(1e-30),
                "{what}: |cpu - gpu| = {diff} vs |cpu| = {norm} ({tol:?})"
            );
        }
    }
}

fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// Standard normal values.
pub(super) fn normal(shape: &[usize], seed: u64) -> Tensor {
    Tensor::randn(shape, 1.0, &mut rng(seed), &Device::Cpu)
}

/// Values in [0.5, 2): safe for log, division and fractional powers.
pub(super) fn positive(shape: &[usize], seed: u64) -> Tensor {
    Tensor::uniform(shape, 0.75, &mut rng(seed), &Device::Cpu).add_scalar(1.25)
}

/// The output, and every input's gradient for a fixed random output gradient, of `f` on
/// tape variables holding `inputs` on `dev`.
fn run(
    dev: &Device,
    inputs: &[&Tensor],
    f: &dyn Fn(&[Var], &Device) -> Var,
) -> (Vec<f32>, Vec<Vec<f32>>) {
    let tape = Tape::new();
    let vars: Vec<Var> = inputs.iter().map(|t| tape.var(t.to_device(dev))).collect();
    let out = f(&vars, dev);
    assert_eq!(
        out.value().device().name(),
        dev.name(),
        "the op ran on the wrong device"
    );
    let upstream = normal(out.shape(), 99).to_device(dev);
    let grads = out.backward_with(upstream);
    let grads = vars
        .iter()
        .map(|v| grads.get(v).map(Tensor::to_vec).unwrap_or_default())
        .collect();
    (out.value().to_vec(), grads)
}

/// Runs `f` on both devices and compares the values (`value_tol`) and gradients (`grad_tol`).
fn parity(
    gpu: &Device,
    name: &str,
    inputs: &[&Tensor],
    value_tol: Tol,
    grad_tol: Tol,
    f: impl Fn(&[Var], &Device) -> Var,
) {
    let (cpu_value, cpu_grads) = run(&Device::Cpu, inputs, &f);
    let (gpu_value, gpu_grads) = run(gpu, inputs, &f);
    assert_close(&format!("{name} value"), &cpu_value, &gpu_value, value_tol);
    for (i, (c, g)) in cpu_grads.iter().zip(&gpu_grads).enumerate() {
        assert_close(&format!("{name} grad of input {i}"), c, g, grad_tol);
    }
}

/// Exact IEEE ops (+ - * and copies) may differ only by contraction into fused multiply-adds.
const EXACTISH: Tol = Tol::Elem {
    rtol: 1e-6,
    atol: 1e-7,
};
/// Vulkan lets exp, log, pow, tanh and division be off by a few ULP (log by 2^-21 absolute
/// near 1), and their gradients compound two or three such ops.
const TRANSCENDENTAL: Tol = Tol::Elem {
    rtol: 2e-5,
    atol: 2e-6,
};
/// Sums of tens to hundreds of terms in another order: ~sqrt(k) ULP relative to the norm.
pub(super) const SUMMED: Tol = Tol::Norm(2e-6);

#[test]
fn unary_ops() {
    on_gpu(|gpu| {
        let x = normal(&[7, 13], 1);
        let pos = positive(&[7, 13], 2);
        parity(gpu, "neg", &[&x], EXACTISH, EXACTISH, |v, _| v[0].neg());
        parity(gpu, "relu", &[&x], EXACTISH, EXACTISH, |v, _| v[0].relu());
        parity(gpu, "add_scalar", &[&x], EXACTISH, EXACTISH, |v, _| {
            v[0].add_scalar(0.37)
        });
        parity(gpu, "mul_scalar", &[&x], EXACTISH, EXACTISH, |v, _| {
            v[0].mul_scalar(-1.7)
        });
        parity(gpu, "exp", &[&x], TRANSCENDENTAL, TRANSCENDENTAL, |v, _| {
            v[0].exp()
        });
        parity(
            gpu,
            "log",
            &[&pos],
            TRANSCENDENTAL,
            TRANSCENDENTAL,
            |v, _| v[0].log(),
        );
        parity(
            gpu,
            "tanh",
            &[&x.mul_scalar(3.0)],
            TRANSCENDENTAL,
            TRANSCENDENTAL,
            |v, _| v[0].tanh(),
        );
        parity(
            gpu,
            "sigmoid",
            &[&x.mul_scalar(3.0)],
            TRANSCENDENTAL,
            TRANSCENDENTAL,
            |v, _| v[0].sigmoid(),
        );
        // Integer powers of signed bases take the sign of odd powers (the backward of x^3 is
        // 3 x^2; of x^2 it is 2 x^1).
        parity(
            gpu,
            "pow_scalar 3",
            &[&x],
            TRANSCENDENTAL,
            TRANSCENDENTAL,
            |v, _| v[0].pow_scalar(3.0),
        );
        parity(
            gpu,
            "pow_scalar 2",
            &[&x],
            TRANSCENDENTAL,
            TRANSCENDENTAL,
            |v, _| v[0].pow_scalar(2.0),
        );
        parity(
            gpu,
            "pow_scalar -0.5",
            &[&pos],
            TRANSCENDENTAL,
            TRANSCENDENTAL,
            |v, _| v[0].pow_scalar(-0.5),
        );
        // Large inputs saturate instead of overflowing.
        let big = Tensor::from_vec(vec![-100.0, -20.0, 0.0, 20.0, 100.0], &[5], &Device::Cpu);
        parity(
            gpu,
            "tanh saturates",
            &[&big],
            TRANSCENDENTAL,
            TRANSCENDENTAL,
            |v, _| v[0].tanh(),
        );
        parity(
            gpu,
            "sigmoid saturates",
            &[&big],
            TRANSCENDENTAL,
            TRANSCENDENTAL,
            |v, _| v[0].sigmoid(),
        );
    });
}

#[test]
fn binary_ops_with_broadcasting() {
    on_gpu(|gpu| {
        let shapes: [(&[usize], &[usize]); 5] = [
            (&[5, 7, 13], &[5, 7, 13]),
            (&[5, 1, 13], &[7, 1]),
            (&[7, 13], &[1]),
            (&[2, 3, 5, 7], &[3, 1, 1]),
            (&[], &[3, 5]),
        ];
        for (i, (sa, sb)) in shapes.into_iter().enumerate() {
            let seed = 10 * i as u64;
            let (a, b) = (normal(sa, seed), normal(sb, seed + 1));
            let (pa, pb) = (positive(sa, seed + 2), positive(sb, seed + 3));
            let name = |op: &str| format!("{op} {sa:?} {sb:?}");
            // Gradients of broadcast inputs are sums over the broadcast axes.
            parity(gpu, &name("add"), &[&a, &b], EXACTISH, SUMMED, |v, _| {
                v[0].add(&v[1])
            });
            parity(gpu, &name("sub"), &[&a, &b], EXACTISH, SUMMED, |v, _| {
                v[0].sub(&v[1])
            });
            parity(gpu, &name("mul"), &[&a, &b], EXACTISH, SUMMED, |v, _| {
                v[0].mul(&v[1])
            });
            parity(
                gpu,
                &name("div"),
                &[&a, &pb],
                TRANSCENDENTAL,
                SUMMED,
                |v, _| v[0].div(&v[1]),
            );
            // d/db of a^b is ln(a) a^b: a mix of transcendental error and summation.
            parity(
                gpu,
                &name("pow"),
                &[&pa, &b.mul_scalar(0.5)],
                TRANSCENDENTAL,
                Tol::Norm(1e-5),
                |v, _| v[0].pow(&v[1]),
            );
        }
    });
}

#[test]
fn reductions() {
    on_gpu(|gpu| {
        let x = normal(&[7, 13, 33], 20);
        parity(gpu, "sum_all", &[&x], SUMMED, EXACTISH, |v, _| {
            v[0].sum_all()
        });
        parity(gpu, "mean_all", &[&x], SUMMED, EXACTISH, |v, _| {
            v[0].mean_all()
        });
        for axis in [0isize, 1, 2, -1] {
            for keepdim in [false, true] {
                let name = format!("sum_axis {axis} keepdim {keepdim}");
                parity(gpu, &name, &[&x], SUMMED, EXACTISH, move |v, _| {
                    v[0].sum_axis(axis, keepdim)
                });
                let name = format!("mean_axis {axis} keepdim {keepdim}");
                parity(gpu, &name, &[&x], SUMMED, EXACTISH, move |v, _| {
                    v[0].mean_axis(axis, keepdim)
                });
            }
        }
        // Long sums are split into chunks and summed twice. Positive terms: the sequential CPU
        // sum of 5000 of them may drift by ~n eps / 10 = 5e-5 relative in the worst case.
        let long = positive(&[5000], 21);
        parity(
            gpu,
            "sum_all long",
            &[&long],
            Tol::Norm(1e-4),
            EXACTISH,
            |v, _| v[0].sum_all(),
        );
        let tall = positive(&[2000, 3], 22);
        parity(
            gpu,
            "sum_axis 0 tall",
            &[&tall],
            Tol::Norm(1e-4),
            EXACTISH,
            |v, _| v[0].sum_axis(0, false),
        );
    });
}

#[test]
fn matmul_plain_batched_broadcast_and_transposed() {
    on_gpu(|gpu| {
        let cases: [(&str, &[usize], &[usize]); 10] = [
            ("2-D", &[33, 65], &[65, 13]),
            ("two tiles each way", &[65, 70], &[70, 67]),
            ("batched", &[3, 7, 65], &[3, 65, 13]),
            ("2-D times batched", &[7, 33], &[3, 33, 13]),
            ("batched times batch 1", &[3, 7, 33], &[1, 33, 13]),
            // Few output tiles and a long k: the k range is split over workgroups.
            ("split k", &[7, 600], &[600, 5]),
            // Row lengths that are multiples of 4 (vec4 loads), in partial tiles, with a k
            // ending inside a slice.
            ("vec4", &[36, 68], &[68, 44]),
            ("split k vec4", &[8, 1024], &[1024, 12]),
            // Enough outputs for the 64x128 tile, then for the 64x64 one.
            ("wide tiles", &[64, 64, 20], &[64, 20, 128]),
            ("square tiles", &[40, 61, 13], &[40, 13, 125]),
        ];
        for (i, (name, sa, sb)) in cases.into_iter().enumerate() {
            let (a, b) = (normal(sa, 30 + i as u64), normal(sb, 40 + i as u64));
            parity(
                gpu,
                &format!("matmul {name}"),
                &[&a, &b],
                SUMMED,
                SUMMED,
                |v, _| v[0].matmul(&v[1]),
            );
        }
        // (m, k, n): odd sizes read as scalars, multiples of 4 as vec4s along either axis.
        for (m, k, n) in [(7, 33, 13), (36, 68, 44)] {
            for (ta, tb) in [(true, false), (false, true), (true, true)] {
                let a = normal(&if ta { [2, k, m] } else { [2, m, k] }, 50);
                let b = normal(&if tb { [2, n, k] } else { [2, k, n] }, 51);
                let name = format!("matmul_t {m}x{k}x{n} {ta} {tb}");
                parity(gpu, &name, &[&a, &b], SUMMED, SUMMED, move |v, _| {
                    v[0].matmul_t(&v[1], ta, tb)
                });
            }
        }
    });
}

#[test]
fn layout_ops() {
    on_gpu(|gpu| {
        let x3 = normal(&[5, 7, 13], 60);
        let x4 = normal(&[2, 3, 5, 7], 61);
        // Moves copy values exactly; reshape is free.
        parity(
            gpu,
            "transpose",
            &[&normal(&[7, 13], 62)],
            EXACTISH,
            EXACTISH,
            |v, _| v[0].transpose(0, 1),
        );
        parity(gpu, "permute 3-D", &[&x3], EXACTISH, EXACTISH, |v, _| {
            v[0].permute(&[2, 0, 1])
        });
        parity(gpu, "permute 4-D", &[&x4], EXACTISH, EXACTISH, |v, _| {
            v[0].permute(&[0, 2, 3, 1])
        });
        parity(gpu, "reshape", &[&x3], EXACTISH, EXACTISH, |v, _| {
            v[0].reshape(&[35, 13]).mul(&v[0].reshape(&[35, 13]))
        });
        parity(gpu, "pad2d", &[&x4], EXACTISH, EXACTISH, |v, _| {
            v[0].pad2d([1, 2, 0, 3], -0.5)
        });
        parity(gpu, "crop2d", &[&x4], EXACTISH, EXACTISH, |v, _| {
            v[0].pad2d([-1, 0, -2, -1], 0.0)
        });
        parity(gpu, "pad and crop", &[&x4], EXACTISH, EXACTISH, |v, _| {
            v[0].pad2d([2, -1, -3, 1], 7.0)
        });
        // Repeated picks: the backward sums them.
        let index = [3u32, 0, 12, 3, 5, 3, 11];
        parity(
            gpu,
            "gather_cols",
            &[&normal(&[7, 13], 63)],
            EXACTISH,
            EXACTISH,
            move |v, _| v[0].gather_cols(&index),
        );
        // Parts of unequal lengths along a middle axis; each part's gradient is cropped out.
        let parts =
            [[2, 3, 5, 7], [2, 1, 5, 7], [2, 4, 5, 7]].map(|s| normal(&s, 64 + s[1] as u64));
        parity(
            gpu,
            "concat",
            &parts.each_ref(),
            EXACTISH,
            EXACTISH,
            |v, _| Var::concat(&[&v[0], &v[1], &v[2]], 1),
        );
    });
}

#[test]
fn conv2d_forward_and_gradients() {
    on_gpu(|gpu| {
        // (n, c_in, h, w, c_out, kh, kw, pad_h, pad_w, stride_h, stride_w, bias)
        let cases = [
            (2, 3, 7, 5, 4, 3, 3, 1, 1, 1, 1, true),
            (2, 3, 7, 5, 4, 3, 3, 1, 1, 1, 1, false),
            (3, 5, 6, 7, 3, 1, 1, 0, 0, 1, 1, true),
            (2, 2, 9, 8, 5, 3, 3, 0, 0, 1, 1, false),
            (1, 3, 7, 9, 2, 5, 3, 2, 1, 1, 1, true),
            (2, 4, 5, 5, 3, 2, 2, 1, 0, 1, 1, true),
            // Many images and few filters: the weight gradient's long k is split.
            (8, 3, 9, 9, 5, 3, 3, 1, 1, 1, 1, true),
            // One image with many channels (batch-1 inference): a long k, never split in
            // the forward.
            (1, 60, 5, 5, 3, 3, 3, 1, 1, 1, 1, true),
            // Batch 1 with filters filling two tile rows unevenly.
            (1, 3, 8, 8, 70, 3, 3, 1, 1, 1, 1, true),
            // A board layer: weight rows (576) and output planes (64) read as vec4s.
            (4, 64, 8, 8, 64, 3, 3, 1, 1, 1, 1, true),
            // 1x1 on a board: input and output gradient planes read as vec4s too.
            (3, 32, 8, 8, 70, 1, 1, 0, 0, 1, 1, true),
            // Enough boards for the 64x64 tile.
            (64, 8, 8, 8, 64, 3, 3, 1, 1, 1, 1, false),
            // Strided builds: both axes with padding, the corner windows of an 8x8 board
            // (3x3, stride 5), one axis only, a subsampling 1x1, and a step leaving the last
            // input rows unread.
            (2, 3, 7, 5, 4, 3, 3, 1, 1, 2, 2, true),
            (3, 8, 8, 8, 5, 3, 3, 0, 0, 5, 5, true),
            (2, 3, 9, 8, 2, 1, 8, 0, 0, 2, 1, false),
            (2, 5, 6, 7, 3, 1, 1, 0, 0, 2, 3, true),
            (1, 2, 9, 9, 3, 2, 3, 1, 0, 3, 2, true),
            // Output rows a multiple of 4 wide at a column stride of 1, whose quads of pixels
            // are gathered whole: a row stride of 2 with wider column padding, and a 5-wide
            // kernel whose quads start off the row and run past it.
            (2, 3, 9, 10, 4, 3, 3, 1, 2, 2, 1, true),
            (1, 2, 5, 8, 3, 2, 5, 0, 2, 1, 1, false),
        ];
        for (i, (n, c_in, h, w, c_out, kh, kw, ph, pw, sh, sw, bias)) in
            cases.into_iter().enumerate()
        {
            let seed = 70 + 3 * i as u64;
            let mut inputs = vec![
                normal(&[n, c_in, h, w], seed),
                normal(&[c_out, c_in, kh, kw], seed + 1),
            ];
            if bias {
                inputs.push(normal(&[c_out], seed + 2));
            }
            let name = format!(
                "conv2d {n}x{c_in}x{h}x{w} * {c_out}x{kh}x{kw} pad ({ph},{pw}) stride ({sh},{sw}) bias {bias}"
            );
            parity(
                gpu,
                &name,
                &inputs.iter().collect::<Vec<_>>(),
                SUMMED,
                SUMMED,
                move |v, _| v[0].conv2d(&v[1], v.get(2), (ph, pw), (sh, sw)),
            );
        }
    });
}

#[test]
fn tap_conv_forward_and_gradients() {
    // The GPU looks each column cell up in the table as its tiled product loads it; the CPU
    // reads the taps into its SGEMM's panels.
    on_gpu(|gpu| {
        // (n, c_in, cells_in, c_out, cells_out, taps), as in tests/nn/taps.rs.
        let cases = [
            (2, 3, 6, 4, 5, 3),
            (9, 5, 32, 7, 32, 5),
            (3, 32, 32, 70, 32, 5),
            (5, 8, 64, 32, 32, 5),
        ];
        for (i, (n, c_in, cells_in, c_out, cells_out, taps)) in cases.into_iter().enumerate() {
            let seed = 400 + 10 * i as u64;
            let table = crate::taps::random_table(cells_in, cells_out, taps, seed);
            let x = normal(&[n, c_in, cells_in], seed + 1);
            let w = normal(&[c_out, c_in * taps], seed + 2);
            let b = normal(&[c_out], seed + 3);
            let name = format!("tap_conv {n}x{c_in}x{cells_in} * {c_out}x{cells_out}x{taps}");
            let t = table.clone();
            parity(gpu, &name, &[&x, &w, &b], SUMMED, SUMMED, move |v, _| {
                v[0].tap_conv(&v[1], Some(&v[2]), &t)
            });
            let res = normal(&[n, c_out, cells_out], seed + 4);
            for (residual, relu) in [(None, true), (Some(&res), false), (Some(&res), true)] {
                let run = |dev: &Device| {
                    let r = residual.map(|r| r.to_device(dev));
                    let (x, w, b) = (x.to_device(dev), w.to_device(dev), b.to_device(dev));
                    x.tap_conv(&w, Some(&b), r.as_ref(), relu, &table).to_vec()
                };
                let what = format!("{name} residual {} relu {relu}", residual.is_some());
                assert_close(&what, &run(&Device::Cpu), &run(gpu), SUMMED);
            }
        }
    });
}

/// Every product back on its planned tile when a test that forced one ends, even by a panic.
pub(super) struct PlannedTiles<'a>(pub(super) &'a checkers_zero::backend::gpu::Gpu);

impl Drop for PlannedTiles<'_> {
    fn drop(&mut self) {
        self.0.force_tile(None);
    }
}

/// Winograd's convolutions as they were when a test that switched them ends, even by a panic.
pub(super) struct WinogradAsBefore<'a>(&'a checkers_zero::backend::gpu::Gpu, WinogradChoice);

impl<'a> WinogradAsBefore<'a> {
    /// Winograd's convolutions on or off.
    pub(super) fn set(g: &'a checkers_zero::backend::gpu::Gpu, on: bool) -> Self {
        let choice = if on {
            WinogradChoice::On
        } else {
            WinogradChoice::Off
        };
        Self::choose(g, choice)
    }

    pub(super) fn choose(g: &'a checkers_zero::backend::gpu::Gpu, choice: WinogradChoice) -> Self {
        let before = g.winograd();
        g.set_winograd(choice);
        WinogradAsBefore(g, before)
    }
}

impl Drop for WinogradAsBefore<'_> {
    fn drop(&mut self) {
        self.0.set_winograd(self.1);
    }
}

/// The shapes training runs at, on every tile path: az-small's 64-channel 3x3 layer over a
/// batch of 256 boards (the forward and input gradient as 64 x 16384 products with k 576,
/// the weight gradient's k of 16384 split among workgroups), alone and with the batch norm
/// after it (made from the forward's moments), dark-tiny's tap convolution over as many boards
/// (k 160 forward, 8192 in the weight gradient), and a product with B transposed large
/// enough for the wide tile (a linear layer's forward).
#[test]
fn production_shapes_on_every_tile() {
    // Forcing a tile changes every product's plan: no other GPU test runs meanwhile.
    common::on_gpu_alone(production_shapes);
}

fn production_shapes(gpu: &Device, g: &checkers_zero::backend::gpu::Gpu) {
    let _restore = PlannedTiles(g);
    // The implicit GEMM's paths: Winograd's, which 256 boards would take, are
    // tests/nn/gpu_winograd.rs's.
    let _implicit = WinogradAsBefore::set(g, false);
    let (x, w) = (normal(&[256, 64, 8, 8], 200), normal(&[64, 64, 3, 3], 201));
    let (a, b) = (normal(&[1024, 72], 202), normal(&[520, 72], 203));
    let (gamma, beta) = (positive(&[64], 204), normal(&[64], 205));
    let (dark_x, dark_w) = (normal(&[256, 32, 32], 206), normal(&[32, 32 * 5], 207));
    let dark_table = crate::taps::random_table(32, 32, 5, 208);
    for tile in [TileShape::Wide, TileShape::Square, TileShape::Small] {
        g.force_tile(Some(tile));
        let name = format!("{} tile", tile.name());
        parity(
            gpu,
            &format!("az-small conv, batch 256, {name}"),
            &[&x, &w],
            SUMMED,
            SUMMED,
            |v, _| v[0].conv2d(&v[1], None, (1, 1), (1, 1)),
        );
        conv_batch_norm_parity(
            gpu,
            &format!("az-small, batch 256, {name}"),
            [&x, &w, &gamma, &beta],
            (1, 1),
            (1, 1),
        );
        let table = dark_table.clone();
        parity(
            gpu,
            &format!("dark-tiny tap conv, batch 256, {name}"),
            &[&dark_x, &dark_w],
            SUMMED,
            SUMMED,
            move |v, _| v[0].tap_conv(&v[1], None, &table),
        );
        parity(
            gpu,
            &format!("matmul with B transposed, {name}"),
            &[&a, &b],
            SUMMED,
            SUMMED,
            |v, _| v[0].matmul_t(&v[1], false, true),
        );
    }
}

/// Two batches in flight, as the inference service keeps them: the first is answered by a
/// wait for its own submission, while the second (submitted after it) is still the device's.
#[test]
fn a_reading_waits_for_its_own_submission_only() {
    // The counters are the context's: no other GPU test submits meanwhile.
    common::on_gpu_alone(two_readings);
}

fn two_readings(gpu: &Device, g: &checkers_zero::backend::gpu::Gpu) {
    let x = normal(&[96, 96], 300);
    let on_gpu = x.to_device(gpu);
    let first = Tensor::read_later(&[&on_gpu.add_scalar(1.0)]);
    let first_submitted = g.counters().submits;
    let second = Tensor::read_later(&[&on_gpu.matmul(&on_gpu)]);
    let second_submitted = g.counters().submits;
    assert!(
        second_submitted > first_submitted,
        "each reading is its own submission"
    );
    let got = first.wait();
    assert_eq!(
        g.counters().waited_for,
        first_submitted,
        "the first batch's wait was for its own submission, not the second's"
    );
    assert_close("first", &x.add_scalar(1.0).to_vec(), &got[0], EXACTISH);
    let got = second.wait();
    assert_eq!(g.counters().waited_for, second_submitted);
    assert_close("second", &x.matmul(&x).to_vec(), &got[0], SUMMED);
}

#[test]
fn fused_conv_add_relu() {
    // The GPU adds bias and residual and applies ReLU as the conv stores its outputs; the CPU
    // fuses them into the conv's pass over each image.
    on_gpu(|gpu| {
        // (n, c_in, c_out, stride): odd channel counts in small tiles, batch 1 with filters
        // filling two tile rows unevenly, the same with k = 1080 (too few tiles: split over k,
        // the epilogue applied by the sum of the parts), and enough boards for the 64x64 and
        // 64x128 tiles.
        for (i, (n, c_in, c_out, stride)) in [
            (3, 4, 5, 1),
            (3, 4, 5, 2),
            (1, 3, 70, 1),
            (1, 120, 70, 1),
            (2, 70, 9, 2),
            (64, 8, 64, 1),
            (128, 8, 64, 1),
        ]
        .into_iter()
        .enumerate()
        {
            let seed = 120 + 10 * i as u64;
            let x = normal(&[n, c_in, 8, 8], seed);
            let w = normal(&[c_out, c_in, 3, 3], seed + 1);
            let b = normal(&[c_out], seed + 2);
            let side = 8 / stride;
            let res = normal(&[n, c_out, side, side], seed + 3);
            for (residual, relu) in [
                (None, false),
                (None, true),
                (Some(&res), false),
                (Some(&res), true),
            ] {
                let run = |dev: &Device| {
                    let r = residual.map(|r| r.to_device(dev));
                    x.to_device(dev)
                        .conv2d_add_relu(
                            &w.to_device(dev),
                            &b.to_device(dev),
                            r.as_ref(),
                            relu,
                            (1, 1),
                            (stride, stride),
                        )
                        .to_vec()
                };
                let name = format!(
                    "conv2d_add_relu {n}x{c_in}x8x8 * {c_out}x{c_in}x3x3 stride {stride} residual {} relu {relu}",
                    residual.is_some()
                );
                assert_close(&name, &run(&Device::Cpu), &run(gpu), SUMMED);
            }
        }
    });
}

#[test]
fn fused_linear() {
    // The GPU adds the bias and applies the activation as the product stores its outputs,
    // never splitting k; the CPU starts its product from the bias.
    on_gpu(|gpu| {
        // (rows, inputs, outputs): one row (a value head at batch 1), a long k that a plain
        // product would split, odd sizes in scalar reads, and enough rows for wide tiles.
        for (i, (rows, inputs, outputs)) in [(1, 32, 64), (3, 600, 5), (7, 33, 13), (256, 64, 256)]
            .into_iter()
            .enumerate()
        {
            let seed = 200 + 10 * i as u64;
            let x = normal(&[rows, inputs], seed);
            let w = normal(&[outputs, inputs], seed + 1);
            let b = normal(&[outputs], seed + 2);
            for bias in [None, Some(&b)] {
                for act in [None, Some(Activation::Relu), Some(Activation::Tanh)] {
                    let run = |dev: &Device| {
                        let bias = bias.map(|b| b.to_device(dev));
                        x.to_device(dev)
                            .linear(&w.to_device(dev), bias.as_ref(), act)
                            .to_vec()
                    };
                    let name = format!(
                        "linear {rows}x{inputs} to {outputs} bias {} {act:?}",
                        bias.is_some()
                    );
                    assert_close(&name, &run(&Device::Cpu), &run(gpu), SUMMED);
                }
            }
        }
    });
}

#[test]
fn tower_net_forward_and_gradients() {
    // The same network (one seed) on both devices: its value for a batch of boards, and the
    // gradient of every parameter for a random output gradient.
    on_gpu(|gpu| {
        let mut r = rng(400);
        let boards = common::random_discs(&mut r, 5);
        let run = |dev: &Device| {
            let net = TowerNet::new(TowerArch::default(), dev, &mut rng(401));
            let ctx = Ctx::training();
            let v = net.forward(&ctx, &Var::constant(net.encode(&boards)));
            let grads = v.backward_with(normal(&[boards.len()], 402).to_device(dev));
            (v.value().to_vec(), ctx.flat_param_grads(&net, &grads))
        };
        let (cpu_value, cpu_grad) = run(&Device::Cpu);
        let (gpu_value, gpu_grad) = run(gpu);
        // Sums of up to 168 terms in another order, then tanh, three layers deep.
        assert_close("tower net value", &cpu_value, &gpu_value, Tol::Norm(1e-5));
        assert_close("tower net gradient", &cpu_grad, &gpu_grad, Tol::Norm(1e-5));
    });
}

#[test]
fn repeated_inference_calls_compute_their_own_inputs() {
    // A repeated call replays its dispatches' bind groups by position, over pooled buffers
    // that the next inputs reuse: each call must still read its own inputs.
    on_gpu(|gpu| {
        let arch = Architecture::preset(NetPreset::AzTiny);
        let net = |dev: &Device| {
            let mut net = PolicyValueNet::new(arch.clone(), dev, &mut rng(410));
            net.set_train(false);
            net
        };
        let (cpu, on_gpu) = (net(&Device::Cpu), net(gpu));
        for call in 0..3 {
            let x = normal(&[3, arch.input_planes, 8, 8], 411 + call);
            let (cp, cv) = cpu.predict(&x);
            let (gp, gv) = on_gpu.predict(&x.to_device(gpu));
            let what = format!("call {call}");
            assert_close(&what, &cp.to_vec(), &gp.to_vec(), Tol::Norm(1e-5));
            assert_close(&what, &cv.to_vec(), &gv.to_vec(), Tol::Norm(1e-5));
        }
    });
}

#[test]
fn softmax_and_log_softmax() {
    on_gpu(|gpu| {
        let x = normal(&[7, 13, 5], 90).mul_scalar(3.0);
        for axis in [-1isize, 0, 1] {
            parity(
                gpu,
                &format!("softmax {axis}"),
                &[&x],
                TRANSCENDENTAL,
                SUMMED,
                move |v, _| v[0].softmax(axis),
            );
            parity(
                gpu,
                &format!("log_softmax {axis}"),
                &[&x],
                TRANSCENDENTAL,
                SUMMED,
                move |v, _| v[0].log_softmax(axis),
            );
        }
        // Rows longer than a workgroup.
        let wide = normal(&[3, 300], 91);
        parity(
            gpu,
            "softmax wide",
            &[&wide],
            TRANSCENDENTAL,
            SUMMED,
            |v, _| v[0].softmax(-1),
        );
        parity(
            gpu,
            "log_softmax wide",
            &[&wide],
            TRANSCENDENTAL,
            SUMMED,
            |v, _| v[0].log_softmax(-1),
        );
    });
}

#[test]
fn batch_norm_train_and_eval() {
    on_gpu(|gpu| {
        // 140 values per channel (fewer than a workgroup's invocations) and 576 (more).
        for (shape, seed) in [([4, 3, 5, 7], 100), ([9, 5, 8, 8], 110)] {
            let c = shape[1];
            let x = normal(&shape, seed).mul_scalar(2.0).add_scalar(0.5);
            let (gamma, beta) = (positive(&[c], seed + 1), normal(&[c], seed + 2));
            let (run_mean, run_var) = (normal(&[c], seed + 3), positive(&[c], seed + 4));
            let running = |dev: &Device| RunningStats {
                mean: run_mean.to_device(dev),
                var: run_var.to_device(dev),
                momentum: 0.1,
            };
            // Means, variances and their gradients are sums of 140 or 576 terms per channel.
            for relu in [false, true] {
                parity(
                    gpu,
                    &format!("batch_norm2d train (relu {relu})"),
                    &[&x, &gamma, &beta],
                    Tol::Norm(1e-5),
                    Tol::Norm(1e-5),
                    |v, dev| {
                        v[0].batch_norm2d_train(&v[1], &v[2], &running(dev), relu, 1e-5)
                            .0
                    },
                );
            }
            let moved = |dev: &Device| {
                let x = Var::constant(x.to_device(dev));
                let [g, b] = [&gamma, &beta].map(|t| Var::constant(t.to_device(dev)));
                let (_, r) = x.batch_norm2d_train(&g, &b, &running(dev), false, 1e-5);
                [r.mean.to_vec(), r.var.to_vec()]
            };
            let (cpu, on_gpu) = (moved(&Device::Cpu), moved(gpu));
            assert_close("running mean", &cpu[0], &on_gpu[0], Tol::Norm(1e-5));
            assert_close("running var", &cpu[1], &on_gpu[1], Tol::Norm(1e-5));
        }
        let x = normal(&[4, 3, 5, 7], 100).mul_scalar(2.0).add_scalar(0.5);
        let (gamma, beta) = (positive(&[3], 101), normal(&[3], 102));
        let inputs = [&x, &gamma, &beta];
        let (mean, var) = (normal(&[3], 103), positive(&[3], 104));
        parity(
            gpu,
            "batch_norm2d eval",
            &inputs,
            TRANSCENDENTAL,
            Tol::Norm(1e-5),
            move |v, dev| {
                v[0].batch_norm2d_eval(
                    &v[1],
                    &v[2],
                    &mean.to_device(dev),
                    &var.to_device(dev),
                    1e-5,
                )
            },
        );
    });
}

/// (n, c_in, h, w, c_out, kernel, padding, stride).
type ConvCase = (
    usize,
    usize,
    usize,
    usize,
    usize,
    (usize, usize),
    (usize, usize),
    (usize, usize),
);

/// A batch norm of a convolution's output, whose statistics the GPU makes from the moments
/// the convolution writes per output tile (conv_moments.wgsl, norm/moments.wgsl): against the
/// CPU's conv then batch norm, forward, running averages and every gradient.
#[test]
fn conv_then_batch_norm_from_the_convolutions_moments() {
    on_gpu(|gpu| {
        // Tiles partly filled across rows and columns; a strided, padded, non-square kernel; more columns than one wide tile.
        let cases: [ConvCase; 3] = [
            (3, 5, 7, 6, 9, (3, 3), (1, 1), (1, 1)),
            (2, 3, 9, 7, 5, (2, 3), (1, 0), (3, 2)),
            (5, 16, 8, 8, 70, (3, 3), (1, 1), (1, 1)),
        ];
        for (i, &(n, c_in, h, w, c_out, (kh, kw), pad, stride)) in cases.iter().enumerate() {
            let seed = 300 + 10 * i as u64;
            // Inputs and weights mostly positive: channel means far from zero beside their
            // spread, where a variance from sums of squares would lose its digits.
            let x = positive(&[n, c_in, h, w], seed).add_scalar(3.0);
            let wt = positive(&[c_out, c_in, kh, kw], seed + 1).add_scalar(-0.6);
            let (gamma, beta) = (positive(&[c_out], seed + 2), normal(&[c_out], seed + 3));
            conv_batch_norm_parity(
                gpu,
                &format!("case {i}"),
                [&x, &wt, &gamma, &beta],
                pad,
                stride,
            );
        }
    });
}

/// The fused conv and batch norm on both devices: its value and gradients, and the running
/// averages it moves.
pub(super) fn conv_batch_norm_parity(
    gpu: &Device,
    name: &str,
    inputs: [&Tensor; 4],
    pad: (usize, usize),
    stride: (usize, usize),
) {
    let c_out = inputs[1].shape()[0];
    let (run_mean, run_var) = (normal(&[c_out], 7), positive(&[c_out], 8));
    let running = |dev: &Device| RunningStats {
        mean: run_mean.to_device(dev),
        var: run_var.to_device(dev),
        momentum: 0.1,
    };
    for relu in [false, true] {
        parity(
            gpu,
            &format!("conv then batch_norm2d train, {name} (relu {relu})"),
            &inputs,
            Tol::Norm(1e-5),
            Tol::Norm(1e-5),
            |v, dev| {
                v[0].conv2d_batch_norm2d_train(
                    &v[1],
                    pad,
                    stride,
                    &v[2],
                    &v[3],
                    &running(dev),
                    relu,
                    1e-5,
                )
                .0
            },
        );
    }
    let moved = |dev: &Device| {
        let [x, w, g, b] = inputs.map(|t| Var::constant(t.to_device(dev)));
        let (_, r) =
            x.conv2d_batch_norm2d_train(&w, pad, stride, &g, &b, &running(dev), false, 1e-5);
        [r.mean.to_vec(), r.var.to_vec()]
    };
    let (cpu, on_gpu) = (moved(&Device::Cpu), moved(gpu));
    assert_close(
        &format!("{name} running mean"),
        &cpu[0],
        &on_gpu[0],
        Tol::Norm(1e-5),
    );
    assert_close(
        &format!("{name} running var"),
        &cpu[1],
        &on_gpu[1],
        Tol::Norm(1e-5),
    );
}

#[test]
fn losses() {
    on_gpu(|gpu| {
        let logits = normal(&[7, 13], 110).mul_scalar(2.0);
        let target = normal(&[7, 13], 111).softmax(-1);
        // A scalar loss is a sum of 91 terms; its gradients are elementwise.
        parity(
            gpu,
            "cross_entropy_soft",
            &[&logits, &target],
            Tol::Norm(1e-5),
            TRANSCENDENTAL,
            |v, _| v[0].cross_entropy_soft(&v[1]),
        );
        parity(
            gpu,
            "mse",
            &[&logits, &target],
            Tol::Norm(1e-5),
            EXACTISH,
            |v, _| v[0].mse(&v[1]),
        );
        // Rows longer than a workgroup (the fused kernel strides along them), targets
        // summing to 2 per row.
        let logits = normal(&[3, 700], 112).mul_scalar(3.0);
        let target = normal(&[3, 700], 113).softmax(-1).mul_scalar(2.0);
        parity(
            gpu,
            "cross_entropy_soft, long rows",
            &[&logits, &target],
            Tol::Norm(1e-5),
            TRANSCENDENTAL,
            |v, _| v[0].cross_entropy_soft(&v[1]),
        );
    });
}

#[test]
fn optimizer_steps() {
    on_gpu(|gpu| {
        let shape = [7, 13];
        let steps = [
            OptimStep::Sgd {
                lr: 0.1,
                momentum: 0.9,
                weight_decay: 1e-4,
            },
            OptimStep::Adam {
                lr: 1e-3,
                beta1: 0.9,
                beta2: 0.999,
                eps: 1e-8,
                weight_decay: 1e-4,
                t: 0,
            },
        ];
        for step in steps {
            let mut cpu = [
                normal(&shape, 120),
                Tensor::zeros(&shape, &Device::Cpu),
                Tensor::zeros(&shape, &Device::Cpu),
            ];
            let mut dev = cpu.clone().map(|t| t.to_device(gpu));
            for t in 1..=3 {
                let step = match step {
                    OptimStep::Adam {
                        lr,
                        beta1,
                        beta2,
                        eps,
                        weight_decay,
                        ..
                    } => OptimStep::Adam {
                        lr,
                        beta1,
                        beta2,
                        eps,
                        weight_decay,
                        t,
                    },
                    sgd => sgd,
                };
                let g = normal(&shape, 130 + t as u64);
                cpu = cpu[0].optim_step(step, &g, &cpu[1], &cpu[2]);
                dev = dev[0].optim_step(step, &g.to_device(gpu), &dev[1], &dev[2]);
            }
            // A few float ops per element; Adam's sqrt and division are within 3 ULP.
            for (i, (c, d)) in cpu.iter().zip(&dev).enumerate() {
                assert_close(
                    &format!("{step:?} output {i}"),
                    &c.to_vec(),
                    &d.to_vec(),
                    Tol::Elem {
                        rtol: 1e-5,
                        atol: 1e-7,
                    },
                );
            }
        }
    });
}

/// Many parameters stepped together (one kernel on the GPU, the parameters then views into
/// one buffer): each matches its own CPU step, over steps where the set of parameters with a
/// gradient changes, and the views work as inputs of other ops.
#[test]
fn optimizer_steps_on_many_parameters_at_once() {
    on_gpu(|gpu| {
        let shapes: [&[usize]; 4] = [&[7, 13], &[5], &[3, 3, 2, 2], &[1]];
        for adam in [false, true] {
            let mut cpu: Vec<[Tensor; 3]> = (0..shapes.len())
                .map(|i| {
                    let zeros = Tensor::zeros(shapes[i], &Device::Cpu);
                    [normal(shapes[i], 140 + i as u64), zeros.clone(), zeros]
                })
                .collect();
            let mut dev: Vec<[Tensor; 3]> = cpu
                .iter()
                .map(|p| p.clone().map(|t| t.to_device(gpu)))
                .collect();
            for t in 1..=4u32 {
                let step = if adam {
                    OptimStep::Adam {
                        lr: 1e-2,
                        beta1: 0.9,
                        beta2: 0.999,
                        eps: 1e-8,
                        weight_decay: 1e-4,
                        t,
                    }
                } else {
                    OptimStep::Sgd {
                        lr: 0.1,
                        momentum: 0.9,
                        weight_decay: 1e-4,
                    }
                };
                // Step 3 leaves the second parameter out: the layout changes and comes back.
                let stepped: Vec<usize> = (0..shapes.len()).filter(|&i| t != 3 || i != 1).collect();
                let grads: Vec<Tensor> = (0..shapes.len())
                    .map(|i| normal(shapes[i], 150 + 10 * t as u64 + i as u64))
                    .collect();
                let grads_dev: Vec<Tensor> = grads.iter().map(|g| g.to_device(gpu)).collect();
                for (params, grads) in [(&mut cpu, &grads), (&mut dev, &grads_dev)] {
                    let operands: Vec<[&Tensor; 4]> = stepped
                        .iter()
                        .map(|&i| {
                            let [w, s1, s2] = &params[i];
                            [w, &grads[i], s1, s2]
                        })
                        .collect();
                    let new = Tensor::optim_step_all(step, &operands);
                    for (&i, n) in stepped.iter().zip(new) {
                        params[i] = n;
                    }
                }
            }
            for (i, (c, d)) in cpu.iter().zip(&dev).enumerate() {
                for k in 0..3 {
                    // Read through another op too: a view bound at its offset.
                    let through = d[k].mul_scalar(2.0).to_vec();
                    let want: Vec<f32> = c[k].to_vec().iter().map(|v| 2.0 * v).collect();
                    let tol = Tol::Elem {
                        rtol: 1e-5,
                        atol: 1e-7,
                    };
                    assert_close(
                        &format!("adam {adam} param {i} output {k}"),
                        &c[k].to_vec(),
                        &d[k].to_vec(),
                        tol,
                    );
                    assert_close(
                        &format!("adam {adam} param {i} output {k} (read by an op)"),
                        &want,
                        &through,
                        tol,
                    );
                }
            }
        }
    });
}

#[test]
fn creation_transfer_and_empty_tensors() {
    on_gpu(|gpu| {
        let x = normal(&[3, 5], 140);
        let back = x.to_device(gpu).to_device(&Device::Cpu);
        assert_eq!(back.to_vec(), x.to_vec(), "a round trip copies exactly");
        assert_eq!(Tensor::full(&[2, 3], 1.5, gpu).to_vec(), vec![1.5; 6]);
        assert_eq!(Tensor::scalar(-2.0, gpu).item(), -2.0);
        let empty = Tensor::zeros(&[0, 3], gpu);
        assert_eq!(empty.to_vec(), Vec::<f32>::new());
        assert_eq!(
            empty.sum_axis(0, false).to_vec(),
            vec![0.0; 3],
            "an empty sum is zero"
        );
        assert_eq!(empty.exp().numel(), 0);
        let no_k = Tensor::zeros(&[2, 0], gpu).matmul(&Tensor::zeros(&[0, 3], gpu));
        assert_eq!(
            no_k.to_vec(),
            vec![0.0; 6],
            "a product over an empty k is zero"
        );
    });
}

#[test]
fn uploads_never_overwrite_inputs_of_pending_work() {
    on_gpu(|gpu| {
        // Each input is dropped while the op reading it is still only recorded; the next
        // upload must not land in its buffer before that op runs.
        let mut results = Vec::new();
        for i in 0..40 {
            let data = normal(&[5, 7], 200 + i);
            let out = data.to_device(gpu).mul_scalar(2.0);
            results.push((data.mul_scalar(2.0), out));
        }
        for (i, (want, got)) in results.iter().enumerate() {
            assert_eq!(want.to_vec(), got.to_vec(), "result {i}");
        }
    });
}

#[test]
fn a_long_chain_of_ops_is_submitted_in_chunks_and_read_with_one_wait() {
    // Alone on the device, so no other test's read-back submits in between.
    common::on_gpu_alone(|gpu, g| {
        let (x0, k) = (normal(&[7, 13], 300), positive(&[13], 301));
        let (mut x, kg) = (x0.to_device(gpu), k.to_device(gpu));
        gpu.flush();
        let before = g.counters();
        let mut y = x0;
        for i in 0..50 {
            let c = 0.01 * i as f32;
            x = x.mul(&kg).add_scalar(c).tanh().mul_scalar(1.5);
            y = y.mul(&k).add_scalar(c).tanh().mul_scalar(1.5);
        }
        let recorded = g.counters() - before;
        assert_eq!(recorded.dispatches, 200, "one dispatch per op");
        assert_eq!(
            recorded.submits,
            200 / SUBMIT_EVERY as u64,
            "the device starts on each full chunk while the rest is recorded"
        );
        assert_eq!(recorded.waits, 0, "nothing waits before a readback");
        let got = x.to_vec();
        let read = g.counters() - before;
        assert_eq!(
            (read.submits, read.waits, read.bytes_down),
            (recorded.submits + 1, 1, 7 * 13 * 4),
            "reading back submits the rest and waits once"
        );
        // 50 rounds of a contraction (tanh) keep the per-round few-ULP errors from growing.
        assert_close("200-op chain", &y.to_vec(), &got, TRANSCENDENTAL);
    });
}

#[test]
fn device_names() {
    let cpu: DeviceChoice = "cpu".parse().unwrap();
    assert!(matches!(cpu.open(), Ok(Device::Cpu)));
    let err = "tpu".parse::<DeviceChoice>().expect_err("an unknown name");
    assert_eq!(err.to_string(), "\"tpu\": expected auto, cpu, gpu");
    // auto never picks a software adapter.
    if let Device::Gpu(g) = Device::auto() {
        assert!(
            !g.adapter_name().contains("Cpu"),
            "auto chose {}",
            g.adapter_name()
        );
    }
}

#[test]
fn launches_wider_than_the_grid_limit_are_split() {
    on_gpu(|gpu| {
        // 65535 workgroups of 256 is the per-dimension minimum every adapter offers; one more
        // element needs a second row of workgroups.
        let n = 65535 * 256 + 7;
        let x = Tensor::full(&[n], 1.0, gpu).add_scalar(1.0);
        // Every partial sum is an even integer below 2^25, so exactly representable.
        assert_eq!(
            x.sum_all().item(),
            2.0 * n as f32,
            "every element was written"
        );
    });
}
