//! What every value network of the classic learners offers (the checkers MLPs of
//! value_net.rs, the Othello tower network): values of a batch of inputs, the value and
//! its gradient for one input as one flat vector (what TD's eligibility traces run over),
//! and the weights as that flat vector (what GA and PSO evolve).

use crate::nn::{Ctx, Module, flat_params, set_flat_params};
use crate::tensor::{Tensor, Var};

pub trait ValueModel: Module<Output = Var> {
    /// What one input is (a checkers position, an Othello board's discs).
    type Input;

    /// The network's input tensor for a batch.
    fn encode(&self, inputs: &[Self::Input]) -> Tensor;

    /// Values for the side to move, in (-1, 1), one per input (inference, nothing recorded).
    fn values(&self, inputs: &[Self::Input]) -> Vec<f32> {
        if inputs.is_empty() {
            return Vec::new();
        }
        let x = Var::constant(self.encode(inputs));
        self.forward(&Ctx::inference(), &x).value().to_vec()
    }

    /// The value of one input and its gradient with respect to the flat weights.
    fn value_and_grad(&self, input: &Self::Input) -> (f32, Vec<f32>) {
        let ctx = Ctx::training();
        let x = Var::constant(self.encode(std::slice::from_ref(input)));
        let v = self.forward(&ctx, &x).sum_all();
        let grad = ctx.flat_param_grads(self, &v.backward());
        (v.value().item(), grad)
    }

    /// All parameters in visit order, flattened.
    fn weights(&self) -> Vec<f32> {
        flat_params(self)
    }

    fn set_weights(&mut self, weights: &[f32])
    where
        Self: Sized,
    {
        set_flat_params(self, weights);
    }
}
