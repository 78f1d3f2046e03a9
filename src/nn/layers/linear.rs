//! Fully connected layer: y = x W^T + b for x (n, in), W (out, in) as PyTorch stores it.

use super::fold::untracked;
use super::uniform_fan_in;
use crate::backend::Activation;
use crate::nn::onnx::{Attr, Graph};
use crate::nn::{Ctx, Module, Param};
use crate::tensor::{Device, Var};
use rand::Rng;

#[derive(Clone, Debug)]
pub struct Linear {
    weight: Param,
    bias: Option<Param>,
}

impl Linear {
    pub fn new(
        inputs: usize,
        outputs: usize,
        bias: bool,
        device: &Device,
        rng: &mut impl Rng,
    ) -> Linear {
        let weight = uniform_fan_in(&[outputs, inputs], inputs, device, rng);
        let bias = bias.then(|| uniform_fan_in(&[outputs], inputs, device, rng));
        Linear { weight, bias }
    }

    /// act?(x W^T + b). Inference (nothing recorded, an untracked input) runs as one fused op
    /// (`Tensor::linear`); otherwise matmul, bias and activation are recorded one by one.
    pub fn forward_act(&self, ctx: &Ctx, x: &Var, act: Option<Activation>) -> Var {
        if untracked(ctx, x, None) {
            let bias = self.bias.as_ref().map(Param::value);
            return Var::constant(x.value().linear(self.weight.value(), bias, act));
        }
        let y = self.forward(ctx, x);
        match act {
            None => y,
            Some(Activation::Relu) => y.relu(),
            Some(Activation::Tanh) => y.tanh(),
        }
    }

    /// Adds this layer to an ONNX graph as a Gemm node reading `x` (n, in), its weights
    /// named `name.*`; returns the node's output.
    pub(crate) fn onnx(&self, g: &mut Graph, name: &str, x: &str) -> String {
        let bias = self.bias.as_ref().map(Param::value);
        // W is stored (out, in), as y = x W^T + b reads it.
        let attrs = [Attr::Int("transB", 1)];
        g.layer("Gemm", name, x, self.weight.value(), bias, &attrs)
    }
}

impl Module for Linear {
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        let y = x.matmul_t(&ctx.param(&self.weight), false, true);
        match &self.bias {
            Some(b) => y.add(&ctx.param(b)),
            None => y,
        }
    }

    fn params(&self, f: &mut dyn FnMut(&Param)) {
        f(&self.weight);
        self.bias.iter().for_each(f);
    }

    fn params_mut(&mut self, f: &mut dyn FnMut(&mut Param)) {
        f(&mut self.weight);
        self.bias.iter_mut().for_each(f);
    }
}
