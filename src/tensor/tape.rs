//! The tape: a record of the ops applied to tracked variables, replayed backwards.

use super::Tensor;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Given the gradient of an op's output and which inputs need one, returns the input
/// gradients (shaped like the inputs; `None` where not needed).
pub(crate) type BackwardFn = Box<dyn Fn(&Tensor, &[bool]) -> Vec<Option<Tensor>>>;

struct Node {
    /// Tape positions of the op's inputs; `None` for untracked inputs.
    inputs: Vec<Option<usize>>,
    /// `None` for leaves (variables created with [`Tape::var`]).
    backward: Option<BackwardFn>,
}

/// A tape that records ops on its variables. Cheap to clone (shared); one per training step.
/// Inference needs none: ops on untracked values record nothing.
#[derive(Clone, Default)]
pub struct Tape(Rc<RefCell<Vec<Node>>>);

impl Tape {
    pub fn new() -> Tape {
        Tape::default()
    }

    /// A tracked leaf: gradients flow back to it.
    pub fn var(&self, value: Tensor) -> Var {
        let id = self.push(Node {
            inputs: Vec::new(),
            backward: None,
        });
        Var {
            value,
            node: Some((self.clone(), id)),
        }
    }

    /// Number of recorded nodes.
    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push(&self, node: Node) -> usize {
        let mut nodes = self.0.borrow_mut();
        nodes.push(node);
        nodes.len() - 1
    }

    fn same(&self, other: &Tape) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// A value in a computation: a tensor, and, if it depends on a tape's variables, its place on
/// that tape.
#[derive(Clone)]
pub struct Var {
    value: Tensor,
    node: Option<(Tape, usize)>,
}

impl std::fmt::Debug for Var {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Var({:?}, tracked: {})", self.value, self.node.is_some())
    }
}

impl Var {
    /// An untracked value: no gradient flows to it.
    pub fn constant(value: Tensor) -> Var {
        Var { value, node: None }
    }

    pub fn value(&self) -> &Tensor {
        &self.value
    }

    pub fn into_value(self) -> Tensor {
        self.value
    }

    pub fn shape(&self) -> &[usize] {
        self.value.shape()
    }

    pub fn is_tracked(&self) -> bool {
        self.node.is_some()
    }

    /// The result of an op on `inputs`: tracked (with `backward` recorded) if any input is.
    pub(crate) fn record(
        inputs: &[&Var],
        value: Tensor,
        backward: impl Fn(&Tensor, &[bool]) -> Vec<Option<Tensor>> + 'static,
    ) -> Var {
        let Some(tape) = inputs
            .iter()
            .find_map(|v| v.node.as_ref().map(|(t, _)| t.clone()))
        else {
            return Var::constant(value);
        };
        let ids = inputs
            .iter()
            .map(|v| {
                v.node.as_ref().map(|(t, id)| {
                    assert!(
                        t.same(&tape),
                        "variables from two different tapes were combined"
                    );
                    *id
                })
            })
            .collect();
        let id = tape.push(Node {
            inputs: ids,
            backward: Some(Box::new(backward)),
        });
        Var {
            value,
            node: Some((tape, id)),
        }
    }

    /// Back-propagates from this scalar: d(self)/d(leaf) for every tracked leaf it depends on.
    pub fn backward(&self) -> Gradients {
        assert_eq!(
            self.value.numel(),
            1,
            "backward() needs a scalar, got shape {:?}",
            self.shape()
        );
        self.backward_with(Tensor::full(self.shape(), 1.0, &self.value.device()))
    }

    /// Back-propagates a given output gradient (shaped like this value).
    pub fn backward_with(&self, grad: Tensor) -> Gradients {
        let (tape, root) = self
            .node
            .as_ref()
            .expect("backward() of a value that depends on no tape variable");
        assert_eq!(grad.shape(), self.shape(), "output gradient shape");
        let nodes = tape.0.borrow();
        let mut grads: Vec<Option<Tensor>> = vec![None; root + 1];
        grads[*root] = Some(grad);
        let mut leaves = HashMap::new();
        for i in (0..=*root).rev() {
            let Some(g) = grads[i].take() else { continue };
            let node = &nodes[i];
            let Some(backward) = &node.backward else {
                leaves.insert(i, g);
                continue;
            };
            let needs: Vec<bool> = node.inputs.iter().map(Option::is_some).collect();
            for (input, gi) in node.inputs.iter().zip(backward(&g, &needs)) {
                if let (Some(j), Some(gi)) = (input, gi) {
                    grads[*j] = Some(match grads[*j].take() {
                        None => gi,
                        Some(prev) => prev.add(&gi),
                    });
                }
            }
        }
        Gradients {
            tape: tape.clone(),
            leaves,
        }
    }
}

/// Gradients of one backward pass, by leaf variable.
pub struct Gradients {
    tape: Tape,
    leaves: HashMap<usize, Tensor>,
}

impl Gradients {
    /// The gradient for a leaf; `None` if the output does not depend on it.
    pub fn get(&self, var: &Var) -> Option<&Tensor> {
        let (tape, id) = var.node.as_ref()?;
        assert!(
            tape.same(&self.tape),
            "gradient asked for a variable of another tape"
        );
        self.leaves.get(id)
    }
}
