//! The GPU's Winograd F(4x4, 3x3) convolutions (src/backend/gpu/winograd.rs) against the CPU's
//! direct convolution, on every 3x3 shape of az-tiny, az-small and az-large, on each tile.
//!
//! Winograd's transforms add and subtract the input tile's cells with weights up to 25 and
//! the products with weights up to 64 before the output is formed, so its rounding error
//! scales with the sum of |w| |x| over each output's taps rather than with the output (the
//! corner cell of a tile sums its terms with absolute weights up to 256 times those of the
//! direct sum). The bound tested here, per element:
//!   |winograd - direct| <= WINOGRAD_BOUND * sum over taps and channels of |w| |x|
//! and for the input gradient the same with the output gradient in place of x. The weight
//! gradient stays an implicit GEMM and keeps the GEMM's tolerance.

use super::gpu_parity::{
    PlannedTiles, SUMMED, WinogradAsBefore, assert_close, conv_batch_norm_parity, normal, positive,
};
use crate::common;
use checkers_zero::backend::gpu::{TileShape, WinogradChoice};
use checkers_zero::tensor::{Device, Tensor};

/// 2^-24 (FP32's unit roundoff) times 128: half the worst-case weight of the corner cell's
/// terms (256), as the signs of random terms cancel much of it; the largest ratio measured
/// on these shapes is in docs/gpu.md.
const WINOGRAD_BOUND: f32 = 128.0 / 16_777_216.0;

/// Each entry's absolute value: the sums of |w| |x| are convolutions of these.
pub(super) fn abs(t: &Tensor) -> Tensor {
    let v = t.to_vec().into_iter().map(f32::abs).collect();
    Tensor::from_vec(v, t.shape(), &Device::Cpu)
}

/// Asserts `|gpu - cpu| <= bound * scale` for every element and returns the largest error
/// over its scale.
pub(super) fn within_scaled(
    what: &str,
    cpu: &[f32],
    gpu: &[f32],
    scale: &[f32],
    bound: f32,
) -> f32 {
    assert_eq!(cpu.len(), gpu.len(), "{what}: lengths differ");
    let mut worst = 0.0f32;
    for (i, ((&c, &g), &s)) in cpu.iter().zip(gpu).zip(scale).enumerate() {
        let err = (c - g).abs();
        assert!(
            err <= bound * s,
            "{what}[{i}]: cpu {c} vs gpu {g}, error {err} over the bound {} (scale {s})",
            bound * s
        );
        if s > 0.0 {
            worst = worst.max(err / s);
        }
    }
    worst
}

fn within_bound(what: &str, direct: &[f32], winograd: &[f32], scale: &[f32]) -> f32 {
    within_scaled(what, direct, winograd, scale, WINOGRAD_BOUND)
}

/// One convolution's operands, drawn from a seed: input, filters, bias, residual and output
/// gradient.
struct Case {
    x: Tensor,
    w: Tensor,
    b: Tensor,
    res: Tensor,
    gy: Tensor,
}

impl Case {
    /// `n` images of `c_in` planes of `plane` cells into `c_out` channels.
    fn new(n: usize, (c_in, c_out): (usize, usize), plane: (usize, usize), seed: u64) -> Case {
        let (h, w) = plane;
        Case {
            x: normal(&[n, c_in, h, w], seed),
            w: normal(&[c_out, c_in, 3, 3], seed + 1),
            b: normal(&[c_out], seed + 2),
            res: normal(&[n, c_out, h, w], seed + 3),
            gy: normal(&[n, c_out, h, w], seed + 4),
        }
    }

    /// The sums of |w| |x| each output is made of, and of |w| |g| each input gradient.
    fn scales(&self) -> [Vec<f32>; 2] {
        let (x, w) = (abs(&self.x), abs(&self.w));
        [
            x.conv2d(&w, None, (1, 1), (1, 1)).to_vec(),
            abs(&self.gy)
                .conv2d_grad_input(&w, self.x.shape(), (1, 1), (1, 1))
                .to_vec(),
        ]
    }

    /// On `dev`: the forward, inference's forward with bias, residual and ReLU, the input
    /// gradient and the weight gradient.
    fn on(&self, dev: &Device) -> [Vec<f32>; 4] {
        let [x, w, b, res, gy] =
            [&self.x, &self.w, &self.b, &self.res, &self.gy].map(|t| t.to_device(dev));
        [
            x.conv2d(&w, None, (1, 1), (1, 1)).to_vec(),
            x.conv2d_add_relu(&w, &b, Some(&res), true, (1, 1), (1, 1))
                .to_vec(),
            gy.conv2d_grad_input(&w, x.shape(), (1, 1), (1, 1)).to_vec(),
            x.conv2d_grad_weight(&gy, w.shape(), (1, 1), (1, 1))
                .to_vec(),
        ]
    }

