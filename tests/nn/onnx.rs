//! `checkers-zero export MODEL --onnx FILE`, run in ONNX Runtime: on positions from random
//! play, the exported graph gives the policy logits and values our inference gives, for both
//! games' policy heads, residual and plain bodies, and the built-in network. ONNX Runtime
//! runs through Python (tests/nn/onnx_run.py); without python3 and its onnxruntime and numpy
//! the test skips, unless CHECKERS_ZERO_REQUIRE_ALL=1, where it fails.

use crate::common::skip;
use checkers_zero::games::{Checkers, Game, NetInput, Othello, checkers};
use checkers_zero::net::{Lineage, NetGame, save_model};
use checkers_zero::nn::{Architecture, Body, Ctx, Module, NetPreset, PolicyValueNet};
use checkers_zero::tensor::{Device, Tensor, Var};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::process::Command;

const RUNNER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/nn/onnx_run.py");
/// Positions a network is compared on.
const POSITIONS: usize = 48;
/// The policy (the softmax of the logits) and the value agree to this, absolute; the logits
/// to this relative to their size (absolute below 1). ONNX Runtime computes with the very
/// weights our inference computes with, in f32, so the two differ by rounding alone (sums
/// in another order; against our layer-by-layer forward, also the fold's rounding), which
/// grows with the logit: the built-in network's logits reach 19 and differ by up to 9e-6,
/// where each side is about 7e-6 from the graph evaluated in f64.
const ATOL: f32 = 1e-5;

