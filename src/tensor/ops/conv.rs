//! 2-D convolution (cross-correlation), zero padding, a stride per axis, optional bias.
//! Shapes: x (n, c_in, h, w), weight (c_out, c_in, kh, kw), bias (c_out)
//! -> (n, c_out, (h + 2 pad_h - kh) / stride_h + 1, (w + 2 pad_w - kw) / stride_w + 1).
//! `conv2d_add_relu` is the inference-only fused form (bias, residual add, ReLU in one op).

use super::super::{Tensor, Var, dispatch};
use crate::backend::{Backend, ConvDims};

pub(super) fn conv_dims(
    x: &[usize],
    w: &[usize],
    (pad_h, pad_w): (usize, usize),
    (stride_h, stride_w): (usize, usize),
) -> ConvDims {
    let ([n, c_in, h, wd], [c_out, c_in2, kh, kw]) = (x, w) else {
        panic!("conv2d takes x (n, c, h, w) and weight (c_out, c_in, kh, kw), got {x:?} and {w:?}")
    };
    assert_eq!(
        c_in, c_in2,
        "conv2d input has {c_in} channels, weight expects {c_in2}"
    );
    assert!(
        h + 2 * pad_h >= *kh && wd + 2 * pad_w >= *kw,
        "conv2d kernel {kh}x{kw} larger than padded input {h}x{wd}"
    );
    assert!(
        stride_h >= 1 && stride_w >= 1,
        "conv2d stride ({stride_h}, {stride_w}) must be at least 1"
    );
    ConvDims {
        n: *n,
        c_in: *c_in,
        h: *h,
        w: *wd,
        c_out: *c_out,
        kh: *kh,
        kw: *kw,
        pad_h,
        pad_w,
        stride_h,
        stride_w,
    }
}

impl Tensor {
    pub fn conv2d(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        padding: (usize, usize),
        stride: (usize, usize),
    ) -> Tensor {
        let d = conv_dims(self.shape(), weight.shape(), padding, stride);
        if let Some(b) = bias {
            assert_eq!(b.shape(), [d.c_out], "conv2d bias shape");
        }
        let storage = match bias.map(|b| b.storage()) {
            None => {
                dispatch!(self.storage(), weight.storage() => |be, x, w| be.conv2d(x, w, None, d))
            }
            Some(bias) => {
                dispatch!(self.storage(), weight.storage(), bias => |be, x, w, b| be.conv2d(x, w, Some(b), d))
            }
        };
        Tensor::from_storage(storage, vec![d.n, d.c_out, d.out_h(), d.out_w()])
    }

    /// relu?(conv2d(weight, bias) + residual?) in one op, for inference only (nothing is
    /// recorded): a conv with batch norm folded into `weight` and `bias`, then a residual
    /// block's add and ReLU. `residual` has the output's shape.
    pub fn conv2d_add_relu(
        &self,
        weight: &Tensor,
        bias: &Tensor,
        residual: Option<&Tensor>,
        relu: bool,
        padding: (usize, usize),
        stride: (usize, usize),
    ) -> Tensor {
        let d = conv_dims(self.shape(), weight.shape(), padding, stride);
        assert_eq!(bias.shape(), [d.c_out], "conv2d bias shape");
        let out = vec![d.n, d.c_out, d.out_h(), d.out_w()];
        let storage = match residual.map(|r| r.storage()) {
            None => dispatch!(self.storage(), weight.storage(), bias.storage() =>
                |be, x, w, b| be.conv2d_add_relu(x, w, b, None, relu, d)),
            Some(res) => {
                assert_eq!(
                    residual.map(Tensor::shape),
                    Some(&out[..]),
                    "conv2d residual shape"
                );
                dispatch!(self.storage(), weight.storage(), bias.storage(), res =>
                    |be, x, w, b, r| be.conv2d_add_relu(x, w, b, Some(r), relu, d))
            }
        };
        Tensor::from_storage(storage, out)
    }

    /// The input gradient of a convolution given the output gradient `self`.
    pub fn conv2d_grad_input(
        &self,
        weight: &Tensor,
        x_shape: &[usize],
        padding: (usize, usize),
        stride: (usize, usize),
    ) -> Tensor {
        let d = conv_dims(x_shape, weight.shape(), padding, stride);
        let storage =
            dispatch!(self.storage(), weight.storage() => |be, g, w| be.conv2d_grad_input(g, w, d));
        Tensor::from_storage(storage, x_shape.to_vec())
    }

    /// The weight gradient of a convolution of `self` given the output gradient `g`.
    pub fn conv2d_grad_weight(
        &self,
        g: &Tensor,
        w_shape: &[usize],
        padding: (usize, usize),
        stride: (usize, usize),
    ) -> Tensor {
        let d = conv_dims(self.shape(), w_shape, padding, stride);
        let storage =
            dispatch!(self.storage(), g.storage() => |be, x, g| be.conv2d_grad_weight(x, g, d));
        Tensor::from_storage(storage, w_shape.to_vec())
    }
}

impl Var {
    pub fn conv2d(
        &self,
        weight: &Var,
        bias: Option<&Var>,
        padding: (usize, usize),
        stride: (usize, usize),
    ) -> Var {
        let value = self
            .value()
            .conv2d(weight.value(), bias.map(|b| b.value()), padding, stride);
        self.record_conv2d(weight, bias, padding, stride, value)
    }

    /// Records `value`, computed as `conv2d(self, weight, bias)`, with the convolution's
    /// backward.
    pub(super) fn record_conv2d(
        &self,
        weight: &Var,
        bias: Option<&Var>,
        padding: (usize, usize),
        stride: (usize, usize),
        value: Tensor,
    ) -> Var {
        let (x, w) = (self.value().clone(), weight.value().clone());
        let mut inputs = vec![self, weight];
        inputs.extend(bias);
        Var::record(&inputs, value, move |g, needs| {
            let mut grads = vec![
                needs[0].then(|| g.conv2d_grad_input(&w, x.shape(), padding, stride)),
                needs[1].then(|| x.conv2d_grad_weight(g, w.shape(), padding, stride)),
            ];
            if needs.len() == 3 {
                grads.push(needs[2].then(|| g.sum_channels()));
            }
            grads
        })
    }
}
