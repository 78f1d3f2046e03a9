//! Evaluators: what PUCT asks of a network — for a batch of positions, priors over each
//! one's legal hops and a value for its side to move — behind one trait, so the search does
//! not care whether a network on the CPU or the GPU, or a hand-written rule, answers.

use crate::backend::cpu;
use crate::games::checkers::{Checkers, Color};
use crate::games::{NetInput, Rules};
use crate::nn::{Module, PolicyValueNet};
use crate::tensor::{Device, Precision, Tensor};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One state to evaluate, with what the encoding may need beyond it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(bound = "")]
pub struct EvalInput<G: Rules = Checkers> {
    pub state: G::State,
    /// Plies since the last irreversible action.
    pub quiet: u32,
    /// Earlier turn-start positions, most recent first (as many as asked for, or fewer near
    /// the start of a game).
    pub history: Vec<G::Position>,
    /// The legal actions of `state`; the evaluation's priors follow this order.
    pub actions: Vec<G::Action>,
}

impl<G: Rules> EvalInput<G> {
    /// The view the game's encoding reads.
    pub fn net_input(&self) -> NetInput<'_, G> {
        NetInput {
            state: &self.state,
            quiet: self.quiet,
            history: &self.history,
            actions: &self.actions,
        }
    }

    /// The same input on the board turned or reflected by `sym`; its actions are the images
    /// of this input's, in the same order, so an evaluation of either lines up with the other.
    pub fn image(&self, sym: G::Symmetry) -> EvalInput<G> {
        let turned = |p: &G::Position| {
            G::position(&G::transform_state(sym, &G::turn_start(p)))
                .expect("the image of a turn's start is a turn's start")
        };
        EvalInput {
            state: G::transform_state(sym, &self.state),
            quiet: self.quiet,
            history: self.history.iter().map(turned).collect(),
            actions: (self.actions.iter())
                .map(|&a| G::transform_action(sym, a))
                .collect(),
        }
    }
}

/// A checkers position's input at the start of its turn, with no history (tests).
#[cfg(test)]
pub(crate) fn turn_start_input(pos: crate::games::checkers::Position, quiet: u32) -> EvalInput {
    let state = crate::games::checkers::hops::HopState::turn_start(pos);
    EvalInput {
        actions: state.hops(),
        state,
        quiet,
        history: Vec::new(),
    }
}

/// The answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Probabilities of the input's hops, in its order, summing to 1.
    pub priors: Vec<f32>,
    /// Expected result for the side to move, in [-1, 1].
    pub value: f32,
}

pub trait Evaluator<G: Rules = Checkers> {
    /// Earlier turn-start positions each input should carry (for history planes).
    fn history(&self) -> usize {
        0
    }

    /// One evaluation per input, in order.
    fn evaluate(&mut self, inputs: &[EvalInput<G>]) -> Vec<Evaluation>;

    /// How many batches a caller gains by having begun at once: more than one where
    /// [`begin`](Self::begin) returns before the batch is computed (a network on a GPU, or
    /// on threads of its own), so that the next batch can be gathered and begun meanwhile.
    fn in_flight(&self) -> usize {
        1
    }

    /// Begins evaluating `inputs`; [`Begun::finish`] gives the evaluations. This default
    /// evaluates them at once.
    fn begin(&mut self, inputs: &[EvalInput<G>]) -> Begun {
        Begun::ready(self.evaluate(inputs))
    }
}

/// A boxed evaluator (an agent's, chosen at run time) is one.
impl<G: Rules, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn history(&self) -> usize {
        (**self).history()
    }

    fn evaluate(&mut self, inputs: &[EvalInput<G>]) -> Vec<Evaluation> {
        (**self).evaluate(inputs)
    }

    fn in_flight(&self) -> usize {
        (**self).in_flight()
    }

    fn begin(&mut self, inputs: &[EvalInput<G>]) -> Begun {
        (**self).begin(inputs)
    }
}

/// A batch whose evaluation has begun (on a GPU: its work submitted); `finish` waits for it.
pub struct Begun(Box<dyn FnOnce() -> Vec<Evaluation>>);

