//! The replay buffer: training samples from the latest iterations' self-play (a sliding
//! window; Checkers-MCTS found a window of one iteration best), and the batches the trainer
//! draws from it.

use crate::games::{Checkers, Rules};
use crate::mcts::EvalInput;
use crate::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// One searched position: what the network saw, the search's visit distribution, the game's
/// result and the search's root value, both for the side to move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Sample<G: Rules = Checkers> {
    pub input: EvalInput<G>,
    /// (policy index, probability) of the actions the search kept.
    pub policy: Vec<(u16, f32)>,
    /// The game's result: 1 win, 0 draw, -1 loss.
    pub z: f32,
    /// The search's mean value at the root.
    pub q: f32,
}

crate::names::named_enum! {
    /// What the value head learns.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum ValueTarget {
        /// The game result z (AlphaZero).
        Result = "result",
        /// The mean of z and the root search value q (Checkers-MCTS's choice: less noisy early).
        Mean = "mean",
    }
}

impl ValueTarget {
    pub fn of<G: Rules>(self, s: &Sample<G>) -> f32 {
        match self {
            ValueTarget::Result => s.z,
            ValueTarget::Mean => 0.5 * (s.z + s.q),
        }
    }
}

/// Samples grouped by the iteration that made them, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct ReplayBuffer<G: Rules = Checkers> {
    iterations: VecDeque<Vec<Sample<G>>>,
}

impl<G: Rules> Default for ReplayBuffer<G> {
    fn default() -> Self {
        ReplayBuffer {
            iterations: VecDeque::new(),
        }
    }
}

impl<G: Rules> ReplayBuffer<G> {
    /// Adds an iteration's samples and forgets all but the latest `window` iterations; with a
    /// `max_positions` cap the oldest iterations also go while the rest hold that many.
    pub fn push(&mut self, samples: Vec<Sample<G>>, window: usize, max_positions: Option<usize>) {
        self.iterations.push_back(samples);
        while self.iterations.len() > window.max(1) {
            self.iterations.pop_front();
        }
        if let Some(cap) = max_positions {
            while self.iterations.len() > 1 && self.len() - self.iterations[0].len() >= cap {
                self.iterations.pop_front();
            }
        }
    }

    pub fn len(&self) -> usize {
        self.iterations.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn samples(&self) -> impl Iterator<Item = &Sample<G>> {
        self.iterations.iter().flatten()
    }
}

/// A training batch on `device`: inputs (n, planes, rows, columns), policy targets
/// (n, policy size), value targets (n).
pub fn batch<G: Rules>(
    samples: &[&Sample<G>],
    encoding: &G::Encoding,
    target: ValueTarget,
    device: &Device,
) -> (Tensor, Tensor, Tensor) {
    let n = samples.len();
    let (planes, [rows, cols]) = (G::planes(encoding), G::BOARD);
    let size = planes * rows * cols;
    let mut x = vec![0.0; n * size];
    let mut pi = vec![0.0; n * G::POLICY_SIZE];
    for ((s, xs), ps) in samples
        .iter()
        .zip(x.chunks_exact_mut(size))
        .zip(pi.chunks_exact_mut(G::POLICY_SIZE))
    {
        G::encode(encoding, &s.input.net_input(), xs);
        for &(i, p) in &s.policy {
            ps[i as usize] = p;
        }
    }
    let z: Vec<f32> = samples.iter().map(|s| target.of(s)).collect();
    (
        Tensor::from_vec(x, &[n, planes, rows, cols], device),
        Tensor::from_vec(pi, &[n, G::POLICY_SIZE], device),
        Tensor::from_vec(z, &[n], device),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::Position;
    use crate::mcts::{Encoding, HopState, policy_index};

    fn sample(z: f32) -> Sample {
        let state = HopState::turn_start(Position::start());
        let hops = state.hops();
        let policy = vec![(policy_index(hops[0], state.turn()) as u16, 1.0)];
        Sample {
            input: EvalInput {
                state,
                quiet: 0,
                history: Vec::new(),
                actions: hops,
            },
            policy,
            z,
            q: 0.5,
        }
    }

    #[test]
    fn the_window_keeps_the_latest_iterations() {
        let mut r = ReplayBuffer::default();
        for i in 0..4 {
            r.push(vec![sample(i as f32); 3], 2, None);
        }
        assert_eq!(r.len(), 6);
        assert_eq!(r.samples().next().unwrap().z, 2.0);
        r.push(vec![sample(9.0); 5], 10, Some(5));
        assert_eq!(r.len(), 5, "a cap drops old iterations, never the newest");
    }

    #[test]
    fn a_batch_holds_planes_policy_and_the_chosen_value_target() {
        let s = [sample(1.0), sample(-1.0)];
        let refs: Vec<&Sample> = s.iter().collect();
        let (x, pi, z) =
            batch::<Checkers>(&refs, &Encoding::default(), ValueTarget::Mean, &Device::Cpu);
        assert_eq!(x.shape(), &[2, 8, 8, 8]);
        assert_eq!(pi.to_vec().iter().sum::<f32>(), 2.0);
        assert_eq!(z.to_vec(), vec![0.75, -0.25]);
    }
}
