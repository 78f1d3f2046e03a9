//! Ops that move data: reshape, permute, pad2d, column gather.

use super::super::shape::numel;
use super::super::{Tensor, Var, dispatch};
use crate::backend::Backend;
use std::sync::Arc;

impl Tensor {
    /// The same data with another shape of the same size (free: no copy).
    pub fn reshape(&self, shape: &[usize]) -> Tensor {
        assert_eq!(
            numel(shape),
            self.numel(),
            "cannot reshape {:?} to {shape:?}",
            self.shape()
        );
        Tensor::from_storage(self.storage().clone(), shape.to_vec())
    }

    /// (n, ...) -> (n, rest multiplied out).
    pub fn flatten(&self) -> Tensor {
        let n = self.shape().first().copied().unwrap_or(1);
        self.reshape(&[n, self.numel() / n.max(1)])
    }

    /// Output axis i is input axis `perm[i]`.
    pub fn permute(&self, perm: &[usize]) -> Tensor {
        let mut seen = perm.to_vec();
        seen.sort_unstable();
        assert!(
            seen.iter().copied().eq(0..self.rank()),
            "permutation {perm:?} of rank {}",
            self.rank()
        );
        let out: Vec<usize> = perm.iter().map(|&p| self.shape()[p]).collect();
        if perm.iter().copied().eq(0..self.rank()) {
            return self.clone();
        }
        let shape = self.shape().to_vec();
        let storage = dispatch!(self.storage() => |be, x| be.permute(x, &shape, perm));
        Tensor::from_storage(storage, out)
    }

    /// Swaps two axes.
    pub fn transpose(&self, a: usize, b: usize) -> Tensor {
        self.permute(&swap_perm(self.rank(), a, b))
    }

    /// Pads the last two axes by [top, bottom, left, right] with `value` (negative crops).
    pub fn pad2d(&self, pads: [i32; 4], value: f32) -> Tensor {
        let r = self.rank();
        assert!(
            r >= 2,
            "pad2d needs at least 2 axes, got {:?}",
            self.shape()
        );
        let (h, w) = (self.shape()[r - 2], self.shape()[r - 1]);
        let (oh, ow) = (h as i32 + pads[0] + pads[1], w as i32 + pads[2] + pads[3]);
        assert!(
            oh >= 0 && ow >= 0,
            "pad2d {pads:?} crops more than the {h}x{w} plane"
        );
        let planes = self.numel() / (h * w).max(1);
        let storage = dispatch!(self.storage() => |be, x| be.pad2d(x, planes, h, w, pads, value));
        let mut out = self.shape().to_vec();
        out[r - 2] = oh as usize;
        out[r - 1] = ow as usize;
        Tensor::from_storage(storage, out)
    }

    /// Picks columns of a (rows, cols) tensor: out[r, j] = self[r, index[j]].
    pub fn gather_cols(&self, index: &[u32]) -> Tensor {
        let [rows, cols] = self.shape() else {
            panic!("gather_cols needs 2 axes, got {:?}", self.shape())
        };
        let (rows, cols) = (*rows, *cols);
        assert!(
            index.iter().all(|&i| (i as usize) < cols),
            "gather_cols index out of {cols} columns"
        );
        let storage = dispatch!(self.storage() => |be, x| be.gather_cols(x, rows, cols, index));
        Tensor::from_storage(storage, vec![rows, index.len()])
    }

    /// The adjoint of [`Tensor::gather_cols`]: a (rows, cols) tensor, zero where not picked.
    pub fn scatter_cols(&self, cols: usize, index: &[u32]) -> Tensor {
        let rows = self.shape()[0];
        let storage = dispatch!(self.storage() => |be, g| be.scatter_cols(g, rows, cols, index));
        Tensor::from_storage(storage, vec![rows, cols])
    }
}

fn swap_perm(rank: usize, a: usize, b: usize) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..rank).collect();
    perm.swap(a, b);
    perm
}

fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    inv
}

impl Var {
    pub fn reshape(&self, shape: &[usize]) -> Var {
        let from = self.shape().to_vec();
        Var::record(&[self], self.value().reshape(shape), move |g, _| {
            vec![Some(g.reshape(&from))]
        })
    }

    pub fn flatten(&self) -> Var {
        let n = self.shape().first().copied().unwrap_or(1);
        self.reshape(&[n, self.value().numel() / n.max(1)])
    }

    pub fn permute(&self, perm: &[usize]) -> Var {
        let inv = inverse(perm);
        Var::record(&[self], self.value().permute(perm), move |g, _| {
            vec![Some(g.permute(&inv))]
        })
    }

    pub fn transpose(&self, a: usize, b: usize) -> Var {
        self.permute(&swap_perm(self.value().rank(), a, b))
    }

    pub fn pad2d(&self, pads: [i32; 4], value: f32) -> Var {
        let crop = pads.map(|p| -p);
        Var::record(&[self], self.value().pad2d(pads, value), move |g, _| {
            vec![Some(g.pad2d(crop, 0.0))]
        })
    }

    pub fn gather_cols(&self, index: &[u32]) -> Var {
        let cols = self.shape()[1];
        let index: Arc<[u32]> = index.into();
        let value = self.value().gather_cols(&index);
        Var::record(&[self], value, move |g, _| {
            vec![Some(g.scatter_cols(cols, &index))]
        })
    }
}