    /// Asserts `out` (`on` a GPU) within Winograd's bound of the CPU's `cpu`, the weight
    /// gradient (an implicit GEMM) within the GEMM's tolerance; returns the largest error
    /// over its scale.
    fn check(&self, what: &str, cpu: &[Vec<f32>; 4], out: &[Vec<f32>; 4]) -> f32 {
        let [scale, grad_scale] = self.scales();
        let forward = within_bound(&format!("{what} forward"), &cpu[0], &out[0], &scale);
        // Bias and residual are added exactly and the ReLU cannot widen an error. (This is
        // inference's form: its transforms made ahead of the products.)
        let inference = within_bound(
            &format!("{what} forward with bias, residual and relu"),
            &cpu[1],
            &out[1],
            &scale,
        );
        let grad = within_bound(
            &format!("{what} input gradient"),
            &cpu[2],
            &out[2],
            &grad_scale,
        );
        assert_close(&format!("{what} weight gradient"), &cpu[3], &out[3], SUMMED);
        forward.max(inference).max(grad)
    }
}

/// (c_in, c_out) of each preset's 3x3 layers: its stem (8 planes in, on the implicit GEMM)
/// and its body (Winograd).
const PRESET_LAYERS: [(&str, usize, usize); 6] = [
    ("az-tiny stem", 8, 32),
    ("az-tiny body", 32, 32),
    ("az-small stem", 8, 64),
    ("az-small body", 64, 64),
    ("az-large stem", 8, 128),
    ("az-large body", 128, 128),
];

#[test]
fn winograd_convolutions_match_the_direct_ones_on_every_preset_shape_and_tile() {
    // Forcing a tile changes every product's plan: no other GPU test runs meanwhile.
    common::on_gpu_alone(|gpu, g| {
        let _restore = PlannedTiles(g);
        let _on = WinogradAsBefore::set(g, true);
        let mut worst = 0.0f32;
        for (i, &(layer, c_in, c_out)) in PRESET_LAYERS.iter().enumerate() {
            // 32 boards (128 tile columns, the fewest Winograd takes) and 37 (148: partial
            // GEMM tiles).
            for n in [32, 37] {
                let seed = 900 + 10 * i as u64 + n as u64;
                let case = Case::new(n, (c_in, c_out), (8, 8), seed);
                let cpu = case.on(&Device::Cpu);
                // The body takes Winograd's two dispatches (products, output transform), the
                // stem the implicit GEMM's one: the comparison below is of Winograd's.
                let gx = case.x.to_device(gpu);
                let gw = case.w.to_device(gpu);
                let before = g.counters();
                let _ = gx.conv2d(&gw, None, (1, 1), (1, 1)).to_vec();
                let dispatches = (g.counters() - before).dispatches;
                assert_eq!(dispatches, if c_in >= 16 { 2 } else { 1 }, "{layer}");
                for tile in [TileShape::Wide, TileShape::Square, TileShape::Small] {
                    g.force_tile(Some(tile));
                    let what = format!("{layer}, {n} boards, {} tile", tile.name());
                    worst = worst.max(case.check(&what, &cpu, &case.on(gpu)));
                }
            }
        }
        g.force_tile(None);
        eprintln!("winograd: largest error over sum |w||x|: {worst:e}");
    });
}

/// The training forward: the batch norm's statistics come from the moments the output
/// transform writes. Normalising divides the convolution's error by the channel's spread,
/// which for these inputs is within a factor of a few of the sums of |w| |x|.
#[test]
fn winograd_convolutions_feed_the_batch_norm_their_moments() {
    common::on_gpu_alone(|gpu, g| {
        let _on = WinogradAsBefore::set(g, true);
        for (i, &(layer, c_in, c_out)) in PRESET_LAYERS.iter().enumerate() {
            let seed = 950 + 10 * i as u64;
            let x = normal(&[33, c_in, 8, 8], seed);
            let w = normal(&[c_out, c_in, 3, 3], seed + 1);
            let (gamma, beta) = (positive(&[c_out], seed + 2), normal(&[c_out], seed + 3));
            conv_batch_norm_parity(
                gpu,
                &format!("{layer}, 33 boards"),
                [&x, &w, &gamma, &beta],
                (1, 1),
                (1, 1),
            );
        }
    });
}

