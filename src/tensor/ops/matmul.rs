//! Matrix products: (m, k) x (k, n), and batched (b, m, k) x (b, k, n) where either batch may
//! be 1 (or the operand 2-D) and is broadcast.

use super::super::{Tensor, Var, dispatch};
use crate::backend::{Activation, Backend, LinearDims, MatmulDims};

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
        assert_eq!(
            k,
            k2,
            "matmul inner dimensions: {:?} x {:?} (transposed: {trans_a}, {trans_b})",
            self.shape(),
            other.shape()
        );
        assert!(
            ba == bb || ba == 1 || bb == 1,
            "matmul batches {ba} and {bb}"
        );
        let dims = MatmulDims {
            batch_a: ba,
            batch_b: bb,
            m,
            k,
            n,
            trans_a,
            trans_b,
        };
        let storage =
            dispatch!(self.storage(), other.storage() => |be, a, b| be.matmul(a, b, dims));
        let shape = if self.rank() == 2 && other.rank() == 2 {
            vec![m, n]
        } else {
            vec![dims.batch(), m, n]
        };
        Tensor::from_storage(storage, shape)
    }

    pub fn matmul(&self, other: &Tensor) -> Tensor {
        self.matmul_t(other, false, false)
    }

    /// act?(self weight^T + bias?) in one op, for inference only (nothing is recorded): a
    /// linear layer, `self` (rows, inputs), `weight` (outputs, inputs), `bias` (outputs).
    pub fn linear(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        act: Option<Activation>,
    ) -> Tensor {
        let (&[rows, inputs], &[outputs, inputs_w]) = (self.shape(), weight.shape()) else {
            panic!(
                "linear takes (rows, inputs) and (outputs, inputs), got {:?} and {:?}",
                self.shape(),
                weight.shape()
            )
        };
        assert_eq!(
            inputs,
            inputs_w,
            "linear inputs: {:?} x {:?}",
            self.shape(),
            weight.shape()
        );
        let d = LinearDims {
            rows,
            inputs,
            outputs,
        };
        let storage = match bias {
            None => dispatch!(self.storage(), weight.storage() =>
                |be, x, w| be.linear(x, w, None, act, d)),
            Some(b) => {
                assert_eq!(b.shape(), [outputs], "linear bias shape");
                dispatch!(self.storage(), weight.storage(), b.storage() =>
                    |be, x, w, b| be.linear(x, w, Some(b), act, d))
            }
        };
        Tensor::from_storage(storage, vec![rows, outputs])
    }
}

impl Var {
    /// C = op(A) op(B). With G = dC: d op(A) = G op(B)^T and d op(B) = op(A)^T G; a transposed
    /// operand takes the transpose of that. Summed over the batch where an operand was broadcast.
    pub fn matmul_t(&self, other: &Var, trans_a: bool, trans_b: bool) -> Var {
        let (a, b) = (self.value().clone(), other.value().clone());
        Var::record(
            &[self, other],
            a.matmul_t(&b, trans_a, trans_b),
            move |g, needs| {
                let ga = needs[0].then(|| {
                    let d = if trans_a {
                        b.matmul_t(g, trans_b, true)
                    } else {
                        g.matmul_t(&b, false, !trans_b)
                    };
                    fold_batch(d, a.shape())
                });
                let gb = needs[1].then(|| {
                    let d = if trans_b {
                        g.matmul_t(&a, true, trans_a)
                    } else {
                        a.matmul_t(g, !trans_a, false)
                    };
                    fold_batch(d, b.shape())
                });
                vec![ga, gb]
            },
        )
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

#[cfg(test)]
mod tests {
    use crate::backend::Activation;
    use crate::tensor::{Device, Tape, Tensor};
    use rand::{SeedableRng, rngs::StdRng};

    /// The fused inference form computes what the layer's recorded ops compute.
    #[test]
    fn a_fused_linear_layer_is_its_product_bias_and_activation() {
        let mut rng = StdRng::seed_from_u64(3);
        let dev = Device::Cpu;
        for (rows, inputs, outputs) in [(1, 5, 3), (9, 70, 33)] {
            let x = Tensor::randn(&[rows, inputs], 1.0, &mut rng, &dev);
            let w = Tensor::randn(&[outputs, inputs], 1.0, &mut rng, &dev);
            let b = Tensor::randn(&[outputs], 1.0, &mut rng, &dev);
            for bias in [None, Some(&b)] {
                for act in [None, Some(Activation::Relu), Some(Activation::Tanh)] {
                    let product = x.matmul_t(&w, false, true);
                    let product = bias.map_or(product.clone(), |b| product.add(b));
                    let want = act.map_or(product.clone(), |a| product.unary(a.op()));
                    let got = x.linear(&w, bias, act);
                    assert_eq!(got.shape(), [rows, outputs]);
                    for (g, w) in got.to_vec().iter().zip(want.to_vec()) {
                        // The bias added before the products' sum, not after: rounding only.
                        assert!(
                            (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
                            "{rows}x{inputs} to {outputs}, bias {}, {act:?}: {g} vs {w}",
                            bias.is_some()
                        );
                    }
                }
            }
        }
    }

    /// Every transpose combination, 2-D and batched with a broadcast operand, against the same
    /// product spelled with explicit transposes (whose backward is the permute's).
    #[test]
    fn transposed_products_have_the_gradients_of_explicit_transposes() {
        let mut rng = StdRng::seed_from_u64(1);
        let dev = Device::Cpu;
        for (a_shape, b_shape) in [(vec![3, 4], vec![4, 5]), (vec![2, 3, 4], vec![1, 4, 5])] {
            for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
                let stored = |shape: &[usize], t: bool| {
                    let mut s = shape.to_vec();
                    let r = s.len();
                    if t {
                        s.swap(r - 2, r - 1);
                    }
                    s
                };
                let a0 = Tensor::randn(&stored(&a_shape, ta), 1.0, &mut rng, &dev);
                let b0 = Tensor::randn(&stored(&b_shape, tb), 1.0, &mut rng, &dev);
                let r_shape = [a_shape[..a_shape.len() - 1].to_vec(), vec![5]].concat();
                let weights = Tensor::randn(&r_shape, 1.0, &mut rng, &dev);
                let grads = |fused: bool| {
                    let tape = Tape::new();
                    let (a, b) = (tape.var(a0.clone()), tape.var(b0.clone()));
                    let c = if fused {
                        a.matmul_t(&b, ta, tb)
                    } else {
                        let flip = |v: &crate::tensor::Var, t: bool| {
                            let r = v.shape().len();
                            if t {
                                v.transpose(r - 2, r - 1)
                            } else {
                                v.clone()
                            }
                        };
                        flip(&a, ta).matmul(&flip(&b, tb))
                    };
                    let g = c
                        .mul(&crate::tensor::Var::constant(weights.clone()))
                        .sum_all()
                        .backward();
                    (g.get(&a).unwrap().to_vec(), g.get(&b).unwrap().to_vec())
                };
                let (fused, explicit) = (grads(true), grads(false));
                for (x, y) in fused
                    .0
                    .iter()
                    .chain(&fused.1)
                    .zip(explicit.0.iter().chain(&explicit.1))
                {
                    // The same sums in another order: f32 rounding only.
                    assert!(
                        (x - y).abs() <= 1e-5 * (1.0 + y.abs()),
                        "{a_shape:?} {b_shape:?} {ta} {tb}: {x} vs {y}"
                    );
                }
            }
        }
    }
}
