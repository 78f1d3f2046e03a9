//! Training the policy-value network on the replay window: shuffled minibatches, the
//! AlphaZero loss (policy cross-entropy against the visit distribution plus value squared
//! error), the optimizer's weight decay as the L2 term.

use crate::games::{Checkers, Rules};
use crate::nn::{Ctx, LossScale, Module, Optimizer, PolicyValueNet, alphazero_loss, step_reading};
use crate::selfplay::replay::{Sample, ValueTarget, batch};
use crate::tensor::{Device, Var};
use indicatif::ProgressBar;
use rand::Rng;
use rand::seq::SliceRandom;

/// Mean losses over an iteration's training steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TrainStats {
    pub policy_loss: f32,
    pub value_loss: f32,
    pub steps: u64,
}

/// What one training pass needs besides the network.
pub struct TrainSpec<'a, G: Rules = Checkers> {
    pub encoding: &'a G::Encoding,
    pub target: ValueTarget,
    pub batch_size: usize,
    pub epochs: u32,
    pub device: &'a Device,
    /// Each sample seen under a random symmetry of the board.
    pub symmetries: bool,
}

/// The minibatch steps for `n` samples: whole batches only (a tiny last batch would give
/// batch norm poor statistics), or one batch of everything when there are fewer.
pub fn steps_per_epoch(n: usize, batch_size: usize) -> usize {
    if n == 0 { 0 } else { (n / batch_size).max(1) }
}

/// Trains `net` (in training mode) on `samples` for `spec.epochs` shuffled passes.
pub fn train_candidate<G: Rules>(
    net: &mut PolicyValueNet,
    opt: &mut Optimizer,
    samples: &[&Sample<G>],
    spec: &TrainSpec<G>,
    rng: &mut impl Rng,
    bar: &ProgressBar,
) -> TrainStats {
    net.set_train(true);
    let per_epoch = steps_per_epoch(samples.len(), spec.batch_size);
    let size = spec.batch_size.min(samples.len());
    let mut order: Vec<usize> = (0..samples.len()).collect();
    let mut stats = TrainStats::default();
    // Mixed precision's f16 products need the gradients scaled up (nn/loss_scale.rs).
    let mut scale = LossScale::for_device(spec.device);
    for _ in 0..spec.epochs {
        order.shuffle(rng);
        for chunk in order.chunks_exact(size.max(1)).take(per_epoch) {
            let picked: Vec<&Sample<G>> = chunk.iter().map(|&i| samples[i]).collect();
            let turn = spec.symmetries.then_some(&mut *rng);
            let (x, pi, z) = batch::<G>(&picked, spec.encoding, spec.target, spec.device, turn);
            let ctx = Ctx::training();
            let (logits, value) = net.forward(&ctx, &Var::constant(x));
            let loss = alphazero_loss(&logits, &value, &pi, &z);
            // One readback for both losses.
            let losses = step_reading(
                &ctx,
                net,
                opt,
                &loss.total,
                scale.as_mut(),
                &[&loss.policy, &loss.value],
            );
            stats.policy_loss += losses[0][0];
            stats.value_loss += losses[1][0];
            stats.steps += 1;
            bar.inc(1);
        }
    }
    let n = stats.steps.max(1) as f32;
    stats.policy_loss /= n;
    stats.value_loss /= n;
    net.set_train(false);
    stats
}
