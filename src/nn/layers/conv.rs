//! 2-D convolution: a kernel of any height and width, zero padding and a stride per axis.

use super::fold::{FoldCache, add_residual};
use super::{BatchNorm2d, uniform_fan_in};
use crate::nn::onnx::{Attr, Graph};
use crate::nn::{Ctx, Module, Param};
use crate::tensor::{Device, Var};
use rand::Rng;

#[derive(Clone, Debug)]
pub struct Conv2d {
    weight: Param,
    bias: Option<Param>,
    padding: (usize, usize),
    stride: (usize, usize),
    /// The last batch norm folded into this conv for inference.
    folded: FoldCache,
}

impl Conv2d {
    /// `kernel` x `kernel` filters from `c_in` to `c_out` channels, stride 1; `padding` 1
    /// with kernel 3 keeps the plane size.
    pub fn new(
        c_in: usize,
        c_out: usize,
        kernel: usize,
        padding: usize,
        bias: bool,
        device: &Device,
        rng: &mut impl Rng,
    ) -> Conv2d {
        Conv2d::rect(
            c_in,
            c_out,
            (kernel, kernel),
            (padding, padding),
            bias,
            device,
            rng,
        )
    }

    /// `kernel` = (height, width) filters with `padding` = (rows, columns) of zeros on each
    /// side, stride 1 (see [`Conv2d::with_stride`]).
    pub fn rect(
        c_in: usize,
        c_out: usize,
        (kh, kw): (usize, usize),
        padding: (usize, usize),
        bias: bool,
        device: &Device,
        rng: &mut impl Rng,
    ) -> Conv2d {
        let fan_in = c_in * kh * kw;
        let weight = uniform_fan_in(&[c_out, c_in, kh, kw], fan_in, device, rng);
        let bias = bias.then(|| uniform_fan_in(&[c_out], fan_in, device, rng));
        Conv2d {
            weight,
            bias,
            padding,
            stride: (1, 1),
            folded: FoldCache::default(),
        }
    }

    /// The same layer moving its window `stride` = (rows, columns) cells at a time.
    pub fn with_stride(self, stride: (usize, usize)) -> Conv2d {
        assert!(
            stride.0 >= 1 && stride.1 >= 1,
            "conv stride {stride:?} must be at least 1"
        );
        Conv2d { stride, ..self }
    }
}

impl Conv2d {
    /// Adds this conv to an ONNX graph as a Conv node reading `x`, with `bn` (which must be
    /// in evaluation mode) folded in as inference folds it, its weights named `name.*`.
    /// Returns the node's output.
    pub(crate) fn onnx(
        &self,
        g: &mut Graph,
        name: &str,
        bn: Option<&BatchNorm2d>,
        x: &str,
    ) -> String {
        let (weight, bias) = self.folded.exported(&self.weight, self.bias.as_ref(), bn);
        let kernel: Vec<i64> = weight.shape()[2..].iter().map(|&k| k as i64).collect();
        let (ph, pw) = (self.padding.0 as i64, self.padding.1 as i64);
        let strides = vec![self.stride.0 as i64, self.stride.1 as i64];
        let attrs = [
            Attr::Ints("kernel_shape", kernel),
            // Begin and end of each axis: rows, columns, then rows, columns.
            Attr::Ints("pads", vec![ph, pw, ph, pw]),
            Attr::Ints("strides", strides),
        ];
        g.layer("Conv", name, x, &weight, bias.as_ref(), &attrs)
    }

    /// relu?(bn(conv(x)) + residual?), `residual` shaped like the output. Inference with `bn`
    /// in evaluation mode (nothing recorded, no tracked input) runs as one fused conv with the
    /// batch norm folded into the weights and bias (computed once, then cached until one of
    /// the tensors it is made from is replaced), making no intermediate tensors; otherwise
    /// the layers run, and are recorded, one by one, a training batch norm after a conv
    /// without bias fused with it (`Var::conv2d_batch_norm2d_train`: on the GPU its
    /// statistics come from the conv's store).
    pub fn forward_bn(
        &self,
        ctx: &Ctx,
        bn: &BatchNorm2d,
        x: &Var,
        residual: Option<&Var>,
        relu: bool,
    ) -> Var {
        let folded =
            self.folded
                .for_inference(ctx, x, residual, &self.weight, self.bias.as_ref(), bn);
        if let Some((w, b)) = folded {
            let y = x.value().conv2d_add_relu(
                &w,
                &b,
                residual.map(Var::value),
                relu,
                self.padding,
                self.stride,
            );
            return Var::constant(y);
        }
        // The ReLU goes into the batch norm's passes unless a residual comes between.
        let bn_relu = relu && residual.is_none();
        let y = if bn.is_training() && self.bias.is_none() {
            let w = ctx.param(&self.weight);
            bn.train_with(ctx, |gamma, beta, running, eps| {
                let (padding, stride) = (self.padding, self.stride);
                x.conv2d_batch_norm2d_train(&w, padding, stride, gamma, beta, running, bn_relu, eps)
            })
        } else {
            bn.forward_relu(ctx, &self.forward(ctx, x), bn_relu)
        };
        add_residual(y, residual, relu)
    }
}

impl Module for Conv2d {
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        let bias = self.bias.as_ref().map(|b| ctx.param(b));
        x.conv2d(
            &ctx.param(&self.weight),
            bias.as_ref(),
            self.padding,
            self.stride,
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
