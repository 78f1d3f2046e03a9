//! The body block of the policy-value networks (`BodyBlock` in bench/pytorch_reference.py).

use super::{BatchNorm2d, Conv2d};
use crate::nn::onnx::Graph;
use crate::nn::{Ctx, Module};
use crate::tensor::{Device, Var};
use rand::Rng;

/// Residual: relu(x + bn(conv(relu(bn(conv(x)))))); plain: relu(bn(conv(x))). Convolutions are
/// 3x3, bias-free (batch norm's shift replaces the bias), and keep the channel count.
#[derive(Clone, Debug)]
pub struct ResidualBlock {
    c1: Conv2d,
    b1: BatchNorm2d,
    second: Option<(Conv2d, BatchNorm2d)>,
}

impl ResidualBlock {
    pub fn new(
        channels: usize,
        residual: bool,
        device: &Device,
        rng: &mut impl Rng,
    ) -> ResidualBlock {
        let c1 = Conv2d::new(channels, channels, 3, 1, false, device, rng);
        let b1 = BatchNorm2d::new(channels, device);
        let second = residual.then(|| {
            (
                Conv2d::new(channels, channels, 3, 1, false, device, rng),
                BatchNorm2d::new(channels, device),
            )
        });
        ResidualBlock { c1, b1, second }
    }

    /// Adds this block to an ONNX graph reading `x`, as its forward computes in inference
    /// (batch norms folded into the convolutions); returns the block's output.
    pub(crate) fn onnx(&self, g: &mut Graph, name: &str, x: &str) -> String {
        let y = self.c1.onnx(g, &format!("{name}.conv1"), Some(&self.b1), x);
        let y = g.node("Relu", &[&y], &[]);
        match &self.second {
            None => y,
            Some((c2, b2)) => {
                let z = c2.onnx(g, &format!("{name}.conv2"), Some(b2), &y);
                let sum = g.node("Add", &[&z, x], &[]);
                g.node("Relu", &[&sum], &[])
            }
        }
    }

    fn parts(&self) -> impl Iterator<Item = &dyn Module<Output = Var>> {
        let first: [&dyn Module<Output = Var>; 2] = [&self.c1, &self.b1];
        let second = self.second.iter().flat_map(|(c, b)| {
            [
                c as &dyn Module<Output = Var>,
                b as &dyn Module<Output = Var>,
            ]
        });
        first.into_iter().chain(second)
    }

    fn parts_mut(&mut self) -> impl Iterator<Item = &mut dyn Module<Output = Var>> {
        let first: [&mut dyn Module<Output = Var>; 2] = [&mut self.c1, &mut self.b1];
        let second = self.second.iter_mut().flat_map(|(c, b)| {
            [
                c as &mut dyn Module<Output = Var>,
                b as &mut dyn Module<Output = Var>,
            ]
        });
        first.into_iter().chain(second)
    }
}

impl Module for ResidualBlock {
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        let y = self.c1.forward_bn(ctx, &self.b1, x, None, true);
        match &self.second {
            None => y,
            Some((c2, b2)) => c2.forward_bn(ctx, b2, &y, Some(x), true),
        }
    }

    crate::nn::module::visit_parts!();
}
