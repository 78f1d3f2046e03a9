//! Matrix products: (m, k) x (k, n), and batched (b, m, k) x (b, k, n) where either batch may
//! be 1 (or the operand 2-D) and is broadcast.

use super::super::{Tensor, Var, dispatch};
use crate::backend::{Backend, MatmulDims};

/// (batch, rows, cols) of an operand as stored.
fn as_batched(t: &Tensor) -> (usize, usize, usize) {
    match *t.shape() {
        [r, c] => (1, r, c),
        [b, r, c] => (b, r, c),
        _ => panic!("matmul operands are 2-D or 3-D, got {:?}", t.shape()),
    }
}

impl Tensor {
    /// op(A) op(B), where op transposes the last two axes when asked (no copy is made).
    pub fn matmul_t(&self, other: &Tensor, trans_a: bool, trans_b: bool) -> Tensor {
        let (ba, ra, ca) = as_batched(self);
        let (bb, rb, cb) = as_batched(other);
        let (m, k) = if trans_a { (ca, ra) } else { (ra, ca) };
        let (k2, n) = if trans_b { (cb, rb) } else { (rb, cb) };
        assert_eq!(k, k2, "matmul inner dimensions: {:?} x {:?} (transposed: {trans_a}, {trans_b})", self.shape(), other.shape());
        assert!(ba == bb || ba == 1 || bb == 1, "matmul batches {ba} and {bb}");
        let dims = MatmulDims { batch_a: ba, batch_b: bb, m, k, n, trans_a, trans_b };
        let storage = dispatch!(self.storage(), other.storage() => |be, a, b| be.matmul(a, b, dims));
        let shape = if self.rank() == 2 && other.rank() == 2 { vec![m, n] } else { vec![dims.batch(), m, n] };
        Tensor::from_storage(storage, shape)
    }

    pub fn matmul(&self, other: &Tensor) -> Tensor {
        self.matmul_t(other, false, false)
    }
}

impl Var {
    /// C = op(A) op(B). With G = dC: d op(A) = G op(B)^T and d op(B) = op(A)^T G; a transposed
    /// operand takes the transpose of that. Summed over the batch where an operand was broadcast.
    pub fn matmul_t(&self, other: &Var, trans_a: bool, trans_b: bool) -> Var {
        let (a, b) = (self.value().clone(), other.value().clone());
        Var::record(&[self, other], a.matmul_t(&b, trans_a, trans_b), move |g, needs| {
            let ga = needs[0].then(|| {
                let d = if trans_a { b.matmul_t(g, trans_b, true) } else { g.matmul_t(&b, false, !trans_b) };
                fold_batch(d, a.shape())
            });
            let gb = needs[1].then(|| {
                let d = if trans_b { g.matmul_t(&a, true, trans_a) } else { a.matmul_t(g, !trans_a, false) };
                fold_batch(d, b.shape())
            });
            vec![ga, gb]
        })
    }

    pub fn matmul(&self, other: &Var) -> Var {
        self.matmul_t(other, false, false)
    }
}

/// Sums a batched gradient over the batch if the operand was 2-D or had batch 1.
fn fold_batch(g: Tensor, shape: &[usize]) -> Tensor {
    if g.shape() == shape {
        g
    } else {
        g.sum_axis(0, false).reshape(shape)
    }
}
