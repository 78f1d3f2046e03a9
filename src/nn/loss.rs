//! Losses against data targets (plain tensors), built on the fused recorded ops.

use crate::tensor::{Tensor, Var};

/// Mean squared error over all elements.
pub fn mse(pred: &Var, target: &Tensor) -> Var {
    pred.mse(&Var::constant(target.clone()))
}

/// Mean squared error over the elements that `known` (pred's shape, 1 or 0 each) marks:
/// targets that some rows lack. The targets where it is 0 may be anything finite.
pub fn masked_mse(pred: &Var, target: &[f32], known: &[f32]) -> Var {
    let (shape, device) = (pred.shape().to_vec(), pred.value().device());
    let constant =
        |values: &[f32]| Var::constant(Tensor::from_vec(values.to_vec(), &shape, &device));
    let count: f32 = known.iter().sum();
    let miss = pred.sub(&constant(target)).mul(&constant(known));
    miss.mul(&miss).sum_all().mul_scalar(1.0 / count.max(1.0))
}

/// Mean over the batch of the cross-entropy of logits (batch, classes) against soft targets
/// (each row a distribution; one-hot rows give the usual classification loss).
pub fn cross_entropy_soft(logits: &Var, target: &Tensor) -> Var {
    logits.cross_entropy_soft(&Var::constant(target.clone()))
}

/// The AlphaZero loss and its parts. The parts stay on the device until asked for.
pub struct AlphaZeroLoss {
    /// policy + value, to back-propagate.
    pub total: Var,
    /// Cross-entropy of the policy logits against the search's visit distribution.
    pub policy: Tensor,
    /// Squared error of the value against the game result.
    pub value: Tensor,
}

/// Policy cross-entropy plus value MSE, for logits (n, moves), value (n), visit distributions
/// `pi` (n, moves) and results `z` (n). The L2 term comes from the optimizer's weight decay.
pub fn alphazero_loss(logits: &Var, value: &Var, pi: &Tensor, z: &Tensor) -> AlphaZeroLoss {
    let policy = cross_entropy_soft(logits, pi);
    let value_loss = mse(value, z);
    AlphaZeroLoss {
        total: policy.add(&value_loss),
        policy: policy.into_value(),
        value: value_loss.into_value(),
    }
}
