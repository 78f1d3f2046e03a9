//! Tap convolutions (`Tensor::tap_conv`) against their definition, and the dark-square
//! convolution built on them.

use super::{assert_close, cpu, moved_batch_norm, rng};
use checkers_zero::backend::NO_CELL;
use checkers_zero::nn::{Ctx, DarkConv, DarkInput, Module};
use checkers_zero::tensor::{TapTable, Tensor, Var};
use rand::Rng;
use rand::seq::SliceRandom;

/// A table of `cells_out` x `taps` over `cells_in` cells: each tap reads distinct cells (a
/// shuffled subset), about one entry in five none.
pub fn random_table(cells_in: usize, cells_out: usize, taps: usize, seed: u64) -> TapTable {
    let mut r = rng(seed);
    let mut index = vec![NO_CELL; cells_out * taps];
    for t in 0..taps {
        let mut cells: Vec<u32> = (0..cells_in as u32).collect();
        cells.shuffle(&mut r);
        for (s, &cell) in cells.iter().take(cells_out).enumerate() {
            if r.random_range(0..5) > 0 {
                index[s * taps + t] = cell;
            }
        }
    }
    TapTable::new(cells_in, taps, index)
}

/// relu?(sum over c, t of w[o, c * taps + t] x[n, c, table[s, t]] + bias[o] + residual), by
/// loops.
fn by_definition(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    residual: Option<&Tensor>,
    relu: bool,
    table: &TapTable,
) -> Vec<f32> {
    let [n, c_in, cells_in] = *x.shape() else {
        unreachable!()
    };
    let c_out = w.shape()[0];
    let (taps, cells_out) = (table.taps(), table.cells_out());
    let (xv, wv) = (x.to_vec(), w.to_vec());
    let bias = bias.map(Tensor::to_vec);
    let residual = residual.map(Tensor::to_vec);
    let mut out = vec![0.0f32; n * c_out * cells_out];
    for i in 0..n {
        for o in 0..c_out {
            for s in 0..cells_out {
                let mut sum = 0.0f64;
                for c in 0..c_in {
                    for t in 0..taps {
                        let cell = table.index()[s * taps + t];
                        if cell != NO_CELL {
                            let v = xv[(i * c_in + c) * cells_in + cell as usize];
                            sum += (wv[o * c_in * taps + c * taps + t] * v) as f64;
                        }
                    }
                }
                let at = (i * c_out + o) * cells_out + s;
                let mut y = sum as f32 + bias.as_ref().map_or(0.0, |b| b[o]);
                y += residual.as_ref().map_or(0.0, |r| r[at]);
                out[at] = if relu { y.max(0.0) } else { y };
            }
        }
    }
    out
}

#[test]
fn a_tap_convolution_is_its_definition() {
    // (n, c_in, cells_in, c_out, cells_out, taps): a few cells (no whole tile of columns, so
    // one image a product), boards of 32 cells in groups of images, output channels that
    // fill tiles unevenly, one tap, and the 8x8 planes read by 32 cells.
    let cases = [
        (2, 3, 6, 4, 5, 3),
        (9, 5, 32, 7, 32, 5),
        (3, 32, 32, 70, 32, 5),
        (4, 6, 32, 3, 32, 1),
        (5, 8, 64, 32, 32, 5),
    ];
    for (i, (n, c_in, cells_in, c_out, cells_out, taps)) in cases.into_iter().enumerate() {
        let seed = 10 * i as u64;
        let table = random_table(cells_in, cells_out, taps, seed);
        let x = Tensor::randn(&[n, c_in, cells_in], 1.0, &mut rng(seed + 1), &cpu());
        let w = Tensor::randn(&[c_out, c_in * taps], 1.0, &mut rng(seed + 2), &cpu());
        let b = Tensor::randn(&[c_out], 1.0, &mut rng(seed + 3), &cpu());
        let res = Tensor::randn(&[n, c_out, cells_out], 1.0, &mut rng(seed + 4), &cpu());
        for (bias, residual, relu) in [
            (None, None, false),
            (Some(&b), None, true),
            (Some(&b), Some(&res), true),
            (None, Some(&res), false),
        ] {
            let got = x.tap_conv(&w, bias, residual, relu, &table);
            assert_eq!(got.shape(), [n, c_out, cells_out]);
            let what = format!(
                "case {i}, bias {}, residual {}, relu {relu}",
                bias.is_some(),
                residual.is_some()
            );
            let want = by_definition(&x, &w, bias, residual, relu, &table);
            // The definition sums in f64; the kernel's f32 sums of k products of unit normals
            // (partial sums of size about sqrt(k)) round by about k f32 ulps of 1.
            let atol = 2e-6 * (c_in * taps) as f32;
            assert_close(&got.to_vec(), &want, 1e-5, atol, &what);
        }
    }
}

