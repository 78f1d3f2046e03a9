//! The same model code on the GPU backend (any wgpu adapter, Mesa's software one included):
//! training steps, inference and a checkpoint moved across devices agree with the CPU.
//! Without an adapter the test skips with a note, unless CHECKERS_ZERO_REQUIRE_ALL=1.

use super::{cpu, param_values, rng};
use crate::common::on_gpu;
use checkers_zero::nn::{
    Architecture, Body, Ctx, Module, Optimizer, PolicyValueNet, alphazero_loss,
};
use checkers_zero::tensor::{Device, Tensor, Var};

/// ||a - b|| <= rel ||a||: the backends sum in different orders.
fn assert_norm_close(a: &[f32], b: &[f32], rel: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let diff = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f32>()
        .sqrt();
    let norm = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!(
        diff <= rel * norm.max(1e-6),
        "{what}: |cpu - gpu| = {diff:e}, |cpu| = {norm:e}"
    );
}

struct Run {
    losses: Vec<f32>,
    params: Vec<Vec<f32>>,
    policy: Vec<f32>,
    value: Vec<f32>,
    net: PolicyValueNet,
}

/// Three SGD steps on a fixed batch, then inference in evaluation mode; everything made on
/// `dev` from the same seed, so both devices start from the same numbers.
fn run(dev: &Device) -> Run {
    let arch = Architecture {
        name: "device-test".into(),
        input_planes: 4,
        channels: 8,
        blocks: 2,
        body: Body::Residual,
        value_planes: 1,
        aux: 0,
    };
    let mut r = rng(9);
    let mut net = PolicyValueNet::new(arch, dev, &mut r);
    let x = Tensor::randn(&[8, 4, 8, 8], 1.0, &mut r, dev);
    let pi = Tensor::randn(&[8, 128], 1.0, &mut r, dev).softmax(-1);
    let z = Tensor::randn(&[8], 0.5, &mut r, dev).tanh();
    let mut opt = Optimizer::sgd(0.02, 0.9, 1e-4, &net);
    let mut losses = Vec::new();
    for _ in 0..3 {
        let ctx = Ctx::training();
        let (logits, v) = net.forward(&ctx, &Var::constant(x.clone()));
        let loss = alphazero_loss(&logits, &v, &pi, &z);
        losses.push(loss.total.value().item());
        let grads = ctx.param_grads(&net, &loss.total.backward());
        opt.step(&mut net, &grads);
    }
    net.set_train(false);
    let (p, v) = net.predict(&x);
    Run {
        losses,
        params: param_values(&net),
        policy: p.to_vec(),
        value: v.to_vec(),
        net,
    }
}

#[test]
fn gpu_training_and_inference_match_the_cpu() {
    on_gpu(|gpu| {
        let (c, g) = (run(&cpu()), run(gpu));
        // f32 sums in another order, carried through three steps: 1e-4 relative is ~100x that.
        assert_norm_close(&c.losses, &g.losses, 1e-4, "losses");
        for (k, (a, b)) in c.params.iter().zip(&g.params).enumerate() {
            assert_norm_close(a, b, 1e-4, &format!("parameter {k}"));
        }
        assert_norm_close(&c.policy, &g.policy, 1e-4, "policy");
        assert_norm_close(&c.value, &g.value, 1e-4, "value");

        // A checkpoint written from the GPU model loads onto the CPU with the same numbers.
        let path = std::env::temp_dir().join(format!("cz-nn-{}-device.ckpt", std::process::id()));
        g.net.save(&path, None).unwrap();
        let (mut moved, _) = PolicyValueNet::load(&path, &cpu()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(param_values(&moved), g.params);
        moved.set_train(false);
        let x = Tensor::randn(&[2, 4, 8, 8], 1.0, &mut rng(10), &cpu());
        let on_cpu = moved.predict(&x).0.to_vec();
        let on_gpu = g.net.predict(&x.to_device(gpu)).0.to_vec();
        assert_norm_close(&on_cpu, &on_gpu, 1e-5, "moved policy");
    });
}

/// One search on the GPU keeps two batches in flight (each begun before the one before it
/// is finished): their evaluations are the CPU network's, and the search completes exactly
/// its simulations with every virtual loss taken back.
#[test]
fn a_search_on_the_gpu_keeps_two_batches_in_flight() {
    use checkers_zero::agents::AzConfig;
    use checkers_zero::games::{Checkers, Game};
    use checkers_zero::mcts::{Encoding, Evaluator, NetEvaluator, Puct};
    use checkers_zero::nn::NetPreset;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    on_gpu(|gpu| {
        // The same seed makes the same network on either device.
        let evaluator = |dev: &Device| {
            let arch = Architecture::preset(NetPreset::DarkTiny);
            let net = PolicyValueNet::new(arch, dev, &mut rng(11));
            NetEvaluator::<Checkers>::new(net, Encoding::default(), dev.clone()).unwrap()
        };
        let (mut on_cpu, mut on_gpu) = (evaluator(&cpu()), evaluator(gpu));
        assert_eq!((on_cpu.in_flight(), on_gpu.in_flight()), (1, 2));

        // Two batches from one search, the second gathered under the first's virtual loss.
        let mut search = Puct::new(AzConfig::default().puct, &Game::new());
        let mut r = StdRng::seed_from_u64(3);
        search.run(&mut on_cpu, 60, &mut r);
        let (a, b) = (search.gather(8, 0, &mut r), search.gather(8, 0, &mut r));
        let (begun_a, begun_b) = (on_gpu.begin(&a.inputs), on_gpu.begin(&b.inputs));
        for (leaves, begun) in [(&a, begun_a), (&b, begun_b)] {
            let (want, got) = (on_cpu.evaluate(&leaves.inputs), begun.finish());
            let flat = |e: &[checkers_zero::mcts::Evaluation]| -> Vec<f32> {
                e.iter()
                    .flat_map(|e| e.priors.iter().copied().chain([e.value]))
                    .collect()
            };
            assert_norm_close(&flat(&want), &flat(&got), 1e-4, "a batch in flight");
        }

        let mut search = Puct::new(AzConfig::default().puct, &Game::new());
        search.run(&mut on_gpu, 200, &mut StdRng::seed_from_u64(4));
        let tree = search.tree();
        assert_eq!(tree.root().visits, 200);
        assert!((0..tree.len() as u32).all(|i| tree.node(i).virtual_loss == 0));
    });
}
