//! Parameters, the `Module` trait, and the forward context that decides whether a forward pass
//! is recorded on a tape (training) or costs nothing beyond the ops (inference).

use crate::tensor::{Gradients, Tape, Tensor, Var};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The identity of a parameter within this process: a forward context registers each identity
/// once, however often the parameter is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamId(u64);

impl ParamId {
    fn fresh() -> ParamId {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        ParamId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A trainable tensor. A clone is a new parameter (a fresh identity) with the same value.
#[derive(Debug)]
pub struct Param {
    id: ParamId,
    value: Tensor,
}

impl Clone for Param {
    fn clone(&self) -> Param {
        Param::new(self.value.clone())
    }
}

impl Param {
    pub fn new(value: Tensor) -> Param {
        Param {
            id: ParamId::fresh(),
            value,
        }
    }

    pub fn id(&self) -> ParamId {
        self.id
    }

    pub fn value(&self) -> &Tensor {
        &self.value
    }

    pub fn shape(&self) -> &[usize] {
        self.value.shape()
    }

    /// Replaces the value (an optimizer step, a checkpoint load); the shape may not change.
    pub fn set(&mut self, value: Tensor) {
        assert_eq!(
            value.shape(),
            self.value.shape(),
            "a parameter keeps its shape"
        );
        self.value = value;
    }
}

/// A layer or a network. `forward` takes `&self`, so one model can serve many threads; state
/// that a training forward updates (batch-norm running statistics) sits behind a lock inside.
///
/// Parameters and buffers are visited in a fixed order, the order optimizers and checkpoints use.
pub trait Module: Send + Sync {
    type Output;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Self::Output;

    /// Visits the trainable parameters.
    fn params(&self, _f: &mut dyn FnMut(&Param)) {}

    fn params_mut(&mut self, _f: &mut dyn FnMut(&mut Param)) {}

    /// Visits the non-trained state a checkpoint keeps (batch-norm running statistics).
    fn buffers(&self, _f: &mut dyn FnMut(&Tensor)) {}

    fn buffers_mut(&mut self, _f: &mut dyn FnMut(&mut Tensor)) {}

    /// Training mode (batch statistics in batch norm) or evaluation mode (running statistics).
    /// Whether a forward is recorded is the context's business, not the mode's.
    fn set_train(&mut self, _train: bool) {}

    /// Number of trainable scalars.
    fn num_params(&self) -> usize {
        let mut n = 0;
        self.params(&mut |p| n += p.value().numel());
        n
    }
}

/// All of `module`'s parameters in visit order, flattened into one vector: the form in which
/// the classic learners hold weights (TD's eligibility traces, a GA genome, a PSO particle).
pub fn flat_params<M: Module + ?Sized>(module: &M) -> Vec<f32> {
    let mut out = Vec::with_capacity(module.num_params());
    module.params(&mut |p| out.extend(p.value().to_vec()));
    out
}

/// Sets `module`'s parameters from a vector in [`flat_params`] order, each on its own device.
pub fn set_flat_params<M: Module + ?Sized>(module: &mut M, weights: &[f32]) {
    assert_eq!(weights.len(), module.num_params(), "weight vector length");
    let mut rest = weights;
    module.params_mut(&mut |p| {
        let (mine, tail) = rest.split_at(p.value().numel());
        p.set(Tensor::from_vec(
            mine.to_vec(),
            p.shape(),
            &p.value().device(),
        ));
        rest = tail;
    });
}

/// The visitors (`params`, `buffers`, their `_mut` forms, `set_train`) of a composite module,
/// written once: they visit, in order, the sub-modules its `parts()` and `parts_mut()` yield.
macro_rules! visit_parts {
    () => {
        fn params(&self, f: &mut dyn FnMut(&$crate::nn::Param)) {
            self.parts().for_each(|m| m.params(f));
        }

        fn params_mut(&mut self, f: &mut dyn FnMut(&mut $crate::nn::Param)) {
            self.parts_mut().for_each(|m| m.params_mut(f));
        }

        fn buffers(&self, f: &mut dyn FnMut(&$crate::tensor::Tensor)) {
            self.parts().for_each(|m| m.buffers(f));
        }

        fn buffers_mut(&mut self, f: &mut dyn FnMut(&mut $crate::tensor::Tensor)) {
            self.parts_mut().for_each(|m| m.buffers_mut(f));
        }

        fn set_train(&mut self, train: bool) {
            self.parts_mut().for_each(|m| m.set_train(train));
        }
    };
}
pub(crate) use visit_parts;

/// The context of one forward pass. A training context owns a fresh tape and registers each
/// parameter as a leaf the first time it is used; an inference context hands out untracked
/// constants, so nothing is recorded.
pub struct Ctx {
    tape: Option<Tape>,
    leaves: RefCell<HashMap<ParamId, Var>>,
}

impl Ctx {
    pub fn training() -> Ctx {
        Ctx {
            tape: Some(Tape::new()),
            leaves: RefCell::default(),
        }
    }

    pub fn inference() -> Ctx {
        Ctx {
            tape: None,
            leaves: RefCell::default(),
        }
    }

    pub fn is_recording(&self) -> bool {
        self.tape.is_some()
    }

    /// The tape of a training context.
    pub fn tape(&self) -> Option<&Tape> {
        self.tape.as_ref()
    }

    /// The parameter as a value in this forward pass.
    pub fn param(&self, p: &Param) -> Var {
        match &self.tape {
            None => Var::constant(p.value.clone()),
            Some(tape) => self
                .leaves
                .borrow_mut()
                .entry(p.id)
                .or_insert_with(|| tape.var(p.value.clone()))
                .clone(),
        }
    }

    /// [`Ctx::param_grads`] flattened in [`flat_params`] order, zeros for a parameter the
    /// output did not depend on.
    pub fn flat_param_grads<M: Module + ?Sized>(&self, module: &M, grads: &Gradients) -> Vec<f32> {
        let mut sizes = Vec::new();
        module.params(&mut |p| sizes.push(p.value().numel()));
        let mut flat = Vec::with_capacity(sizes.iter().sum());
        for (g, n) in self.param_grads(module, grads).into_iter().zip(sizes) {
            match g {
                Some(g) => flat.extend(g.to_vec()),
                None => flat.extend(std::iter::repeat_n(0.0, n)),
            }
        }
        flat
    }

    /// The gradients of `module`'s parameters, in visit order, from a backward pass of this
    /// context's tape; `None` for a parameter the output did not depend on.
    pub fn param_grads<M: Module + ?Sized>(
        &self,
        module: &M,
        grads: &Gradients,
    ) -> Vec<Option<Tensor>> {
        let leaves = self.leaves.borrow();
        let mut out = Vec::new();
        module.params(&mut |p| out.push(leaves.get(&p.id).and_then(|v| grads.get(v)).cloned()));
        out
    }
}
