//! A batch norm folded into the layer before it, for inference: the conv (or dark-square
//! conv) computes bn(layer(x)) in one product with the scaled weights and a bias.

use super::BatchNorm2d;
use super::batch_norm::EvalState;
use crate::nn::{Ctx, Param};
use crate::tensor::{Tensor, Var};
use std::sync::{PoisonError, RwLock};

/// The tensors a fold is made from, in a fixed order: the layer's weight and bias, and the
/// batch norm's gamma, beta, running mean and running variance.
type FoldInputs<T> = [Option<T>; 6];

/// A batch norm folded into a layer's weight and bias, with the tensors it was made from.
struct Folded {
    from: FoldInputs<Tensor>,
    weight: Tensor,
    bias: Tensor,
}

/// The last fold, served only while every tensor it was made from is still the very one in
/// use (`Tensor::same_data`). Tensors are immutable and everything that changes a parameter or
/// a running statistic (an optimizer step, a checkpoint load, a training forward, moving to a
/// device) puts a new tensor in its place, so a stale fold is never served; holding the old
/// tensors keeps their buffers alive, so an address cannot be reused while it is compared.
/// A clone starts empty.
#[derive(Default)]
pub(super) struct FoldCache(RwLock<Option<Folded>>);

impl Clone for FoldCache {
    fn clone(&self) -> FoldCache {
        FoldCache::default()
    }
}

impl std::fmt::Debug for FoldCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FoldCache")
    }
}

impl FoldCache {
    /// The weight and bias inference computes with when `bn` follows the layer of `weight`
    /// and `bias`: `bn` folded in; `None` while `bn` is in training mode.
    fn folded(
        &self,
        weight: &Param,
        bias: Option<&Param>,
        bn: &BatchNorm2d,
    ) -> Option<(Tensor, Tensor)> {
        bn.with_eval_state(|s| self.fold(weight.value(), bias.map(Param::value), &s))
    }

    /// The folded weight and bias a forward computes with: `Some` only for inference (see
    /// [`untracked`]) with `bn` in evaluation mode.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn for_inference(
        &self,
        ctx: &Ctx,
        x: &Var,
        residual: Option<&Var>,
        weight: &Param,
        bias: Option<&Param>,
        bn: &BatchNorm2d,
    ) -> Option<(Tensor, Tensor)> {
        untracked(ctx, x, residual)
            .then(|| self.folded(weight, bias, bn))
            .flatten()
    }

    /// The weight and bias an exported graph holds: with `bn` (which must be in evaluation
    /// mode) folded in as inference folds it, or the layer's own without one.
    pub(super) fn exported(
        &self,
        weight: &Param,
        bias: Option<&Param>,
        bn: Option<&BatchNorm2d>,
    ) -> (Tensor, Option<Tensor>) {
        match bn {
            Some(bn) => {
                let (w, b) = self
                    .folded(weight, bias, bn)
                    .expect("a batch norm is exported in evaluation mode");
                (w, Some(b))
            }
            None => (weight.value().clone(), bias.map(|b| b.value().clone())),
        }
    }

    /// `weight` (output channels first, any rank) and `bias` with `bn` folded in, from the
    /// cache when none of the tensors they are made from has changed since.
    fn fold(&self, weight: &Tensor, bias: Option<&Tensor>, bn: &EvalState<'_>) -> (Tensor, Tensor) {
        let from: FoldInputs<&Tensor> = [
            Some(weight),
            bias,
            Some(bn.gamma),
            Some(bn.beta),
            Some(bn.mean),
            Some(bn.var),
        ];
        let fresh = |f: &Folded| {
            f.from.iter().zip(&from).all(|(a, b)| match (a, b) {
                (Some(a), Some(b)) => a.same_data(b),
                (None, None) => true,
                _ => false,
            })
        };
        if let Some(f) = self
            .0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|f| fresh(f))
        {
            return (f.weight.clone(), f.bias.clone());
        }
        // bn(layer(x) + b) = layer(x) * scale + (b * scale + shift), per output channel.
        let (scale, shift) = bn.affine();
        let mut per_output = vec![1; weight.rank()];
        per_output[0] = scale.numel();
        let folded_weight = weight.mul(&scale.reshape(&per_output));
        let folded_bias = match bias {
            Some(b) => b.mul(&scale).add(&shift),
            None => shift,
        };
        // Replaced whole, so a panic elsewhere cannot leave it torn.
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = Some(Folded {
            from: from.map(|t| t.cloned()),
            weight: folded_weight.clone(),
            bias: folded_bias.clone(),
        });
        (folded_weight, folded_bias)
    }
}

/// Whether a layer's forward can run in its fused inference form: nothing is recorded and
/// neither its input nor the residual is tracked.
pub(super) fn untracked(ctx: &Ctx, x: &Var, residual: Option<&Var>) -> bool {
    !ctx.is_recording() && !x.is_tracked() && residual.is_none_or(|r| !r.is_tracked())
}

/// relu?(y + residual?): the end of a layer with a batch norm, when a residual comes between
/// the batch norm and the ReLU.
pub(super) fn add_residual(y: Var, residual: Option<&Var>, relu: bool) -> Var {
    match residual {
        Some(r) => {
            let y = r.add(&y);
            if relu { y.relu() } else { y }
        }
        None => y,
    }
}
