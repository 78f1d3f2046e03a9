//! The policy-value network: sizes, shapes, inference without a tape, and learning.

use super::{assert_close, cpu, rng};
use checkers_zero::nn::{
    Architecture, Ctx, Module, NetPreset, Optimizer, POLICY_SIZE, PolicyValueNet, alphazero_loss,
    dark_square_index, masked_mse,
};
use checkers_zero::tensor::{Tensor, Var};
use std::sync::Arc;

#[test]
fn preset_parameter_counts_match_pytorch() {
    // sum(p.numel() for p in net.parameters()) of bench/pytorch_reference.py's networks.
    for (name, count) in [
        ("az-tiny", 80999),
        ("az-small", 453191),
        ("az-large", 2968583),
        ("plain-7x128", 907527),
    ] {
        let preset: NetPreset = name.parse().unwrap();
        let net = PolicyValueNet::new(Architecture::preset(preset), &cpu(), &mut rng(0));
        assert_eq!(net.num_params(), count, "{name}");
    }
    // The dark-square networks, counted by hand: a stem of c x (8 planes x 5 taps) and its
    // batch norm (2c), blocks of two c x 5c convs with batch norms, a policy map of 4 x c + 4,
    // the value map (c) and its batch norm (2), then 32 x 64 + 64 and 64 + 1.
    for (name, c, blocks) in [("dark-tiny", 32, 4), ("dark-small", 64, 6)] {
        let count = c * 40
            + 2 * c
            + blocks * 2 * (c * 5 * c + 2 * c)
            + 4 * c
            + 4
            + c
            + 2
            + 32 * 64
            + 64
            + 65;
        let preset: NetPreset = name.parse().unwrap();
        let net = PolicyValueNet::new(Architecture::preset(preset), &cpu(), &mut rng(0));
        assert_eq!(net.num_params(), count, "{name}");
    }
    // Three more value planes add their 1x1 maps (3 x 32), batch norms (3 x 2) and the
    // MLP's weights from them (3 x 32 squares x 64).
    let dark = Architecture::preset(NetPreset::DarkTiny);
    let narrow = PolicyValueNet::new(dark.clone(), &cpu(), &mut rng(0)).num_params();
    let wide = PolicyValueNet::new(dark.with_value_planes(4), &cpu(), &mut rng(0));
    assert_eq!(wide.num_params(), narrow + 3 * 32 + 3 * 2 + 3 * 32 * 64);
    // Six more input planes add 6 x 32 x 3 x 3 stem weights.
    let wide = Architecture::preset(NetPreset::AzTiny).with_input_planes(14);
    assert_eq!(
        PolicyValueNet::new(wide, &cpu(), &mut rng(0)).num_params(),
        80999 + 6 * 32 * 9
    );
}

#[test]
fn unknown_preset_is_an_error() {
    let e = "az-huge".parse::<NetPreset>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "\"az-huge\": expected az-tiny, az-small, az-large, plain-7x128, dark-tiny, dark-small"
    );
    assert_eq!(NetPreset::NAMES.len(), 6);
}

