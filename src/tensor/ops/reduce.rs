//! Sums and means, over everything or one axis.

use super::super::shape::axis_index;
use super::super::{Tensor, Var, dispatch};
use crate::backend::{Backend, NormDims};

/// The shape after reducing `axis`: kept as 1 or removed.
fn reduced_shape(shape: &[usize], axis: usize, keepdim: bool) -> Vec<usize> {
    let mut out = shape.to_vec();
    if keepdim {
        out[axis] = 1;
    } else {
        out.remove(axis);
    }
    out
}

impl Tensor {
    /// Sum along `axis` (negative counts from the end).
    pub fn sum_axis(&self, axis: isize, keepdim: bool) -> Tensor {
        let a = axis_index(axis, self.rank());
        let s = self.shape();
        let (outer, n, inner) = (s[..a].iter().product(), s[a], s[a + 1..].iter().product());
        let storage = dispatch!(self.storage() => |be, x| be.sum_axis(x, outer, n, inner));
        Tensor::from_storage(storage, reduced_shape(s, a, keepdim))
    }

    /// Per-channel sums of an (n, c, h, w) tensor, as (c): a conv's bias gradient.
    pub fn sum_channels(&self) -> Tensor {
        let [n, c, h, w] = *self.shape() else {
            panic!("sum_channels takes (n, c, h, w), got {:?}", self.shape())
        };
        let d = NormDims { n, c, plane: h * w };
        let storage = dispatch!(self.storage() => |be, x| be.channel_sum(x, d));
        Tensor::from_storage(storage, vec![c])
    }

    /// Sum of all elements, as a scalar (shape []).
    pub fn sum_all(&self) -> Tensor {
        let n = self.numel();
        let storage = dispatch!(self.storage() => |be, x| be.sum_axis(x, 1, n, 1));
        Tensor::from_storage(storage, vec![])
    }

    pub fn mean_axis(&self, axis: isize, keepdim: bool) -> Tensor {
        let n = self.shape()[axis_index(axis, self.rank())];
        self.sum_axis(axis, keepdim).mul_scalar(1.0 / n as f32)
    }

    pub fn mean_all(&self) -> Tensor {
        self.sum_all().mul_scalar(1.0 / self.numel() as f32)
    }
}

impl Var {
    pub fn sum_axis(&self, axis: isize, keepdim: bool) -> Var {
        let a = axis_index(axis, self.value().rank());
        let shape = self.shape().to_vec();
        let kept = reduced_shape(&shape, a, true);
        Var::record(
            &[self],
            self.value().sum_axis(axis, keepdim),
            move |g, _| vec![Some(g.reshape(&kept).broadcast_to(&shape))],
        )
    }

    pub fn sum_all(&self) -> Var {
        let shape = self.shape().to_vec();
        Var::record(&[self], self.value().sum_all(), move |g, _| {
            vec![Some(g.broadcast_to(&shape))]
        })
    }

    pub fn mean_axis(&self, axis: isize, keepdim: bool) -> Var {
        let n = self.shape()[axis_index(axis, self.value().rank())];
        self.sum_axis(axis, keepdim).mul_scalar(1.0 / n as f32)
    }

    pub fn mean_all(&self) -> Var {
        self.sum_all().mul_scalar(1.0 / self.value().numel() as f32)
    }
}
