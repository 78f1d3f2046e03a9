//! Evaluators: what PUCT asks of a network — for a batch of positions, priors over each
//! one's legal hops and a value for its side to move — behind one trait, so the search does
//! not care whether a network on the CPU or the GPU, or a hand-written rule, answers.

use crate::games::checkers::Color;
use crate::games::checkers::Position;
use crate::games::checkers::encoding::{Encoding, EvalInput, policy_index};
use crate::nn::{Module, POLICY_SIZE, PolicyValueNet};
use crate::tensor::{Device, Tensor};
use std::collections::HashMap;

/// The answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Probabilities of the input's hops, in its order, summing to 1.
    pub priors: Vec<f32>,
    /// Expected result for the side to move, in [-1, 1].
    pub value: f32,
}

pub trait Evaluator {
    /// Earlier turn-start positions each input should carry (for history planes).
    fn history(&self) -> usize {
        0
    }

    /// One evaluation per input, in order.
    fn evaluate(&mut self, inputs: &[EvalInput]) -> Vec<Evaluation>;
}

fn uniform(n: usize) -> Vec<f32> {
    vec![1.0 / n as f32; n]
}

/// Uniform priors and a material value: a deterministic stand-in for a network (tests,
/// baselines). Pieces jumped this turn already count as gone.
#[derive(Clone, Copy, Debug)]
pub struct MaterialEvaluator {
    /// A king's worth in men.
    pub king: f32,
    /// Value per man of advantage before squashing into (-1, 1) with tanh.
    pub scale: f32,
}

impl Default for MaterialEvaluator {
    fn default() -> Self {
        MaterialEvaluator {
            king: 1.5,
            scale: 0.5,
        }
    }
}

impl Evaluator for MaterialEvaluator {
    fn evaluate(&mut self, inputs: &[EvalInput]) -> Vec<Evaluation> {
        inputs
            .iter()
            .map(|inp| {
                let pos = inp.state.position();
                let worth = |c: Color| {
                    let taken = if c == inp.state.turn() {
                        0
                    } else {
                        inp.state.captured()
                    };
                    let men = (pos.men(c) & !taken).count_ones() as f32;
                    let kings = (pos.kings_of(c) & !taken).count_ones() as f32;
                    men + self.king * kings
                };
                let me = inp.state.turn();
                Evaluation {
                    priors: uniform(inp.hops.len()),
                    value: ((worth(me) - worth(me.opposite())) * self.scale).tanh(),
                }
            })
            .collect()
    }
}

/// A policy-value network in evaluation mode on its device.
pub struct NetEvaluator {
    net: PolicyValueNet,
    encoding: Encoding,
    device: Device,
}

#[derive(Debug, thiserror::Error)]
#[error(
    "the network {arch} reads {want} input planes but the encoding gives {have}; \
     it was trained with another encoding"
)]
pub struct EncodingMismatch {
    pub arch: String,
    pub want: usize,
    pub have: usize,
}

impl NetEvaluator {
    /// Wraps `net` (switched to evaluation mode), which must read `encoding`'s planes.
    pub fn new(
        mut net: PolicyValueNet,
        encoding: Encoding,
        device: Device,
    ) -> Result<NetEvaluator, EncodingMismatch> {
        if net.arch().input_planes != encoding.planes() {
            return Err(EncodingMismatch {
                arch: net.arch().name.clone(),
                want: net.arch().input_planes,
                have: encoding.planes(),
            });
        }
        net.set_train(false);
        Ok(NetEvaluator {
            net,
            encoding,
            device,
        })
    }
}

impl Evaluator for NetEvaluator {
    fn history(&self) -> usize {
        self.encoding.history
    }

    fn evaluate(&mut self, inputs: &[EvalInput]) -> Vec<Evaluation> {
        if inputs.is_empty() {
            return Vec::new();
        }
        let planes = self.encoding.planes();
        let size = planes * 64;
        let mut x = vec![0.0; inputs.len() * size];
        for (inp, out) in inputs.iter().zip(x.chunks_exact_mut(size)) {
            self.encoding.encode(inp, out);
        }
        let x = Tensor::from_vec(x, &[inputs.len(), planes, 8, 8], &self.device);
        let (probs, values) = self.net.predict(&x);
        let (probs, values) = (probs.to_vec(), values.to_vec());
        inputs
            .iter()
            .zip(probs.chunks_exact(POLICY_SIZE))
            .zip(values)
            .map(|((inp, p), value)| {
                let turn = inp.state.turn();
                let mut priors: Vec<f32> =
                    inp.hops.iter().map(|h| p[policy_index(*h, turn)]).collect();
                let sum: f32 = priors.iter().sum();
                // Renormalise over the legal hops (the softmax spread mass over all 128).
                if sum > 0.0 && sum.is_finite() {
                    priors.iter_mut().for_each(|q| *q /= sum);
                } else {
                    priors = uniform(priors.len());
                }
                Evaluation { priors, value }
            })
            .collect()
    }
}

