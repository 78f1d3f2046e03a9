//! 2-D convolution, stride 1, square kernel, zero padding on every side.

use super::uniform_fan_in;
use crate::nn::{Ctx, Module, Param};
use crate::tensor::{Device, Var};
use rand::Rng;

#[derive(Clone, Debug)]
pub struct Conv2d {
    weight: Param,
    bias: Option<Param>,
    padding: usize,
}

impl Conv2d {
    /// `kernel` x `kernel` filters from `c_in` to `c_out` channels; `padding` 1 with kernel 3
    /// keeps the plane size.
    pub fn new(
        c_in: usize,
        c_out: usize,
        kernel: usize,
        padding: usize,
        bias: bool,
        device: &Device,
        rng: &mut impl Rng,
    ) -> Conv2d {
        let fan_in = c_in * kernel * kernel;
        let weight = uniform_fan_in(&[c_out, c_in, kernel, kernel], fan_in, device, rng);
        let bias = bias.then(|| uniform_fan_in(&[c_out], fan_in, device, rng));
        Conv2d {
            weight,
            bias,
            padding,
        }
    }
}

impl Module for Conv2d {
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        let bias = self.bias.as_ref().map(|b| ctx.param(b));
        x.conv2d(
            &ctx.param(&self.weight),
            bias.as_ref(),
            (self.padding, self.padding),
        )
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
