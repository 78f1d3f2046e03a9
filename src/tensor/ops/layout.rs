//! Ops that move data: reshape, permute, pad2d, column gather, concatenation.

use super::super::shape::{axis_index, numel};
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

    /// Picks columns of a (rows, cols) tensor: `out[r, j] = self[r, index[j]]`.
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

    /// Joins `parts` along `axis` (negative counts from the end); every other axis must agree.
    ///
    /// Composed of existing kernels rather than one of its own: each part, seen as a matrix
    /// (axes before `axis`) x (the rest), is padded with zeros into its column range of the
    /// joined matrix, and the padded parts are added. That costs a pass over the output per
    /// part, which is nothing for the few small parts a network's heads join, and gives every
    /// backend the op, forward and backward (a crop), for free.
    pub fn concat(parts: &[&Tensor], axis: isize) -> Tensor {
        let joint = Concat::of(parts.iter().map(|t| t.shape()), axis);
        let mut sum: Option<Tensor> = None;
        for (part, [left, right]) in parts.iter().zip(joint.margins()) {
            let cols = part.numel() / joint.rows.max(1);
            let placed = part
                .reshape(&[joint.rows, cols])
                .pad2d([0, 0, left, right], 0.0);
            sum = Some(match sum {
                Some(s) => s.add(&placed),
                None => placed,
            });
        }
        sum.expect("concat of at least one part")
            .reshape(&joint.shape)
    }
}

/// The shape rule of `concat`: the joined shape, seen as a (rows, columns) matrix in which
/// each part holds a range of columns.
struct Concat {
    shape: Vec<usize>,
    rows: usize,
    /// Each part's first column and its number of columns.
    spans: Vec<(usize, usize)>,
}

impl Concat {
    fn of<'a>(shapes: impl Iterator<Item = &'a [usize]>, axis: isize) -> Concat {
        let shapes: Vec<&[usize]> = shapes.collect();
        let first = *shapes.first().expect("concat of at least one part");
        let a = axis_index(axis, first.len());
        for s in &shapes {
            let agree = s.len() == first.len() && (0..s.len()).all(|i| i == a || s[i] == first[i]);
            assert!(
                agree,
                "concat along axis {a}: shapes {first:?} and {s:?} differ elsewhere"
            );
        }
        let rows = first[..a].iter().product();
        let inner: usize = first[a + 1..].iter().product();
        let mut spans = Vec::with_capacity(shapes.len());
        let mut at = 0;
        for s in &shapes {
            spans.push((at, s[a] * inner));
            at += s[a] * inner;
        }
        let mut shape = first.to_vec();
        shape[a] = shapes.iter().map(|s| s[a]).sum();
        Concat { shape, rows, spans }
    }

    fn cols(&self) -> usize {
        self.spans.iter().map(|&(_, n)| n).sum()
    }

    /// For each part, the columns of the joined matrix to its left and to its right (the
    /// horizontal pads that place it).
    fn margins(&self) -> Vec<[i32; 2]> {
        let total = self.cols();
        let pad = |n: usize| i32::try_from(n).expect("concat width fits in i32");
        self.spans
            .iter()
            .map(|&(start, n)| [pad(start), pad(total - start - n)])
            .collect()
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

    /// See [`Tensor::concat`]; the backward crops each part's columns out of the gradient.
    pub fn concat(parts: &[&Var], axis: isize) -> Var {
        let joint = Concat::of(parts.iter().map(|v| v.shape()), axis);
        let values: Vec<&Tensor> = parts.iter().map(|v| v.value()).collect();
        let value = Tensor::concat(&values, axis);
        let shapes: Vec<Vec<usize>> = parts.iter().map(|v| v.shape().to_vec()).collect();
        Var::record(parts, value, move |g, needs| {
            let g = g.reshape(&[joint.rows, joint.cols()]);
            joint
                .margins()
                .into_iter()
                .zip(&shapes)
                .zip(needs)
                .map(|(([left, right], shape), &need)| {
                    need.then(|| g.pad2d([0, 0, -left, -right], 0.0).reshape(shape))
                })
                .collect()
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
