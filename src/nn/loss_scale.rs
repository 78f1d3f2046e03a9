//! Dynamic loss scaling for mixed precision (`precision=mixed`): the tensor cores multiply
//! f16 operands, and f16 has no values below 6e-8 (none with full precision below 6.1e-5),
//! where a mean loss's gradients over a large batch lie. The backward pass starts from the
//! loss's gradient times a scale, so its products see the gradients scaled up, and the
//! parameters' gradients are divided by it again before the optimizer (the weights and the
//! optimizer's state stay f32). A scale that overflows f16 gives infinities: that step is
//! skipped and the scale halved; after `GROWTH_INTERVAL` good steps it doubles. The scales
//! are powers of two, so scaling and unscaling change no finite f32 gradient.

use super::{Ctx, Module, Optimizer};
use crate::tensor::{Device, Tensor, Var};

/// The first scale: 2^16, as large as f16's range suggests before any overflow says less.
const INITIAL: f32 = 65536.0;
/// Good steps before the scale doubles.
const GROWTH_INTERVAL: u32 = 2000;
/// The scale never goes below 1 (the plain loss).
const SMALLEST: f32 = 1.0;

/// A loss scale and the good steps since it last changed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossScale {
    scale: f32,
    good: u32,
}

impl Default for LossScale {
    fn default() -> Self {
        LossScale {
            scale: INITIAL,
            good: 0,
        }
    }
}

/// A training step's parameter gradients under a loss scale, unscaled, and one value that is
/// finite exactly when they all are.
pub struct ScaledGrads {
    pub grads: Vec<Option<Tensor>>,
    /// The sum of every gradient entry: infinite or NaN if any entry is.
    pub check: Tensor,
}

impl LossScale {
    /// The scale a training loop on `device` needs: one where its products are mixed.
    pub fn for_device(device: &Device) -> Option<LossScale> {
        device.mixed().then(LossScale::default)
    }

    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// `module`'s parameter gradients of the scalar `loss`, back-propagated from `scale`
    /// and divided by it.
    pub fn backward<M: Module + ?Sized>(&self, ctx: &Ctx, module: &M, loss: &Var) -> ScaledGrads {
        let seed = Tensor::full(loss.shape(), self.scale, &loss.value().device());
        let scaled = ctx.param_grads(module, &loss.backward_with(seed));
        let grads: Vec<Option<Tensor>> = scaled
            .iter()
            .map(|g| g.as_ref().map(|g| g.mul_scalar(1.0 / self.scale)))
            .collect();
        let check = (grads.iter().flatten().map(Tensor::sum_all))
            .reduce(|all, sum| all.add(&sum))
            .unwrap_or_else(|| Tensor::zeros(&[1], &loss.value().device()));
        ScaledGrads { grads, check }
    }

    /// Notes whether a step's gradients were finite; true when the step should be taken.
    pub fn update(&mut self, finite: bool) -> bool {
        if !finite {
            self.scale = (self.scale / 2.0).max(SMALLEST);
            self.good = 0;
            return false;
        }
        self.good += 1;
        if self.good >= GROWTH_INTERVAL {
            self.scale *= 2.0;
            self.good = 0;
        }
        true
    }
}

/// One optimizer step on the gradients of the scalar `loss`, under `scale` where mixed
/// precision has one, reading `read` back in the same wait. A scaled step waits for its
/// check before the optimizer runs, and is not taken if its gradients overflowed.
pub fn step_reading<M: Module + ?Sized>(
    ctx: &Ctx,
    model: &mut M,
    opt: &mut Optimizer,
    loss: &Var,
    scale: Option<&mut LossScale>,
    read: &[&Tensor],
) -> Vec<Vec<f32>> {
    match scale {
        None => {
            let grads = ctx.param_grads(&*model, &loss.backward());
            opt.step(model, &grads);
            Tensor::to_vecs(read)
        }
        Some(scale) => {
            let scaled = scale.backward(ctx, &*model, loss);
            let mut all = read.to_vec();
            all.push(&scaled.check);
            let mut values = Tensor::to_vecs(&all);
            let check = values.pop().unwrap_or_default();
            if scale.update(check.first().is_some_and(|c| c.is_finite())) {
                opt.step(model, &scaled.grads);
            }
            values
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::{Architecture, NetPreset, PolicyValueNet, alphazero_loss};
    use rand::{SeedableRng, rngs::StdRng};

    /// A tiny network's training loss on random boards, and the context that recorded it.
    fn loss_of(net: &PolicyValueNet, seed: u64) -> (Ctx, Var) {
        let dev = Device::Cpu;
        let mut rng = StdRng::seed_from_u64(seed);
        let x = Tensor::randn(&[4, 8, 8, 8], 1.0, &mut rng, &dev);
        let pi = Tensor::full(&[4, 128], 1.0 / 128.0, &dev);
        let z = Tensor::full(&[4], 0.5, &dev);
        let ctx = Ctx::training();
        let (logits, v) = net.forward(&ctx, &Var::constant(x));
        let total = alphazero_loss(&logits, &v, &pi, &z).total;
        (ctx, total)
    }

    fn tiny() -> PolicyValueNet {
        let mut rng = StdRng::seed_from_u64(7);
        PolicyValueNet::new(
            Architecture::preset(NetPreset::AzTiny),
            &Device::Cpu,
            &mut rng,
        )
    }

    #[test]
    fn scaled_gradients_are_the_plain_ones_exactly() {
        let net = tiny();
        let (ctx, loss) = loss_of(&net, 1);
        let plain = ctx.param_grads(&net, &loss.backward());
        let (ctx, loss) = loss_of(&net, 1);
        let scaled = LossScale::default().backward(&ctx, &net, &loss);
        assert_eq!(plain.len(), scaled.grads.len());
        for (p, s) in plain.iter().zip(&scaled.grads) {
            let (p, s) = (
                p.as_ref().map(Tensor::to_vec),
                s.as_ref().map(Tensor::to_vec),
            );
            assert_eq!(p, s, "a power-of-two scale changes no f32 gradient");
        }
        assert!(scaled.check.to_vec()[0].is_finite());
    }

    #[test]
    fn an_overflow_anywhere_shows_in_the_check() {
        let net = tiny();
        let (ctx, loss) = loss_of(&net, 2);
        // An infinite seed makes every gradient entry infinite or NaN, as an f16 overflow
        // in any product would make some.
        let overflowing = LossScale {
            scale: f32::INFINITY,
            good: 0,
        };
        let scaled = overflowing.backward(&ctx, &net, &loss);
        assert!(!scaled.check.to_vec()[0].is_finite());
    }

    #[test]
    fn the_scale_halves_on_overflow_and_doubles_after_good_steps() {
        let mut s = LossScale::default();
        assert!(!s.update(false));
        assert_eq!(s.scale(), INITIAL / 2.0);
        for _ in 0..GROWTH_INTERVAL - 1 {
            assert!(s.update(true));
        }
        assert_eq!(s.scale(), INITIAL / 2.0);
        assert!(s.update(true));
        assert_eq!(s.scale(), INITIAL);
        let mut low = LossScale {
            scale: 1.0,
            good: 0,
        };
        low.update(false);
        assert_eq!(low.scale(), 1.0, "never below the plain loss");
    }
}