#[test]
fn onnx_runtime_gives_our_policy_and_value() {
    let ok = Command::new("python3")
        .args(["-c", "import onnxruntime, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        return skip("python3 cannot import onnxruntime and numpy (pip install onnxruntime numpy)");
    }
    let dir = std::env::temp_dir().join(format!("cz-onnx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let tiny = Architecture::preset(NetPreset::AzTiny);
    let plain = Architecture {
        name: "plain-5x32".into(),
        body: Body::Plain,
        blocks: 5,
        ..tiny.clone()
    };
    let history = checkers::encoding::Encoding {
        history: 2,
        legal_hops: true,
    };
    compare_random::<Checkers>(&dir, "checkers-tiny", tiny.clone(), history, 1);
    compare_random::<Checkers>(&dir, "checkers-plain", plain.clone(), Default::default(), 2);
    // A value head of several planes, as a widened network has.
    let dark = Architecture::preset(NetPreset::DarkTiny).with_value_planes(3);
    compare_random::<Checkers>(&dir, "checkers-dark", dark, Default::default(), 6);
    compare_random::<Othello>(&dir, "othello-tiny", tiny, (), 3);
    compare_random::<Othello>(&dir, "othello-plain", plain, (), 4);

    let (net, encoding, _) = Checkers::default_model(&Device::Cpu).unwrap();
    let built_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/default.bin");
    compare::<Checkers>(&dir, "built-in", &built_in, net, encoding, 5);
    std::fs::remove_dir_all(&dir).ok();
}

/// A fresh network of `arch`, its batch norms moved far from the identity, saved as a model
/// file, compared.
fn compare_random<G: NetGame>(
    dir: &Path,
    name: &str,
    arch: Architecture,
    encoding: G::Encoding,
    seed: u64,
) {
    let mut rng = StdRng::seed_from_u64(seed);
    let arch = arch.with_input_planes(G::planes(&encoding));
    let mut net = PolicyValueNet::with_head(arch, G::HEAD, &Device::Cpu, &mut rng);
    // A fresh batch norm is the identity (mean 0, variance 1, gamma 1, beta 0), which a fold
    // that went wrong, or none, would pass. Every 1-D parameter (gammas, betas, biases) is
    // shifted at random, and training-mode forwards move the running statistics to those of
    // positions from other games than the compared ones.
    net.params_mut(&mut |p| {
        if p.value().shape().len() == 1 {
            p.set(p.value().add(&uniform(p.value().shape(), 0.3, &mut rng)));
        }
    });
    let planes = G::planes(&encoding);
    let x = Tensor::from_vec(
        random_play::<G>(&encoding, seed + 100),
        &[POSITIONS, planes, 8, 8],
        &Device::Cpu,
    );
    for _ in 0..30 {
        net.forward(&Ctx::inference(), &Var::constant(x.clone()));
    }
    let path = dir.join(format!("{name}.ckpt"));
    save_model::<G>(&path, &net, encoding, &Lineage::default(), None).unwrap();
    compare::<G>(dir, name, &path, net, encoding, seed);
}

/// Values drawn uniformly from [-bound, bound).
fn uniform(shape: &[usize], bound: f32, rng: &mut StdRng) -> Tensor {
    let n = shape.iter().product();
    let values = (0..n).map(|_| rng.random_range(-bound..bound)).collect();
    Tensor::from_vec(values, shape, &Device::Cpu)
}

/// Exports the model file at `path` (holding `net`, fed by `encoding`) with the command line,
/// runs it in ONNX Runtime on positions from random play, and checks its outputs against
/// `net`'s, computed both ways our forward runs in evaluation mode.
fn compare<G: NetGame>(
    dir: &Path,
    name: &str,
    path: &Path,
    mut net: PolicyValueNet,
    encoding: G::Encoding,
    seed: u64,
) {
    let onnx = dir.join(format!("{name}.onnx"));
    let mut export = crate::common::program();
    export.arg("export").arg(path).arg("--onnx").arg(&onnx);
    succeed(&mut export, name);

    let planes = G::planes(&encoding);
    let x = random_play::<G>(&encoding, seed);
    let input = dir.join(format!("{name}.in.f32"));
    std::fs::write(&input, f32_bytes(&x)).unwrap();
    let outputs = dir.join(name);
    std::fs::create_dir_all(&outputs).unwrap();
    let mut run = Command::new("python3");
    run.arg(RUNNER).args([&onnx, &input]);
    run.arg(POSITIONS.to_string()).arg(&outputs);
    let stdout = succeed(&mut run, name);
    let graph: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    let policy_size = net.head().outputs();
    assert_eq!(
        graph["inputs"],
        serde_json::json!([["planes", ["batch", planes, 8, 8]]]),
        "{name}"
    );
    assert_eq!(
        graph["outputs"],
        serde_json::json!([["policy", ["batch", policy_size]], ["value", ["batch"]]]),
        "{name}"
    );
    assert_eq!(graph["metadata"]["game"], G::NAME.name(), "{name}");

    let read = |output: &str| -> Vec<f32> {
        let bytes = std::fs::read(outputs.join(format!("{output}.f32"))).unwrap();
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    let (policy, value) = (read("policy"), read("value"));

    // Ours twice: as the agents run it (inference: each batch norm folded into its conv, the
    // residual add and ReLU fused in) and layer by layer (a recording context runs each batch
    // norm on its own with its running statistics), so the export is also checked against
    // a computation that shares no fold with it.
    net.set_train(false);
    let x = Var::constant(Tensor::from_vec(
        x,
        &[POSITIONS, planes, 8, 8],
        &Device::Cpu,
    ));
    for (how, ctx) in [("inference", Ctx::inference()), ("layers", Ctx::training())] {
        let (logits, values) = net.forward(&ctx, &x);
        let (logits, values) = (logits.value().to_vec(), values.value().to_vec());
        let what = format!("{name} against our {how}");
        let logit_diff = max_difference(&policy, &logits, 1.0, &format!("{what}: logits"));
        let policy_diff = max_difference(
            &softmax_rows(&policy, POSITIONS),
            &softmax_rows(&logits, POSITIONS),
            0.0,
            &format!("{what}: policy"),
        );
        let value_diff = max_difference(&value, &values, 0.0, &format!("{what}: value"));
        eprintln!(
            "{what}: {POSITIONS} positions, largest difference: policy {policy_diff:.2e}, \
             logit {logit_diff:.2e} (largest |logit| {:.2}), value {value_diff:.2e}",
            logits.iter().fold(0f32, |m, x| m.max(x.abs()))
        );
    }
    // The comparison means something only where the outputs vary from position to position
    // by far more than the tolerance, and the values are not all at tanh's flat ends.
    for (what, v) in [("logits", &policy), ("values", &value)] {
        let (low, high) = v
            .iter()
            .fold((f32::MAX, f32::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        assert!(
            high - low > 100.0 * ATOL,
            "{name}: the {what} hardly vary: {low}..{high}"
        );
    }
    assert!(
        value.iter().any(|v| v.abs() < 0.99),
        "{name}: every value saturated"
    );
}

/// What `command` printed on stdout, after checking it succeeded.
fn succeed(command: &mut Command, what: &str) -> Vec<u8> {
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what}: {command:?}: {stderr}");
    out.stdout
}

/// Each row of `rows` rows as probabilities.
fn softmax_rows(x: &[f32], rows: usize) -> Vec<f32> {
    x.chunks(x.len() / rows)
        .flat_map(|row| {
            let max = row.iter().fold(f32::MIN, |m, &v| m.max(v));
            let sum: f32 = row.iter().map(|&v| (v - max).exp()).sum();
            row.iter().map(move |&v| (v - max).exp() / sum)
        })
        .collect()
}

/// The largest |a - b|, after checking every pair is within [`ATOL`] times
/// max(`relative_from`, |ours|) (0: absolute).
fn max_difference(theirs: &[f32], ours: &[f32], relative_from: f32, what: &str) -> f32 {
    assert_eq!(theirs.len(), ours.len(), "{what}: lengths");
    let mut max = 0f32;
    for (i, (&a, &b)) in theirs.iter().zip(ours).enumerate() {
        let bound = if relative_from > 0.0 {
            ATOL * b.abs().max(relative_from)
        } else {
            ATOL
        };
        assert!(
            (a - b).abs() <= bound,
            "{what}[{i}]: ONNX Runtime {a}, ours {b}"
        );
        max = max.max((a - b).abs());
    }
    max
}

/// The encoded input of [`POSITIONS`] states met in random games from the start: turn
/// starts and, in checkers' multi-jumps, the states between the jumps; each kept with
/// probability 1/3, so that they spread over the games.
fn random_play<G: NetGame>(encoding: &G::Encoding, seed: u64) -> Vec<f32> {
    let mut rng = StdRng::seed_from_u64(seed);
    let size = G::planes(encoding) * 64;
    let mut x = Vec::with_capacity(POSITIONS * size);
    let mut game = Game::<G>::at_start();
    while x.len() < POSITIONS * size {
        if game.outcome().is_some() {
            game = Game::at_start();
        }
        let moves = game.legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        // Earlier turn starts, most recent first.
        let history: Vec<G::Position> = game.positions().iter().rev().skip(1).copied().collect();
        let mut state = G::turn_start(game.position());
        for action in G::actions_of(game.position(), &mv) {
            if rng.random_bool(1.0 / 3.0) && x.len() < POSITIONS * size {
                let mut actions = Vec::new();
                G::legal_actions(&state, &mut actions);
                let input = NetInput::<G> {
                    state: &state,
                    quiet: game.quiet_plies(),
                    history: &history,
                    actions: &actions,
                };
                let start = x.len();
                x.resize(start + size, 0.0);
                G::encode(encoding, &input, &mut x[start..]);
            }
            state = G::apply(&state, action);
        }
        game.play(mv);
    }
    x
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