impl Begun {
    /// A batch already evaluated.
    pub fn ready(evaluations: Vec<Evaluation>) -> Begun {
        Begun(Box::new(move || evaluations))
    }

    /// A batch whose evaluations `finish` will compute.
    pub fn later(finish: impl FnOnce() -> Vec<Evaluation> + 'static) -> Begun {
        Begun(Box::new(finish))
    }

    pub fn finish(self) -> Vec<Evaluation> {
        (self.0)()
    }
}

fn uniform(n: usize) -> Vec<f32> {
    vec![1.0 / n as f32; n]
}

/// Uniform priors and a material value: a deterministic stand-in for a checkers network
/// (tests, baselines). Pieces jumped this turn already count as gone.
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
                    priors: uniform(inp.actions.len()),
                    value: ((worth(me) - worth(me.opposite())) * self.scale).tanh(),
                }
            })
            .collect()
    }
}

/// Batches worth having on a GPU at once: it computes one while the host gathers and
/// submits the next.
const GPU_IN_FLIGHT: usize = 2;

/// A policy-value network in evaluation mode on its device.
pub struct NetEvaluator<G: Rules = Checkers> {
    net: PolicyValueNet,
    encoding: G::Encoding,
    device: Device,
    /// On the CPU, its products in bf16 where they can be ([`cpu::amx`]); at first as the
    /// process's precision says.
    mixed: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum EncodingMismatch {
    #[error(
        "the network {arch} reads {want} input planes but the encoding gives {have}; \
         it was trained with another encoding"
    )]
    Planes {
        arch: String,
        want: usize,
        have: usize,
    },
    #[error("the network {arch} gives {have} policy outputs but {game} needs {want}")]
    Policy {
        arch: String,
        game: &'static str,
        want: usize,
        have: usize,
    },
}

impl<G: Rules> NetEvaluator<G> {
    /// Wraps `net` (switched to evaluation mode), which must read `encoding`'s planes and
    /// give the game's policy outputs.
    pub fn new(
        mut net: PolicyValueNet,
        encoding: G::Encoding,
        device: Device,
    ) -> Result<Self, EncodingMismatch> {
        let arch = net.arch().name.clone();
        let have = G::planes(&encoding);
        if net.arch().input_planes != have {
            let want = net.arch().input_planes;
            return Err(EncodingMismatch::Planes { arch, want, have });
        }
        if net.head().outputs() != G::POLICY_SIZE {
            return Err(EncodingMismatch::Policy {
                arch,
                game: G::NAME.name(),
                want: G::POLICY_SIZE,
                have: net.head().outputs(),
            });
        }
        net.set_train(false);
        Ok(NetEvaluator {
            net,
            encoding,
            device,
            mixed: cpu::amx::evaluators_mixed(),
        })
    }

    /// Computing at `precision`: on the CPU, mixed puts the products of this evaluator's
    /// calls in bf16 where they can be (a GPU's precision is the device's).
    pub fn at(mut self, precision: Precision) -> Self {
        self.mixed = precision == Precision::Mixed;
        self
    }
}

impl<G: Rules> Evaluator<G> for NetEvaluator<G> {
    fn history(&self) -> usize {
        G::history(&self.encoding)
    }

    fn evaluate(&mut self, inputs: &[EvalInput<G>]) -> Vec<Evaluation> {
        self.begin(inputs).finish()
    }

    fn in_flight(&self) -> usize {
        // A GPU runs one batch while the host gathers and submits the next; the CPU computes
        // eagerly.
        if matches!(self.device, Device::Cpu) {
            1
        } else {
            GPU_IN_FLIGHT
        }
    }

