//! Elementwise ops. Binary ops broadcast (NumPy rules); their backward sums the gradient over
//! the broadcast axes so it takes each input's shape.

use super::super::shape::{broadcast_shapes, left_pad};
use super::super::{Tensor, Var, dispatch};
use crate::backend::{Backend, BinaryOp, UnaryOp};

impl Tensor {
    pub fn unary(&self, op: UnaryOp) -> Tensor {
        let storage = dispatch!(self.storage() => |be, x| be.unary(op, x));
        Tensor::from_storage(storage, self.shape().to_vec())
    }

    pub fn binary(&self, op: BinaryOp, other: &Tensor) -> Tensor {
        let out = broadcast_shapes(self.shape(), other.shape());
        let (sa, sb) = (
            left_pad(self.shape(), out.len()),
            left_pad(other.shape(), out.len()),
        );
        let storage = dispatch!(self.storage(), other.storage() => |be, a, b| be.binary(op, a, &sa, b, &sb, &out));
        Tensor::from_storage(storage, out)
    }

    pub fn add(&self, o: &Tensor) -> Tensor {
        self.binary(BinaryOp::Add, o)
    }
    pub fn sub(&self, o: &Tensor) -> Tensor {
        self.binary(BinaryOp::Sub, o)
    }
    pub fn mul(&self, o: &Tensor) -> Tensor {
        self.binary(BinaryOp::Mul, o)
    }
    pub fn div(&self, o: &Tensor) -> Tensor {
        self.binary(BinaryOp::Div, o)
    }
    pub fn pow(&self, o: &Tensor) -> Tensor {
        self.binary(BinaryOp::Pow, o)
    }
    pub fn neg(&self) -> Tensor {
        self.unary(UnaryOp::Neg)
    }
    pub fn exp(&self) -> Tensor {
        self.unary(UnaryOp::Exp)
    }
    pub fn log(&self) -> Tensor {
        self.unary(UnaryOp::Log)
    }
    pub fn relu(&self) -> Tensor {
        self.unary(UnaryOp::Relu)
    }
    pub fn tanh(&self) -> Tensor {
        self.unary(UnaryOp::Tanh)
    }
    pub fn sigmoid(&self) -> Tensor {
        self.unary(UnaryOp::Sigmoid)
    }
    pub fn add_scalar(&self, c: f32) -> Tensor {
        self.unary(UnaryOp::AddScalar(c))
    }
    pub fn mul_scalar(&self, c: f32) -> Tensor {
        self.unary(UnaryOp::MulScalar(c))
    }
    pub fn pow_scalar(&self, c: f32) -> Tensor {
        self.unary(UnaryOp::PowScalar(c))
    }

    /// Sums a broadcast result back to `shape` (the adjoint of broadcasting to this shape).
    pub fn sum_to(&self, shape: &[usize]) -> Tensor {
        if self.shape() == shape {
            return self.clone();
        }
        let padded = left_pad(shape, self.rank());
        let mut t = self.clone();
        for (axis, (&have, &want)) in self.shape().iter().zip(&padded).enumerate() {
            if want == 1 && have != 1 {
                t = t.sum_axis(axis as isize, true);
            }
        }
        t.reshape(shape)
    }

    /// This tensor repeated along its size-1 axes to `shape`.
    pub fn broadcast_to(&self, shape: &[usize]) -> Tensor {
        if self.shape() == shape {
            return self.clone();
        }
        Tensor::zeros(shape, &self.device()).add(self)
    }
}

impl Var {
    fn binary_op(
        &self,
        o: &Var,
        value: Tensor,
        grads: impl Fn(&Tensor, &Tensor, &Tensor, &[bool]) -> [Option<Tensor>; 2] + 'static,
    ) -> Var {
        let (a, b) = (self.value().clone(), o.value().clone());
        Var::record(&[self, o], value, move |g, needs| {
            let [ga, gb] = grads(g, &a, &b, needs);
            vec![
                ga.map(|t| t.sum_to(a.shape())),
                gb.map(|t| t.sum_to(b.shape())),
            ]
        })
    }

    pub fn add(&self, o: &Var) -> Var {
        let v = self.value().add(o.value());
        self.binary_op(o, v, |g, _, _, n| {
            [n[0].then(|| g.clone()), n[1].then(|| g.clone())]
        })
    }

    pub fn sub(&self, o: &Var) -> Var {
        let v = self.value().sub(o.value());
        self.binary_op(o, v, |g, _, _, n| {
            [n[0].then(|| g.clone()), n[1].then(|| g.neg())]
        })
    }

    pub fn mul(&self, o: &Var) -> Var {
        let v = self.value().mul(o.value());
        self.binary_op(o, v, |g, a, b, n| {
            [n[0].then(|| g.mul(b)), n[1].then(|| g.mul(a))]
        })
    }

    pub fn div(&self, o: &Var) -> Var {
        let v = self.value().div(o.value());
        self.binary_op(o, v, |g, a, b, n| {
            // d(a/b)/db = -a / b^2
            [
                n[0].then(|| g.div(b)),
                n[1].then(|| g.mul(a).div(&b.mul(b)).neg()),
            ]
        })
    }

    /// a ^ b with a tensor exponent. d/da = b a^(b-1); d/db = ln(a) a^b (a > 0 there).
    pub fn pow(&self, o: &Var) -> Var {
        let v = self.value().pow(o.value());
        let out = v.clone();
        self.binary_op(o, v, move |g, a, b, n| {
            [
                n[0].then(|| g.mul(b).mul(&a.pow(&b.add_scalar(-1.0)))),
                n[1].then(|| g.mul(&out).mul(&a.log())),
            ]
        })
    }

    fn unary_op(
        &self,
        value: Tensor,
        grad: impl Fn(&Tensor, &Tensor, &Tensor) -> Tensor + 'static,
    ) -> Var {
        let (x, out) = (self.value().clone(), value.clone());
        Var::record(&[self], value, move |g, _| vec![Some(grad(g, &x, &out))])
    }

    pub fn neg(&self) -> Var {
        self.unary_op(self.value().neg(), |g, _, _| g.neg())
    }
    pub fn exp(&self) -> Var {
        self.unary_op(self.value().exp(), |g, _, y| g.mul(y))
    }
    pub fn log(&self) -> Var {
        self.unary_op(self.value().log(), |g, x, _| g.div(x))
    }
    pub fn relu(&self) -> Var {
        self.unary_op(self.value().relu(), |g, x, _| {
            x.binary(BinaryOp::ReluGrad, g)
        })
    }
    /// d tanh = 1 - tanh^2
    pub fn tanh(&self) -> Var {
        self.unary_op(self.value().tanh(), |g, _, y| {
            g.mul(&y.mul(y).neg().add_scalar(1.0))
        })
    }
    /// d sigmoid = s (1 - s)
    pub fn sigmoid(&self) -> Var {
        self.unary_op(self.value().sigmoid(), |g, _, y| {
            g.mul(&y.mul(&y.neg().add_scalar(1.0)))
        })
    }
    pub fn add_scalar(&self, c: f32) -> Var {
        self.unary_op(self.value().add_scalar(c), |g, _, _| g.clone())
    }
    pub fn mul_scalar(&self, c: f32) -> Var {
        self.unary_op(self.value().mul_scalar(c), move |g, _, _| g.mul_scalar(c))
    }
    /// d x^c = c x^(c-1)
    pub fn pow_scalar(&self, c: f32) -> Var {
        self.unary_op(self.value().pow_scalar(c), move |g, x, _| {
            g.mul(&x.pow_scalar(c - 1.0)).mul_scalar(c)
        })
    }
}