#[test]
fn dark_squares_in_torch_mask_order() {
    let idx = dark_square_index();
    assert_eq!(idx.len(), POLICY_SIZE);
    // Row 0: columns 1, 3, 5, 7; row 1: 0, 2, 4, 6; ... then plane 1 starts at 64 + 1.
    assert_eq!(idx[..8], [1, 3, 5, 7, 8, 10, 12, 14]);
    assert_eq!(idx[31], 62);
    assert_eq!(idx[32], 65);
    assert_eq!(idx[127], 254);
    assert!(idx.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn shapes_and_inference_without_a_tape() {
    let mut net = PolicyValueNet::new(Architecture::preset(NetPreset::AzTiny), &cpu(), &mut rng(4));
    net.set_train(false);
    let x = Tensor::randn(&[3, 8, 8, 8], 1.0, &mut rng(5), &cpu());

    let ctx = Ctx::inference();
    let (logits, v) = net.forward(&ctx, &Var::constant(x.clone()));
    assert_eq!(logits.shape(), [3, POLICY_SIZE]);
    assert_eq!(v.shape(), [3]);
    assert!(
        !ctx.is_recording() && !logits.is_tracked() && !v.is_tracked(),
        "inference records nothing"
    );

    let ctx = Ctx::training();
    let (logits2, _) = net.forward(&ctx, &Var::constant(x.clone()));
    assert!(logits2.is_tracked() && !ctx.tape().unwrap().is_empty());
    // Inference folds batch norm into the convolutions (one more rounding per weight, sums
    // in another order), so the two agree to rounding, not bit for bit.
    assert_close(
        &logits2.value().to_vec(),
        &logits.value().to_vec(),
        1e-4,
        1e-5,
        "recording does not change values",
    );

    let (p, v) = net.predict(&x);
    assert_eq!(p.shape(), [3, POLICY_SIZE]);
    for row in p.to_vec().chunks(POLICY_SIZE) {
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5 && row.iter().all(|&q| q > 0.0));
    }
    assert!(v.to_vec().iter().all(|v| v.abs() < 1.0));
}

#[test]
fn shared_between_threads() {
    let mut net = PolicyValueNet::new(Architecture::preset(NetPreset::AzTiny), &cpu(), &mut rng(6));
    net.set_train(false);
    let net = Arc::new(net);
    let x = Tensor::randn(&[2, 8, 8, 8], 1.0, &mut rng(7), &cpu());
    let want = net.predict(&x).1.to_vec();
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let (net, x) = (Arc::clone(&net), x.clone());
            std::thread::spawn(move || net.predict(&x).1.to_vec())
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), want);
    }
}

#[test]
fn training_steps_reduce_the_alphazero_loss() {
    let (dev, mut r) = (cpu(), rng(8));
    let mut net = PolicyValueNet::new(Architecture::preset(NetPreset::AzTiny), &dev, &mut r);
    let x = Tensor::randn(&[16, 8, 8, 8], 1.0, &mut r, &dev);
    let pi = Tensor::randn(&[16, POLICY_SIZE], 2.0, &mut r, &dev).softmax(-1);
    let z = Tensor::randn(&[16], 1.0, &mut r, &dev).tanh();
    // As bench/pytorch_reference.py trains: SGD, momentum 0.9, weight decay 1e-4.
    let mut opt = Optimizer::sgd(0.02, 0.9, 1e-4, &net);
    let mut losses = Vec::new();
    for _ in 0..12 {
        let ctx = Ctx::training();
        let (logits, v) = net.forward(&ctx, &Var::constant(x.clone()));
        let loss = alphazero_loss(&logits, &v, &pi, &z);
        let total = loss.total.value().item();
        assert!(
            (total - loss.policy.item() - loss.value.item()).abs() < 1e-5,
            "total = policy + value"
        );
        losses.push(total);
        let grads = ctx.param_grads(&net, &loss.total.backward());
        assert!(
            grads.iter().all(Option::is_some),
            "every parameter takes part"
        );
        opt.step(&mut net, &grads);
    }
    let (first, last) = (losses[0], *losses.last().unwrap());
    // A fixed batch is memorised quickly; 12 steps take off well over a tenth of the loss.
    eprintln!("az losses {losses:?}");
    assert!(last < 0.9 * first, "losses {losses:?}");
}

