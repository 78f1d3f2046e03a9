//! Softmax and log-softmax along an axis, numerically stable (the row maximum is subtracted).

use super::super::shape::axis_index;
use super::super::{Tensor, Var, dispatch};
use crate::backend::Backend;

impl Tensor {
    fn softmax_impl(&self, axis: isize, log: bool) -> Tensor {
        let a = axis_index(axis, self.rank());
        let last = self.rank() - 1;
        if a != last {
            return self
                .transpose(a, last)
                .softmax_impl(-1, log)
                .transpose(a, last);
        }
        let cols = self.shape()[last];
        let rows = self.numel() / cols.max(1);
        let storage = dispatch!(self.storage() => |be, x| be.softmax(x, rows, cols, log));
        Tensor::from_storage(storage, self.shape().to_vec())
    }

    pub fn softmax(&self, axis: isize) -> Tensor {
        self.softmax_impl(axis, false)
    }

    pub fn log_softmax(&self, axis: isize) -> Tensor {
        self.softmax_impl(axis, true)
    }
}

impl Var {
    /// d softmax: y (g - sum(g y)).
    pub fn softmax(&self, axis: isize) -> Var {
        let y = self.value().softmax(axis);
        let out = y.clone();
        Var::record(&[self], y, move |g, _| {
            let dot = g.mul(&out).sum_axis(axis, true);
            vec![Some(out.mul(&g.sub(&dot)))]
        })
    }

    /// d log_softmax: g - softmax sum(g).
    pub fn log_softmax(&self, axis: isize) -> Var {
        let y = self.value().log_softmax(axis);
        let out = y.clone();
        Var::record(&[self], y, move |g, _| {
            vec![Some(g.sub(&out.exp().mul(&g.sum_axis(axis, true))))]
        })
    }
}
