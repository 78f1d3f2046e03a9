//! Dynamic loss scaling for mixed precision (`precision=mixed`): the tensor cores multiply
//! f16 operands, and f16 has no values below 6e-8 (none with full precision below 6.1e-5),
//! where a mean loss's gradients over a large batch lie. The backward pass starts from the
//! loss's gradient times a scale, so its products see the gradients scaled up, and the
//! parameters' gradients are divided by it again as the optimizer reads them (the weights and
//! the optimizer's state stay f32). A scale that overflows f16 gives infinities: that step is
//! skipped and the scale halved; after `GROWTH_INTERVAL` good steps it doubles. The scales
//! are powers of two, so scaling and unscaling change no finite f32 gradient. On a GPU the
//! unscaling, the check and the skipping are the optimizer's kernel's (with a sum over all
//! gradients before it), so a scaled step costs three dispatches more than a plain one and
//! no extra wait: the host learns whether it was taken with the losses it reads anyway.

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

impl LossScale {
    /// The scale a training loop on `device` needs: one where its products are mixed.
    pub fn for_device(device: &Device) -> Option<LossScale> {
        device.mixed().then(LossScale::default)
    }

    /// A scale starting at `scale` (a power of two, so that scaling changes no finite f32
    /// gradient) rather than the default's.
    pub fn starting_at(scale: f32) -> LossScale {
        LossScale { scale, good: 0 }
    }

    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// `module`'s parameter gradients of the scalar `loss`, back-propagated from the scale:
    /// the gradients times the scale.
    fn scaled_grads<M: Module + ?Sized>(
        &self,
        ctx: &Ctx,
        module: &M,
        loss: &Var,
    ) -> Vec<Option<Tensor>> {
        let seed = Tensor::full(loss.shape(), self.scale, &loss.value().device());
        ctx.param_grads(module, &loss.backward_with(seed))
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
/// precision has one, reading `read` back in the same wait. A scaled step is not taken if
/// its gradients overflowed, which its check, read back with `read`, says.
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
            let grads = scale.scaled_grads(ctx, &*model, loss);
            let check = opt.step_scaled(model, &grads, 1.0 / scale.scale);
            let mut all = read.to_vec();
            all.push(&check);
            let mut values = Tensor::to_vecs(&all);
            let check = values.pop().unwrap_or_default();
            if !scale.update(check.first().is_some_and(|c| c.is_finite())) {
                opt.not_taken();
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

    /// One Adam step of the tiny network on `loss_of(seed)` under `scale`: the parameters
    /// after it, the steps the optimizer counts, and the scale after it.
    fn stepped(seed: u64, mut scale: Option<LossScale>) -> (Vec<Vec<f32>>, u32, Option<LossScale>) {
        let mut net = tiny();
        let mut opt = Optimizer::adam(1e-3, 1e-4, &net);
        let (ctx, loss) = loss_of(&net, seed);
        step_reading(&ctx, &mut net, &mut opt, &loss, scale.as_mut(), &[]);
        let mut params = Vec::new();
        net.params(&mut |p| params.push(p.value().to_vec()));
        (params, opt.steps(), scale)
    }

    #[test]
    fn a_scaled_step_is_the_plain_one_exactly() {
        let (plain, steps, _) = stepped(1, None);
        let (scaled, scaled_steps, scale) = stepped(1, Some(LossScale::default()));
        assert!(
            plain == scaled,
            "a power-of-two scale changes no f32 gradient"
        );
        assert_eq!((steps, scaled_steps), (1, 1));
        assert_eq!(scale.map(|s| s.scale()), Some(INITIAL));
    }

    #[test]
    fn an_overflow_anywhere_skips_the_step_and_halves_the_scale() {
        let start = {
            let mut params = Vec::new();
            tiny().params(&mut |p| params.push(p.value().to_vec()));
            params
        };
        let (moved, _, _) = stepped(2, Some(LossScale::default()));
        assert!(moved != start, "a finite step moves the parameters");
        // A seed of 2^127 overflows every gradient entry above 2 in size, as an f16 overflow
        // in any product would overflow some.
        let (after, steps, scale) = stepped(2, Some(LossScale::starting_at(2f32.powi(127))));
        assert!(after == start, "the step was not taken");
        assert_eq!(steps, 0, "a step not taken does not count");
        assert_eq!(scale.map(|s| s.scale()), Some(2f32.powi(126)));
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
