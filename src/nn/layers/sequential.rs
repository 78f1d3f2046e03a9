//! Layers applied one after another.

use crate::nn::{Ctx, Module, Param};
use crate::tensor::{Tensor, Var};

#[derive(Default)]
pub struct Sequential {
    layers: Vec<Box<dyn Module<Output = Var>>>,
}

impl Sequential {
    pub fn new() -> Sequential {
        Sequential::default()
    }

    /// Appends a layer (builder style).
    pub fn push(mut self, layer: impl Module<Output = Var> + 'static) -> Sequential {
        self.layers.push(Box::new(layer));
        self
    }

    pub fn len(&self) -> usize {
        self.layers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }
}

impl Module for Sequential {
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        self.layers
            .iter()
            .fold(x.clone(), |h, layer| layer.forward(ctx, &h))
    }

    fn params(&self, f: &mut dyn FnMut(&Param)) {
        self.layers.iter().for_each(|l| l.params(f));
    }

    fn params_mut(&mut self, f: &mut dyn FnMut(&mut Param)) {
        self.layers.iter_mut().for_each(|l| l.params_mut(f));
    }

    fn buffers(&self, f: &mut dyn FnMut(&Tensor)) {
        self.layers.iter().for_each(|l| l.buffers(f));
    }

    fn buffers_mut(&mut self, f: &mut dyn FnMut(&mut Tensor)) {
        self.layers.iter_mut().for_each(|l| l.buffers_mut(f));
    }

    fn set_train(&mut self, train: bool) {
        self.layers.iter_mut().for_each(|l| l.set_train(train));
    }
}