    fn begin(&mut self, inputs: &[EvalInput<G>]) -> Begun {
        if inputs.is_empty() {
            return Begun::ready(Vec::new());
        }
        let planes = G::planes(&self.encoding);
        let [rows, cols] = G::BOARD;
        let size = planes * rows * cols;
        let mut x = vec![0.0; inputs.len() * size];
        for (inp, out) in inputs.iter().zip(x.chunks_exact_mut(size)) {
            G::encode(&self.encoding, &inp.net_input(), out);
        }
        let x = Tensor::from_vec(x, &[inputs.len(), planes, rows, cols], &self.device);
        let (probs, values) = {
            let _products = cpu::amx::mixed_scope(self.mixed);
            self.net.predict(&x)
        };
        // On a GPU the batch runs from here while the caller goes on (and may begin another).
        let reading = Tensor::read_later(&[&probs, &values]);
        // Where each input's legal actions sit in the policy.
        let picks: Vec<Vec<usize>> = inputs
            .iter()
            .map(|inp| {
                let index = |&a| G::policy_index(&inp.state, a);
                inp.actions.iter().map(index).collect()
            })
            .collect();
        Begun::later(move || {
            let [probs, values]: [Vec<f32>; 2] =
                reading.wait().try_into().expect("two tensors read");
            priors_and_values::<G>(&picks, &probs, values)
        })
    }
}

/// Each input's network output as an evaluation: its legal actions' shares of the policy,
/// renormalised over them, and its value.
fn priors_and_values<G: Rules>(
    picks: &[Vec<usize>],
    probs: &[f32],
    values: Vec<f32>,
) -> Vec<Evaluation> {
    picks
        .iter()
        .zip(probs.chunks_exact(G::POLICY_SIZE))
        .zip(values)
        .map(|((pick, p), value)| {
            let mut priors: Vec<f32> = pick.iter().map(|&i| p[i]).collect();
            let sum: f32 = priors.iter().sum();
            // Renormalise over the legal actions (the softmax spread mass over all).
            if sum > 0.0 && sum.is_finite() {
                priors.iter_mut().for_each(|q| *q /= sum);
            } else {
                priors = uniform(priors.len());
            }
            Evaluation { priors, value }
        })
        .collect()
}

/// Everything an encoding can see of one input (the legal actions follow from the state).
type CacheKey<G> = (<G as Rules>::State, u32, Vec<<G as Rules>::Position>);

/// Evaluations of finished batches, shared with the batches still in flight.
type Finished<G> = Arc<Mutex<Vec<(CacheKey<G>, Evaluation)>>>;

/// Remembers evaluations, keyed by everything the encoding sees, so transpositions and
/// positions met again in later searches cost no network call. Forgets everything when it
/// holds `capacity` entries (simple, and recent positions are soon cached again); a
/// capacity of 0 passes every batch straight to the network.
pub struct CachedEvaluator<E, G: Rules = Checkers> {
    inner: E,
    capacity: usize,
    cache: HashMap<CacheKey<G>, Evaluation>,
    /// Evaluations of finished batches begun with `begin`, to be cached at the next call.
    finished: Finished<G>,
    pub hits: u64,
    pub misses: u64,
}

impl<G: Rules, E: Evaluator<G>> CachedEvaluator<E, G> {
    pub fn new(inner: E, capacity: usize) -> Self {
        CachedEvaluator {
            inner,
            capacity,
            cache: HashMap::new(),
            finished: Arc::default(),
            hits: 0,
            misses: 0,
        }
    }

    /// The same cache, empty, in front of `f(inner)`.
    pub fn map<F: Evaluator<G>>(self, f: impl FnOnce(E) -> F) -> CachedEvaluator<F, G> {
        CachedEvaluator::new(f(self.inner), self.capacity)
    }
}

impl<G: Rules, E: Evaluator<G>> Evaluator<G> for CachedEvaluator<E, G> {
    fn history(&self) -> usize {
        self.inner.history()
    }

    fn evaluate(&mut self, inputs: &[EvalInput<G>]) -> Vec<Evaluation> {
        let out = self.begin(inputs).finish();
        self.settle();
        out
    }

    fn in_flight(&self) -> usize {
        self.inner.in_flight()
    }

