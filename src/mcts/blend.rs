//! Leaf values mixed with a second judge's (`az:mix`): AlphaGo mixed its value network with
//! rollouts, each seeing what the other missed. Here the second judge is a shallow
//! alpha-beta with a hand-made evaluation, which sees the short tactics and the material a
//! network trained on few games misjudges.

use super::evaluator::{Begun, EvalInput, Evaluation, Evaluator};
use crate::games::Rules;

/// A state's value for its side to move in [-1, 1], where the judge has one (a state inside
/// a turn has none: the network alone values it).
pub type Judge<G> = Box<dyn FnMut(&<G as Rules>::State) -> Option<f32> + Send>;

/// `inner`'s evaluations with each value replaced by `(1 - weight) * network + weight *
/// judge`; the priors stay the network's.
pub struct Blend<G: Rules, E> {
    inner: E,
    weight: f32,
    judge: Judge<G>,
}

impl<G: Rules, E: Evaluator<G>> Blend<G, E> {
    pub fn new(inner: E, weight: f32, judge: Judge<G>) -> Self {
        Blend {
            inner,
            weight,
            judge,
        }
    }
}

impl<G: Rules, E: Evaluator<G>> Evaluator<G> for Blend<G, E> {
    fn history(&self) -> usize {
        self.inner.history()
    }

    fn evaluate(&mut self, inputs: &[EvalInput<G>]) -> Vec<Evaluation> {
        self.begin(inputs).finish()
    }

    fn in_flight(&self) -> usize {
        self.inner.in_flight()
    }

    fn begin(&mut self, inputs: &[EvalInput<G>]) -> Begun {
        // The network's batch first: where it runs on threads of its own, the judge's
        // searches overlap it.
        let begun = self.inner.begin(inputs);
        let judged: Vec<Option<f32>> = inputs.iter().map(|i| (self.judge)(&i.state)).collect();
        let weight = self.weight;
        Begun::later(move || {
            let mut evaluations = begun.finish();
            for (e, judged) in evaluations.iter_mut().zip(judged) {
                if let Some(v) = judged {
                    e.value = (1.0 - weight) * e.value + weight * v.clamp(-1.0, 1.0);
                }
            }
            evaluations
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Checkers;
    use crate::games::checkers::{Color, parse_fen};
    use crate::mcts::MaterialEvaluator;
    use crate::mcts::evaluator::turn_start_input;

    fn input(fen: &str) -> EvalInput<Checkers> {
        turn_start_input(parse_fen(fen).expect("a position"), 0)
    }

    /// The value is the weighted mean of the network's and the judge's, the priors the
    /// network's; a state the judge has no value for keeps the network's.
    #[test]
    fn values_are_mixed_and_priors_kept() {
        let inputs = [input("B:W18,K30:B14,15"), input("W:W18,K30:B14,15")];
        let mut material = MaterialEvaluator::default();
        let plain = material.evaluate(&inputs);
        let judge: Judge<Checkers> = Box::new(|s| (s.turn() == Color::Black).then_some(1.0));
        let mut blend = Blend::new(MaterialEvaluator::default(), 0.25, judge);
        let mixed = blend.evaluate(&inputs);
        assert_eq!(mixed.len(), 2);
        for (i, (m, p)) in mixed.iter().zip(&plain).enumerate() {
            assert_eq!(m.priors, p.priors, "input {i}");
        }
        assert!((mixed[0].value - (0.75 * plain[0].value + 0.25)).abs() < 1e-6);
        assert_eq!(mixed[1].value, plain[1].value);
    }
}
