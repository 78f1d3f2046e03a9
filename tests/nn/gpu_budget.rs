//! What a training step and an inference batch of az-small ask of the GPU: dispatches, submits
//! and blocking waits, read from the context's counters. A GPU punishes many small dispatches
//! and every host wait, so these are budgets a change must stay within.

use crate::common;
use checkers_zero::nn::{
    Architecture, Ctx, LossScale, Module, NetPreset, Optimizer, PolicyValueNet, alphazero_loss,
    step_reading,
};
use checkers_zero::tensor::{Device, Tensor, Var};
use rand::SeedableRng;
use rand::rngs::StdRng;

/// Dispatches of one az-small training step at batch 256 (forward, loss, backward, Adam): 197
/// on lavapipe. Each of the twelve 64-channel 3x3 body layers takes two dispatches (Winograd's
/// products and output transform, src/backend/gpu/winograd.rs) in its forward and its input
/// gradient, and Winograd's products are never split over k, so a hardware GPU needs no more.
/// With `CHECKERS_ZERO_GPU_WINOGRAD=0`: 173 on lavapipe, 185 on an NVIDIA H200 (whose input
/// gradients are then split over k in two, one more dispatch each to add the parts).
const TRAIN_DISPATCHES: u64 = 200;
/// Dispatches of one az-small inference batch, at any size: 43 from 32 boards where each
/// body layer takes Winograd's three (its input transform, its products and its output
/// transform: src/backend/gpu/winograd.rs, `forward_ahead`; the filters' transform is made
/// on the first call with the weights and kept), 19 below or as implicit GEMMs (one implicit
/// GEMM a layer, whose k of 576 is too short for a forward split to pay: conv.rs,
/// `MIN_FORWARD_SPLIT_K`). The value head's two linear layers take one each, their bias
/// and activation applied as the product stores (matmul.rs, `linear`).
const INFERENCE_DISPATCHES: u64 = 43;

#[test]
fn az_small_training_step_and_inference_stay_within_their_budgets() {
    // Alone on the device, so no other test's work is counted.
    common::on_gpu_alone(budgets);
}

fn budgets(gpu: &Device, g: &checkers_zero::backend::gpu::Gpu) {
    let gpu = gpu.clone();
    let arch = Architecture::preset(NetPreset::AzSmall);
    let mut rng = StdRng::seed_from_u64(0);
    let mut net = PolicyValueNet::new(arch.clone(), &gpu, &mut rng);
    let batch = 256;
    let x = Tensor::randn(&[batch, arch.input_planes, 8, 8], 1.0, &mut rng, &gpu);
    let pi = Tensor::randn(&[batch, 128], 1.0, &mut rng, &gpu).softmax(-1);
    let z = Tensor::uniform(&[batch], 1.0, &mut rng, &gpu);
    let mut opt = Optimizer::adam(1e-3, 1e-4, &net);
    let mut step = || {
        let ctx = Ctx::training();
        let (logits, value) = net.forward(&ctx, &Var::constant(x.clone()));
        let loss = alphazero_loss(&logits, &value, &pi, &z);
        let grads = ctx.param_grads(&net, &loss.total.backward());
        opt.step(&mut net, &grads);
        Tensor::to_vecs(&[&loss.policy, &loss.value])
    };
    // One step: lavapipe takes most of a minute over it. (The first step also gathers the
    // parameters into the optimizer's flat buffers, by copies, which are not dispatches.)
    let before = g.counters();
    let losses = step();
    let used = g.counters() - before;
    assert!(losses.iter().flatten().all(|l| l.is_finite()), "{losses:?}");
    eprintln!("az-small training step at 256: {used:?}");
    let budget = TRAIN_DISPATCHES;
    assert!(
        used.dispatches <= budget,
        "a training step took {} dispatches, over its budget of {budget}",
        used.dispatches
    );
    assert_eq!(used.waits, 1, "a training step waits once, for its losses");
    assert!(
        used.submits >= 2,
        "the device starts before the step is recorded"
    );

    net.set_train(false);
    let x = x.to_vec();
    for boards in [1, 64] {
        let x = x[..boards * arch.input_planes * 64].to_vec();
        let x = Tensor::from_vec(x, &[boards, arch.input_planes, 8, 8], &gpu);
        // The first call after training folds each batch norm into its conv (kept until the
        // weights change); count a call after it.
        net.predict(&x);
        let before = g.counters();
        let (policy, value) = net.predict(&x);
        let out = Tensor::to_vecs(&[&policy, &value]);
        let used = g.counters() - before;
        assert_eq!((out[0].len(), out[1].len()), (boards * 128, boards));
        assert_eq!(
            used.waits, 1,
            "an inference batch waits once, for policy and value together"
        );
        assert!(
            used.dispatches <= INFERENCE_DISPATCHES,
            "inference of {boards} boards took {} dispatches",
            used.dispatches
        );
        assert_eq!(
            used.buffers_made, 0,
            "a repeated inference call finds every buffer it needs in the pool"
        );
    }
    gpu.check().expect("no device fault");
}