#[test]
#[should_panic(expected = "tap 1 reads cell 2 twice")]
fn a_table_whose_tap_reads_a_cell_twice_is_refused() {
    TapTable::new(4, 2, vec![0, 2, 1, 2]);
}

/// A dark-square conv with every weight 1 and no bias, from one channel to one.
fn ones(input: DarkInput, diagonal: bool) -> DarkConv {
    let mut conv = DarkConv::new(input, 1, diagonal, false, &cpu(), &mut rng(1));
    conv.params_mut(&mut |p| p.set(Tensor::ones(p.shape(), &cpu())));
    conv
}

#[test]
fn the_dark_conv_reads_a_square_and_its_diagonal_neighbours() {
    // One piece on the planes at row 3, column 4 (dark): the square itself and the four
    // squares diagonally next to it see it; a piece on a light cell is seen by none.
    let conv = ones(DarkInput::Planes(1), true);
    let seen = |cell: usize| {
        let mut planes = vec![0.0; 64];
        planes[cell] = 1.0;
        let x = Var::constant(Tensor::from_vec(planes, &[1, 1, 8, 8], &cpu()));
        conv.forward(&Ctx::inference(), &x).value().to_vec()
    };
    // Squares count 4 a row: row 3's dark cells are columns 0, 2, 4, 6 (square 14 at 4);
    // rows 2 and 4 hold columns 3 and 5 as squares 9, 10 and 17, 18.
    let mut want = vec![0.0; 32];
    for s in [9, 10, 14, 17, 18] {
        want[s] = 1.0;
    }
    assert_eq!(seen(3 * 8 + 4), want);
    assert_eq!(seen(3 * 8 + 3), vec![0.0; 32], "a light cell");
    // In a corner (row 7, column 0: square 28) only one neighbour, square 24 (row 6, col 1).
    let mut corner = vec![0.0; 32];
    corner[24] = 1.0;
    corner[28] = 1.0;
    assert_eq!(seen(7 * 8), corner);
    // A one-tap conv over the squares is the identity with these weights.
    let point = ones(DarkInput::Squares(1), false);
    let x = Tensor::randn(&[2, 1, 32], 1.0, &mut rng(3), &cpu());
    let y = point.forward(&Ctx::inference(), &Var::constant(x.clone()));
    assert_eq!(y.value().to_vec(), x.to_vec());
}

