//! 2-D convolution, stride 1, square kernel, zero padding on every side.

use super::{BatchNorm2d, uniform_fan_in};
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

impl Conv2d {
    /// relu?(bn(conv(x)) + residual?), `residual` shaped like the output. Inference with `bn`
    /// in evaluation mode (nothing recorded, no tracked input) runs as one fused conv with the
    /// batch norm folded into the weights and bias, making no intermediate tensors; otherwise
    /// the layers run, and are recorded, one by one.
    pub fn forward_bn(
        &self,
        ctx: &Ctx,
        bn: &BatchNorm2d,
        x: &Var,
        residual: Option<&Var>,
        relu: bool,
    ) -> Var {
        let untracked =
            !ctx.is_recording() && !x.is_tracked() && residual.is_none_or(|r| !r.is_tracked());
        if let (true, Some((scale, shift))) = (untracked, bn.eval_affine()) {
            // bn(conv(x) + b) = conv(x) * scale + (b * scale + shift), per output channel.
            let c_out = scale.numel();
            let w = self.weight.value().mul(&scale.reshape(&[c_out, 1, 1, 1]));
            let b = match &self.bias {
                Some(b) => b.value().mul(&scale).add(&shift),
                None => shift,
            };
            let y = x.value().conv2d_add_relu(
                &w,
                &b,
                residual.map(Var::value),
                relu,
                (self.padding, self.padding),
            );
            return Var::constant(y);
        }
        let y = bn.forward(ctx, &self.forward(ctx, x));
        let y = match residual {
            Some(r) => r.add(&y),
            None => y,
        };
        if relu { y.relu() } else { y }
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