/// Dispatches a training step under a loss scale (mixed precision's) takes beyond a plain
/// step: the zeros the gradients are gathered into and their sum (a reduction in two passes),
/// before the optimizer's kernel, which unscales them and takes the step only where that sum
/// is finite. (Before, the unscaling and the check took about three dispatches a parameter
/// tensor, 157 more for az-small on an H200, and a second wait.)
const SCALED_EXTRA_DISPATCHES: u64 = 3;

/// A step under a loss scale leaves the parameters a plain step leaves (the scale is a power
/// of two), for three more dispatches and no more waits; under a scale that overflows, the
/// device leaves them as they were and the step does not count.
#[test]
fn a_scaled_training_step_decides_on_the_device() {
    common::on_gpu_alone(|gpu, g| {
        // One Adam step of az-tiny at 32 boards under `scale`: the parameters after it, what
        // the step asked of the GPU, the steps the optimizer counts and the scale after it.
        let step = |mut scale: Option<LossScale>| {
            let arch = Architecture::preset(NetPreset::AzTiny);
            let mut rng = StdRng::seed_from_u64(3);
            let mut net = PolicyValueNet::new(arch.clone(), gpu, &mut rng);
            let x = Tensor::randn(&[32, arch.input_planes, 8, 8], 1.0, &mut rng, gpu);
            let pi = Tensor::randn(&[32, 128], 1.0, &mut rng, gpu).softmax(-1);
            let z = Tensor::uniform(&[32], 1.0, &mut rng, gpu);
            let mut opt = Optimizer::adam(1e-3, 1e-4, &net);
            let ctx = Ctx::training();
            let (logits, value) = net.forward(&ctx, &Var::constant(x));
            let loss = alphazero_loss(&logits, &value, &pi, &z);
            let before = g.counters();
            let read = [&loss.policy, &loss.value];
            step_reading(&ctx, &mut net, &mut opt, &loss.total, scale.as_mut(), &read);
            let used = g.counters() - before;
            let mut params = Vec::new();
            net.params(&mut |p| params.push(p.value().to_vec()));
            (params, used, opt.steps(), scale.map(|s| s.scale()))
        };
        let start = {
            let arch = Architecture::preset(NetPreset::AzTiny);
            let net = PolicyValueNet::new(arch, gpu, &mut StdRng::seed_from_u64(3));
            let mut params = Vec::new();
            net.params(&mut |p| params.push(p.value().to_vec()));
            params
        };
        let (plain, plain_used, ..) = step(None);
        let (scaled, used, steps, scale) = step(Some(LossScale::default()));
        assert!(plain != start, "a finite step moves the parameters");
        assert!(
            plain == scaled,
            "a power-of-two scale changes no f32 gradient"
        );
        assert_eq!(
            used.dispatches,
            plain_used.dispatches + SCALED_EXTRA_DISPATCHES,
            "{used:?} against {plain_used:?}"
        );
        assert_eq!(
            used.waits, 1,
            "a scaled step waits once, for its losses and check"
        );
        assert_eq!((steps, scale), (1, Some(LossScale::default().scale())));
        // A seed of 2^127 overflows every gradient entry above 2 in size.
        let (after, used, steps, scale) = step(Some(LossScale::starting_at(2f32.powi(127))));
        assert!(
            after == start,
            "an overflowing step leaves the parameters as they were"
        );
        assert_eq!(used.waits, 1);
        assert_eq!((steps, scale), (0, Some(2f32.powi(126))));
        gpu.check().expect("no device fault");
    });
}