#[test]
fn fused_dark_conv_batch_norm_inference_matches_the_layers() {
    // As for the grid conv: inference folds the evaluation-mode batch norm into the tap
    // convolution with the residual and ReLU; a recording context runs the layers.
    let dev = cpu();
    let mut r = rng(7);
    for (input, diagonal, bias) in [
        (DarkInput::Planes(5), true, false),
        (DarkInput::Squares(5), true, false),
        (DarkInput::Squares(5), false, true),
    ] {
        let conv = DarkConv::new(input, 6, diagonal, bias, &dev, &mut r);
        let shape = match input {
            DarkInput::Planes(p) => vec![4, p, 8, 8],
            DarkInput::Squares(c) => vec![4, c, 32],
        };
        let bn = moved_batch_norm(6, |seed| {
            let x = Var::constant(Tensor::randn(&shape, 2.0, &mut rng(seed), &dev));
            let y = conv.forward(&Ctx::inference(), &x);
            y.reshape(&[4, 6, 32, 1])
        });
        let x = Var::constant(Tensor::randn(&shape, 1.0, &mut rng(20), &dev));
        let res = Var::constant(Tensor::randn(&[4, 6, 32], 1.0, &mut rng(21), &dev));
        for (residual, relu) in [(None, false), (None, true), (Some(&res), true)] {
            let fused = conv.forward_bn(&Ctx::inference(), &bn, &x, residual, relu);
            let layers = conv.forward_bn(&Ctx::training(), &bn, &x, residual, relu);
            assert_close(
                &fused.value().to_vec(),
                &layers.value().to_vec(),
                1e-5,
                1e-5,
                &format!("{input:?}, residual {}, relu {relu}", residual.is_some()),
            );
        }
    }
}

/// `precision=mixed` on the CPU is per evaluator: where the CPU has AMX tiles, a dark-tiny
/// evaluator at mixed precision, called in turn with a strict one on the same thread, gives
/// priors and values near the strict one's (the network's outputs through bf16 products)
/// but not equal to them, and the strict one's stay bit for bit what a strict evaluator
/// alone gives; elsewhere asking for it is refused, saying what the CPU lacks.
#[test]
fn a_mixed_evaluator_on_the_cpu_leaves_a_strict_one_strict() {
    use checkers_zero::agents::AzConfig;
    use checkers_zero::backend::cpu::amx;
    use checkers_zero::games::{Checkers, Game};
    use checkers_zero::mcts::{Encoding, Evaluator, NetEvaluator, Puct};
    use checkers_zero::nn::{Architecture, NetPreset, PolicyValueNet};
    use checkers_zero::tensor::Precision;
    let asked = cpu().set_precision(Precision::Mixed);
    if !amx::available() {
        let why = asked.expect_err("mixed is refused without AMX").to_string();
        assert!(why.contains("AMX"), "{why}");
        eprintln!("note: this CPU has no AMX tiles; only the refusal was tested");
        return;
    }
    asked.expect("mixed is granted with AMX");
    assert!(
        !amx::evaluators_mixed(),
        "asking the device changes no other evaluator"
    );
    let evaluator = |precision| {
        let net = PolicyValueNet::new(
            Architecture::preset(NetPreset::DarkTiny),
            &cpu(),
            &mut rng(5),
        );
        NetEvaluator::<Checkers>::new(net, Encoding::default(), cpu())
            .unwrap()
            .at(precision)
    };
    // Eight leaves of a search's tree.
    let mut search = Puct::new(AzConfig::default().puct, &Game::new());
    let mut r = rng(6);
    search.run(&mut evaluator(Precision::Strict), 60, &mut r);
    let inputs = search.gather(8, 0, &mut r).inputs;
    let flat = |e: Vec<checkers_zero::mcts::Evaluation>| -> Vec<f32> {
        e.into_iter()
            .flat_map(|e| e.priors.into_iter().chain([e.value]))
            .collect()
    };
    let alone = flat(evaluator(Precision::Strict).evaluate(&inputs));
    let (mut mixed, mut strict) = (evaluator(Precision::Mixed), evaluator(Precision::Strict));
    for _ in 0..2 {
        let near = flat(mixed.evaluate(&inputs));
        let exact = flat(strict.evaluate(&inputs));
        assert_eq!(exact, alone, "a strict evaluator beside a mixed one");
        assert_close(&near, &alone, 0.05, 0.01, "mixed against strict");
        assert_ne!(near, alone, "the mixed evaluator computed in f32");
    }
}