/// Widening the value head changes nothing the network computes (the new planes enter the
/// MLP with zero weights), and training then uses the new planes.
#[test]
fn a_widened_value_head_computes_the_same_and_then_learns() {
    let (dev, mut r) = (cpu(), rng(9));
    let mut net = PolicyValueNet::new(Architecture::preset(NetPreset::DarkTiny), &dev, &mut r);
    let x = Tensor::randn(&[16, 8, 8, 8], 1.0, &mut r, &dev);
    let pi = Tensor::randn(&[16, POLICY_SIZE], 2.0, &mut r, &dev).softmax(-1);
    let z = Tensor::randn(&[16], 1.0, &mut r, &dev).tanh();
    let step = |net: &mut PolicyValueNet, opt: &mut Optimizer| {
        let ctx = Ctx::training();
        let (logits, v) = net.forward(&ctx, &Var::constant(x.clone()));
        let loss = alphazero_loss(&logits, &v, &pi, &z);
        let grads = ctx.param_grads(&*net, &loss.total.backward());
        opt.step(net, &grads);
    };
    // Trained a little, so that no weight or batch-norm statistic is at its initial value.
    let mut opt = Optimizer::adam(1e-3, 1e-4, &net);
    for _ in 0..3 {
        step(&mut net, &mut opt);
    }
    let mut wide = net.widen_value_head(4, &mut rng(10));
    assert_eq!(wide.arch(), &net.arch().clone().with_value_planes(4));
    net.set_train(false);
    wide.set_train(false);
    let (p, v) = net.predict(&x);
    let (wp, wv) = wide.predict(&x);
    assert_close(&wp.to_vec(), &p.to_vec(), 1e-5, 1e-7, "policy");
    assert_close(&wv.to_vec(), &v.to_vec(), 1e-5, 1e-7, "value");
    // The MLP's weights from the new planes (columns 32 on of each row) start at zero and
    // move once the wide network trains.
    let new_columns = |net: &PolicyValueNet| -> Vec<f32> {
        let mut params = super::param_values(net);
        let fc1 = params.remove(params.len() - 4);
        fc1.chunks(4 * 32)
            .flat_map(|row| row[32..].to_vec())
            .collect()
    };
    assert!(new_columns(&wide).iter().all(|&w| w == 0.0));
    wide.set_train(true);
    let mut opt = Optimizer::adam(1e-3, 1e-4, &wide);
    for _ in 0..2 {
        step(&mut wide, &mut opt);
    }
    assert!(new_columns(&wide).iter().any(|&w| w != 0.0));
    wide.set_train(false);
    let (_, moved) = wide.predict(&x);
    assert_ne!(moved.to_vec(), v.to_vec());
}

/// A head added or taken away changes nothing the network computes for play, and its
/// squared error against fixed targets falls as the network trains on it with the rest.
#[test]
fn an_auxiliary_head_leaves_play_alone_and_learns() {
    let (dev, mut r) = (cpu(), rng(11));
    let mut net = PolicyValueNet::new(Architecture::preset(NetPreset::DarkTiny), &dev, &mut r);
    let x = Tensor::randn(&[16, 8, 8, 8], 1.0, &mut r, &dev);
    let pi = Tensor::randn(&[16, POLICY_SIZE], 2.0, &mut r, &dev).softmax(-1);
    let z = Tensor::randn(&[16], 1.0, &mut r, &dev).tanh();
    let targets: Vec<f32> = Tensor::randn(&[16, 2], 1.0, &mut r, &dev).tanh().to_vec();
    let known = vec![1.0; 32];
    let mut opt = Optimizer::adam(1e-3, 1e-4, &net);
    // One step of the whole loss, returning the head's part.
    let step = |net: &mut PolicyValueNet, opt: &mut Optimizer| {
        let ctx = Ctx::training();
        let (logits, v, aux) = net.forward_aux(&ctx, &Var::constant(x.clone()));
        let loss = alphazero_loss(&logits, &v, &pi, &z);
        let aux = aux.map(|aux| masked_mse(&aux, &targets, &known));
        let total = match &aux {
            Some(aux) => loss.total.add(aux),
            None => loss.total,
        };
        let grads = ctx.param_grads(&*net, &total.backward());
        opt.step(net, &grads);
        aux.map(|aux| aux.value().item())
    };
    assert_eq!(
        step(&mut net, &mut opt),
        None,
        "no head, no auxiliary output"
    );
    let mut with = net.with_aux(2, &mut rng(12));
    assert_eq!(with.arch(), &net.arch().clone().with_aux(2));
    assert_eq!(with.num_params(), net.num_params() + 64 * 2 + 2);
    let without = with.with_aux(0, &mut rng(13));
    assert_eq!(super::param_values(&without), super::param_values(&net));
    for other in [&mut net, &mut with] {
        other.set_train(false);
    }
    let (p, v) = net.predict(&x);
    let (wp, wv) = with.predict(&x);
    assert_eq!((wp.to_vec(), wv.to_vec()), (p.to_vec(), v.to_vec()));
    with.set_train(true);
    let mut opt = Optimizer::adam(3e-3, 1e-4, &with);
    let losses: Vec<f32> = (0..12)
        .map(|_| step(&mut with, &mut opt).unwrap())
        .collect();
    assert!(losses[11] < 0.7 * losses[0], "losses {losses:?}");
}