/// Inference transforms a weight buffer's filters once: a second call with the same weights
/// dispatches one kernel fewer and gives the same output, and other weights of the same shape,
/// alive beside them or handed their storage by the buffer pool once they are gone, are
/// transformed anew.
#[test]
fn inference_transforms_each_weight_buffers_filters_once() {
    common::on_gpu_alone(|gpu, g| {
        let _on = WinogradAsBefore::set(g, true);
        let (n, c) = (32, 32);
        let (x, b) = (normal(&[n, c, 8, 8], 71), normal(&[c], 72));
        let (gx, gb) = (x.to_device(gpu), b.to_device(gpu));
        // Checks weights drawn from `seed` and gives them back on the GPU.
        let check = |seed: u64| {
            let w = normal(&[c, c, 3, 3], seed);
            let gw = w.to_device(gpu);
            let mut dispatches = vec![];
            let mut outputs = vec![];
            for _ in 0..2 {
                let before = g.counters();
                let y = gx.conv2d_add_relu(&gw, &gb, None, false, (1, 1), (1, 1));
                outputs.push(y.to_vec());
                dispatches.push((g.counters() - before).dispatches);
            }
            // Filters, input, products and output transform; then the filters are kept.
            assert_eq!(dispatches, [4, 3], "weights {seed}");
            assert_eq!(
                outputs[0], outputs[1],
                "weights {seed}: the kept filters differ"
            );
            let direct = x.conv2d_add_relu(&w, &b, None, false, (1, 1), (1, 1));
            let scale = abs(&x).conv2d(&abs(&w), None, (1, 1), (1, 1)).to_vec();
            within_bound(
                &format!("weights {seed}"),
                &direct.to_vec(),
                &outputs[0],
                &scale,
            );
            gw
        };
        let first = check(73);
        let beside = check(74);
        drop((first, beside));
        check(75);
    });
}

/// A plane that is not whole tiles (10 x 6: the last row of tiles cut at the edge), in every
/// form.
#[test]
fn winograd_cuts_the_tiles_at_the_planes_edge() {
    common::on_gpu_alone(|gpu, g| {
        let _on = WinogradAsBefore::set(g, true);
        let case = Case::new(32, (16, 16), (10, 6), 81);
        case.check("10 x 6", &case.on(&Device::Cpu), &case.on(gpu));
    });
}

/// Where the adapter times the two ways (a hardware GPU's default), inference times them once
/// for each layer shape and batch size to the next power of two, then runs the faster: right
/// either way, and the same output again without another timing.
#[test]
fn timed_inference_times_each_layer_and_batch_once() {
    common::on_gpu_alone(|gpu, g| {
        let _timed = WinogradAsBefore::choose(g, WinogradChoice::Timed);
        // 24 channels: a shape no other test times, so the first call is this test's.
        let (c, w, b) = (24, normal(&[24, 24, 3, 3], 92), normal(&[24], 93));
        let (gw, gb) = (w.to_device(gpu), b.to_device(gpu));
        let (mut outputs, mut ways) = (vec![], vec![]);
        // Boards, and whether that call times: 33 and 40 share the bucket of 64.
        for (n, times) in [(33, true), (33, false), (40, false), (65, true)] {
            let x = normal(&[n, c, 8, 8], 94 + n as u64);
            let scale = abs(&x).conv2d(&abs(&w), None, (1, 1), (1, 1)).to_vec();
            let direct = x.conv2d_add_relu(&w, &b, None, false, (1, 1), (1, 1));
            let gx = x.to_device(gpu);
            let before = g.counters();
            let y = gx.conv2d_add_relu(&gw, &gb, None, false, (1, 1), (1, 1));
            let out = y.to_vec();
            let used = g.counters() - before;
            // The readback waits once; each timing waits for the device before and after.
            assert_eq!(used.waits > 1, times, "{n} boards: {used:?}");
            within_bound(
                &format!("{n} boards, timed"),
                &direct.to_vec(),
                &out,
                &scale,
            );
            outputs.push(out);
            if !times {
                ways.push(used.winograd_layers);
            }
        }
        assert_eq!(
            outputs[0], outputs[1],
            "33 boards again: the way chosen changed"
        );
        // 33 boards again and 40 run the one layer as their bucket's timing chose.
        assert!(ways == [0, 0] || ways == [1, 1], "{ways:?}");
    });
}
