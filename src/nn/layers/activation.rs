//! Parameter-free layers: activations and reshapes.

use crate::nn::{Ctx, Module};
use crate::tensor::Var;

macro_rules! activation {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;

        impl Module for $name {
            type Output = Var;

            fn forward(&self, _ctx: &Ctx, x: &Var) -> Var {
                x.$op()
            }
        }
    };
}

activation!(
    /// max(x, 0)
    Relu,
    relu
);
activation!(Tanh, tanh);
activation!(
    /// 1 / (1 + e^-x)
    Sigmoid,
    sigmoid
);

/// (n, ...) -> (n, product of the rest).
#[derive(Clone, Copy, Debug, Default)]
pub struct Flatten;

impl Module for Flatten {
    type Output = Var;

    fn forward(&self, _ctx: &Ctx, x: &Var) -> Var {
        x.flatten()
    }
}

/// (n, ...) -> (n, shape...): the batch axis is kept.
#[derive(Clone, Debug)]
pub struct Reshape {
    shape: Vec<usize>,
}

impl Reshape {
    pub fn new(shape: &[usize]) -> Reshape {
        Reshape {
            shape: shape.to_vec(),
        }
    }
}

impl Module for Reshape {
    type Output = Var;

    fn forward(&self, _ctx: &Ctx, x: &Var) -> Var {
        let mut shape = vec![x.shape()[0]];
        shape.extend_from_slice(&self.shape);
        x.reshape(&shape)
    }
}