/// Everything an encoding can see of one input (the legal hops follow from the state).
type CacheKey = (crate::games::checkers::hops::HopState, u32, Vec<Position>);

/// Remembers evaluations, keyed by everything the encoding sees, so transpositions and
/// positions met again in later searches cost no network call. Forgets everything when it
/// holds `capacity` entries (simple, and recent positions are soon cached again).
pub struct CachedEvaluator<E> {
    inner: E,
    capacity: usize,
    cache: HashMap<CacheKey, Evaluation>,
    pub hits: u64,
    pub misses: u64,
}

impl<E: Evaluator> CachedEvaluator<E> {
    pub fn new(inner: E, capacity: usize) -> Self {
        CachedEvaluator {
            inner,
            capacity: capacity.max(1),
            cache: HashMap::new(),
            hits: 0,
            misses: 0,
        }
    }
}

impl<E: Evaluator> Evaluator for CachedEvaluator<E> {
    fn history(&self) -> usize {
        self.inner.history()
    }

    fn evaluate(&mut self, inputs: &[EvalInput]) -> Vec<Evaluation> {
        let key = |i: &EvalInput| (i.state, i.quiet, i.history.clone());
        let mut out: Vec<Option<Evaluation>> = inputs
            .iter()
            .map(|i| self.cache.get(&key(i)).cloned())
            .collect();
        let missing: Vec<usize> = (0..inputs.len()).filter(|&i| out[i].is_none()).collect();
        self.hits += (inputs.len() - missing.len()) as u64;
        self.misses += missing.len() as u64;
        if !missing.is_empty() {
            let batch: Vec<EvalInput> = missing.iter().map(|&i| inputs[i].clone()).collect();
            for (&i, e) in missing.iter().zip(self.inner.evaluate(&batch)) {
                if self.cache.len() >= self.capacity {
                    self.cache.clear();
                }
                self.cache.insert(key(&inputs[i]), e.clone());
                out[i] = Some(e);
            }
        }
        out.into_iter()
            .map(|e| e.expect("every input evaluated"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::hops::HopState;
    use crate::games::checkers::parse_fen;
    use crate::nn::Architecture;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    fn input(fen: &str, mirror: bool) -> EvalInput {
        let pos = parse_fen(fen).unwrap();
        let pos = if mirror { pos.mirrored() } else { pos };
        let state = HopState::turn_start(pos);
        EvalInput {
            hops: state.hops(),
            state,
            quiet: 3,
            history: Vec::new(),
        }
    }

    #[test]
    fn a_network_sees_a_position_and_its_colour_mirror_the_same() {
        let arch = Architecture::preset("az-tiny").unwrap();
        let net = PolicyValueNet::new(arch, &Device::Cpu, &mut StdRng::seed_from_u64(1));
        let mut eval = NetEvaluator::new(net, Encoding::default(), Device::Cpu).unwrap();
        let fens = ["B:W18,22,K30:B9,K14", "W:W21,22,23,25,26:B1,2,3,K20"];
        let inputs: Vec<EvalInput> = fens
            .iter()
            .flat_map(|f| [input(f, false), input(f, true)])
            .collect();
        let evals = eval.evaluate(&inputs);
        for pair in inputs.chunks(2).zip(evals.chunks(2)) {
            let ((a, b), (ea, eb)) = ((&pair.0[0], &pair.0[1]), (&pair.1[0], &pair.1[1]));
            // The mirror's hop from square s is the original's from 31 - s; same policy index.
            let by_index = |i: &EvalInput, e: &Evaluation| {
                let mut v: Vec<(usize, f32)> = i
                    .hops
                    .iter()
                    .map(|h| policy_index(*h, i.state.turn()))
                    .zip(e.priors.iter().copied())
                    .collect();
                v.sort_by_key(|p| p.0);
                v
            };
            assert_eq!(by_index(a, ea), by_index(b, eb));
            assert_eq!(ea.value, eb.value);
            assert!((ea.priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn a_network_for_another_encoding_is_refused() {
        let arch = Architecture::preset("plain-7x128").unwrap();
        let net = PolicyValueNet::new(arch, &Device::Cpu, &mut StdRng::seed_from_u64(1));
        let err = NetEvaluator::new(net, Encoding::default(), Device::Cpu).err();
        assert!(err.unwrap().to_string().contains("reads 14 input planes"));
    }
}
