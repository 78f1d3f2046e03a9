//! Training the policy-value network on the replay window: shuffled minibatches, the
//! AlphaZero loss (policy cross-entropy against the visit distribution plus value squared
//! error), the optimizer's weight decay as the L2 term, and where the network has the
//! auxiliary head, its squared error against the material lead some plies ahead.

use crate::games::{Checkers, Rules};
use crate::nn::{
    Ctx, LossScale, Module, Optimizer, PolicyValueNet, alphazero_loss, masked_mse, step_reading,
};
use crate::selfplay::replay::{Sample, ValueTarget, ahead_targets, batch};
use crate::tensor::{Device, Var};
use indicatif::ProgressBar;
use rand::Rng;
use rand::seq::SliceRandom;

/// Mean losses over an iteration's training steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TrainStats {
    pub policy_loss: f32,
    pub value_loss: f32,
    /// The auxiliary head's loss (none without the head or its weight).
    pub aux_loss: Option<f32>,
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
    /// The auxiliary head's loss is added this much of (0: not trained).
    pub aux_weight: f32,
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
            let (logits, value, aux) = net.forward_aux(&ctx, &Var::constant(x));
            let loss = alphazero_loss(&logits, &value, &pi, &z);
            let aux = aux.filter(|_| spec.aux_weight > 0.0).map(|aux| {
                let (targets, known) = ahead_targets(&picked);
                masked_mse(&aux, &targets, &known)
            });
            let total = match &aux {
                Some(aux) => loss.total.add(&aux.mul_scalar(spec.aux_weight)),
                None => loss.total,
            };
            let mut read = vec![&loss.policy, &loss.value];
            read.extend(aux.as_ref().map(Var::value));
            // One readback for all the losses.
            let losses = step_reading(&ctx, net, opt, &total, scale.as_mut(), &read);
            stats.policy_loss += losses[0][0];
            stats.value_loss += losses[1][0];
            if let Some(aux) = losses.get(2) {
                *stats.aux_loss.get_or_insert(0.0) += aux[0];
            }
            stats.steps += 1;
            bar.inc(1);
        }
    }
    let n = stats.steps.max(1) as f32;
    stats.policy_loss /= n;
    stats.value_loss /= n;
    stats.aux_loss = stats.aux_loss.map(|l| l / n);
    net.set_train(false);
    stats
}
