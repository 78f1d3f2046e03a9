//! The body block of the policy-value networks (`BodyBlock` in bench/pytorch_reference.py),
//! over the whole 8x8 board or over its dark squares.

use super::{BatchNorm2d, Conv2d, DarkConv, DarkInput};
use crate::nn::onnx::Graph;
use crate::nn::{Ctx, Module, Param};
use crate::tensor::{Device, Var};
use rand::Rng;

/// A convolution of a body: 3x3 over the 8x8 board, (n, c, 8, 8) in and out, or over the dark
/// squares (a square and its diagonal neighbours), (n x 32, c) in and out.
#[derive(Clone, Debug)]
pub enum BoardConv {
    Grid(Conv2d),
    Dark(DarkConv),
}

impl BoardConv {
    /// relu?(bn(conv(x)) + residual?), as the layer's own `forward_bn`.
    pub fn forward_bn(
        &self,
        ctx: &Ctx,
        bn: &BatchNorm2d,
        x: &Var,
        residual: Option<&Var>,
        relu: bool,
    ) -> Var {
        match self {
            BoardConv::Grid(c) => c.forward_bn(ctx, bn, x, residual, relu),
            BoardConv::Dark(c) => c.forward_bn(ctx, bn, x, residual, relu),
        }
    }

    /// The layer added to an ONNX graph, as the layer's own `onnx`.
    pub(crate) fn onnx(
        &self,
        g: &mut Graph,
        name: &str,
        bn: Option<&BatchNorm2d>,
        x: &str,
    ) -> String {
        match self {
            BoardConv::Grid(c) => c.onnx(g, name, bn, x),
            BoardConv::Dark(c) => c.onnx(g, name, bn, x),
        }
    }

    fn layer(&self) -> &dyn Module<Output = Var> {
        match self {
            BoardConv::Grid(c) => c,
            BoardConv::Dark(c) => c,
        }
    }

    fn layer_mut(&mut self) -> &mut dyn Module<Output = Var> {
        match self {
            BoardConv::Grid(c) => c,
            BoardConv::Dark(c) => c,
        }
    }
}

impl Module for BoardConv {
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        self.layer().forward(ctx, x)
    }

    fn params(&self, f: &mut dyn FnMut(&Param)) {
        self.layer().params(f)
    }

    fn params_mut(&mut self, f: &mut dyn FnMut(&mut Param)) {
        self.layer_mut().params_mut(f)
    }
}

/// Residual: relu(x + bn(conv(relu(bn(conv(x)))))); plain: relu(bn(conv(x))). Convolutions are
/// bias-free (batch norm's shift replaces the bias) and keep the channel count.
#[derive(Clone, Debug)]
pub struct ResidualBlock {
    c1: BoardConv,
    b1: BatchNorm2d,
    second: Option<(BoardConv, BatchNorm2d)>,
}

impl ResidualBlock {
    /// A block of 3x3 convolutions over the 8x8 board.
    pub fn new(
        channels: usize,
        residual: bool,
        device: &Device,
        rng: &mut impl Rng,
    ) -> ResidualBlock {
        ResidualBlock::of(residual, channels, device, || {
            BoardConv::Grid(Conv2d::new(channels, channels, 3, 1, false, device, rng))
        })
    }

    /// A residual block of convolutions over the dark squares.
    pub fn dark(channels: usize, device: &Device, rng: &mut impl Rng) -> ResidualBlock {
        ResidualBlock::of(true, channels, device, || {
            let input = DarkInput::Squares(channels);
            BoardConv::Dark(DarkConv::new(input, channels, true, false, device, rng))
        })
    }

    fn of(
        residual: bool,
        channels: usize,
        device: &Device,
        mut conv: impl FnMut() -> BoardConv,
    ) -> ResidualBlock {
        let c1 = conv();
        let b1 = BatchNorm2d::new(channels, device);
        let second = residual.then(|| (conv(), BatchNorm2d::new(channels, device)));
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