    fn begin(&mut self, inputs: &[EvalInput<G>]) -> Begun {
        if self.capacity == 0 {
            self.misses += inputs.len() as u64;
            return self.inner.begin(inputs);
        }
        self.settle();
        let key = |i: &EvalInput<G>| (i.state, i.quiet, i.history.clone());
        let mut out: Vec<Option<Evaluation>> = inputs
            .iter()
            .map(|i| self.cache.get(&key(i)).cloned())
            .collect();
        let missing: Vec<usize> = (0..inputs.len()).filter(|&i| out[i].is_none()).collect();
        self.hits += (inputs.len() - missing.len()) as u64;
        self.misses += missing.len() as u64;
        let batch: Vec<EvalInput<G>> = missing.iter().map(|&i| inputs[i].clone()).collect();
        let inner = (!batch.is_empty()).then(|| self.inner.begin(&batch));
        let keys: Vec<CacheKey<G>> = batch.iter().map(key).collect();
        let finished = self.finished.clone();
        Begun::later(move || {
            if let Some(inner) = inner {
                let evaluated = inner.finish();
                for (&i, e) in missing.iter().zip(&evaluated) {
                    out[i] = Some(e.clone());
                }
                let mut done = finished.lock().unwrap_or_else(|e| e.into_inner());
                done.extend(keys.into_iter().zip(evaluated));
            }
            out.into_iter()
                .map(|e| e.expect("every input evaluated"))
                .collect()
        })
    }
}

impl<G: Rules, E> CachedEvaluator<E, G> {
    /// Caches the evaluations of the batches finished since the last call.
    fn settle(&mut self) {
        let done = std::mem::take(&mut *self.finished.lock().unwrap_or_else(|e| e.into_inner()));
        for (k, e) in done {
            if self.cache.len() >= self.capacity {
                self.cache.clear();
            }
            self.cache.insert(k, e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::encoding::{Encoding, policy_index};
    use crate::games::checkers::parse_fen;
    use crate::nn::{Architecture, NetPreset};
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    fn input(fen: &str, mirror: bool) -> EvalInput {
        let pos = parse_fen(fen).unwrap();
        turn_start_input(if mirror { pos.mirrored() } else { pos }, 3)
    }

    #[test]
    fn a_network_sees_a_position_and_its_colour_mirror_the_same() {
        let arch = Architecture::preset(NetPreset::AzTiny);
        let net = PolicyValueNet::new(arch, &Device::Cpu, &mut StdRng::seed_from_u64(1));
        let mut eval =
            NetEvaluator::<Checkers>::new(net, Encoding::default(), Device::Cpu).unwrap();
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
                    .actions
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

    /// Positions met again cost no call of the inner evaluator and get its answer; a
    /// capacity of 0 passes everything through.
    #[test]
    fn the_cache_answers_positions_met_again_unless_it_holds_none() {
        let fens = ["B:W18,22,K30:B9,K14", "W:W21,22,23,25,26:B1,2,3,K20"];
        let inputs: Vec<EvalInput> = fens.iter().map(|f| input(f, false)).collect();
        let want = MaterialEvaluator::default().evaluate(&inputs);
        for (capacity, hits) in [(16, 2), (0, 0)] {
            let mut eval = CachedEvaluator::new(MaterialEvaluator::default(), capacity);
            for _ in 0..2 {
                let got = eval.evaluate(&inputs);
                for (g, w) in got.iter().zip(&want) {
                    assert_eq!((&g.priors, g.value), (&w.priors, w.value));
                }
            }
            assert_eq!(
                (eval.hits, eval.misses),
                (hits, 4 - hits),
                "capacity {capacity}"
            );
        }
    }

    #[test]
    fn a_network_for_another_encoding_is_refused() {
        let arch = Architecture::preset(NetPreset::Plain7x128);
        let net = PolicyValueNet::new(arch, &Device::Cpu, &mut StdRng::seed_from_u64(1));
        let err = NetEvaluator::<Checkers>::new(net, Encoding::default(), Device::Cpu).err();
        assert!(err.unwrap().to_string().contains("reads 14 input planes"));
    }
}
