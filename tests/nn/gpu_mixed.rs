//! Mixed precision (`precision=mixed`, the tensor tile of shaders/gemm_tensor.wgsl): every
//! product on f16 cooperative matrices with f32 sums, against the CPU's f32. Where the
//! adapter cannot run it (lavapipe has no cooperative matrices), asking for it is refused
//! with the reason and the products stay f32.
//!
//! The bounds, per element, over the sum of |w| |x| each output is made of (docs/gpu.md):
//! - a direct product rounds each operand to f16 once (unit roundoff u = 2^-11), so each
//!   term is off by at most 2u of |w| |x| and the f32 sum adds next to nothing: 2u, with a
//!   little room for the f32 sums;
//! - Winograd's products round the transformed operands, whose error the output transform
//!   weighs by up to 256 (as in tests/nn/gpu_winograd.rs): the bound is 32u, twice the
//!   largest ratio an emulation of this rounding (f16 operands, f32 sums, numpy) gave on
//!   az-tiny's, az-small's and az-large's body layers at 32 boards (15.7u).

use super::gpu_parity::{PlannedTiles, WinogradAsBefore, normal};
use super::gpu_winograd::{abs, within_scaled as within};
use crate::common;
use checkers_zero::backend::gpu::Gpu;
use checkers_zero::tensor::Device;

/// f16's unit roundoff.
const U16: f32 = 1.0 / 2048.0;
const DIRECT_BOUND: f32 = 2.5 * U16;
const WINOGRAD_BOUND: f32 = 32.0 * U16;

/// The products back on f32 when a test that put them on tensor cores ends, even by a panic.
struct StrictAgain<'a>(&'a Gpu);

impl Drop for StrictAgain<'_> {
    fn drop(&mut self) {
        self.0
            .set_mixed(false)
            .expect("strict precision is always allowed");
    }
}

#[test]
fn mixed_precision_products_match_f32_within_f16s_rounding() {
    // Mixed changes every product's plan: no other GPU test runs meanwhile.
    common::on_gpu_alone(|gpu, g| {
        let _planned = PlannedTiles(g);
        if let Err(e) = g.set_mixed(true) {
            let why = e.to_string();
            assert!(
                why.contains("precision=mixed: ")
                    && why.ends_with("; strict f32 is the only precision here"),
                "the refusal says what the adapter lacks: {why}"
            );
            assert!(
                !g.mixed(),
                "a refused mixed precision leaves the products on f32"
            );
            eprintln!("note: {why}");
            return;
        }
        let _strict = StrictAgain(g);
        let mut worst = (0.0f32, 0.0f32);
        // az-small's body layer at 32 boards (Winograd's fewest) and 37 (partial tiles), and
        // its stem (8 planes: the implicit GEMM), each with Winograd on and off.
        for (layer, c_in, c_out, n) in [
            ("body", 64, 64, 32),
            ("body", 64, 64, 37),
            ("stem", 8, 64, 32),
        ] {
            let seed = 1200 + c_in as u64 + n as u64;
            let x = normal(&[n, c_in, 8, 8], seed);
            let w = normal(&[c_out, c_in, 3, 3], seed + 1);
            let gy = normal(&[n, c_out, 8, 8], seed + 2);
            let shape = x.shape().to_vec();
            let scale = abs(&x).conv2d(&abs(&w), None, (1, 1), (1, 1)).to_vec();
            let grad_scale = abs(&gy)
                .conv2d_grad_input(&abs(&w), &shape, (1, 1), (1, 1))
                .to_vec();
            let weight_scale = abs(&x)
                .conv2d_grad_weight(&abs(&gy), w.shape(), (1, 1), (1, 1))
                .to_vec();
            let on = |dev: &Device| {
                let (x, w, gy) = (x.to_device(dev), w.to_device(dev), gy.to_device(dev));
                [
                    x.conv2d(&w, None, (1, 1), (1, 1)).to_vec(),
                    gy.conv2d_grad_input(&w, &shape, (1, 1), (1, 1)).to_vec(),
                    x.conv2d_grad_weight(&gy, w.shape(), (1, 1), (1, 1))
                        .to_vec(),
                ]
            };
            let exact = on(&Device::Cpu);
            for winograd in [true, false] {
                let _w = WinogradAsBefore::set(g, winograd);
                let bound = if winograd && c_in >= 16 {
                    WINOGRAD_BOUND
                } else {
                    DIRECT_BOUND
                };
                let what = format!("az-small {layer}, {n} boards, winograd {winograd}");
                let out = on(gpu);
                let f = within(
                    &format!("{what} forward"),
                    &exact[0],
                    &out[0],
                    &scale,
                    bound,
                );
                let gi = within(
                    &format!("{what} input gradient"),
                    &exact[1],
                    &out[1],
                    &grad_scale,
                    bound,
                );
                // The weight gradient is always a direct product.
                let gw = within(
                    &format!("{what} weight gradient"),
                    &exact[2],
                    &out[2],
                    &weight_scale,
                    DIRECT_BOUND,
                );
                let slot = if bound == WINOGRAD_BOUND {
                    &mut worst.1
                } else {
                    &mut worst.0
                };
                *slot = slot.max(f).max(gi);
                worst.0 = worst.0.max(gw);
            }
        }
        // A plain product whose sizes leave partial tiles both ways.
        let (a, b) = (normal(&[100, 72], 1300), normal(&[72, 130], 1301));
        let exact = a.matmul(&b).to_vec();
        let scale = abs(&a).matmul(&abs(&b)).to_vec();
        let mixed = a.to_device(gpu).matmul(&b.to_device(gpu)).to_vec();
        worst.0 = worst.0.max(within(
            "matmul 100x72 by 72x130",
            &exact,
            &mixed,
            &scale,
            DIRECT_BOUND,
        ));
        eprintln!(
            "mixed: largest error over sum |w||x|: direct {:.2}u, winograd {:.2}u (u = 2^-11)",
            worst.0 / U16,
            worst.1 / U16
        );
    });
}
