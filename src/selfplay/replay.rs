//! The replay buffer: training samples from the latest iterations' self-play (a sliding
//! window; Checkers-MCTS found a window of one iteration best), and the batches the trainer
//! draws from it.

use crate::games::{Checkers, Rules, start_symmetries};
use crate::mcts::EvalInput;
use crate::tensor::{Device, Tensor};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::VecDeque;

/// The plies ahead at which a sample's auxiliary targets read the material lead.
pub const AHEAD_PLIES: [usize; 2] = [4, 8];

/// One searched position: what the network saw, the search's visit distribution, the game's
/// result and the search's root value, both for the side to move, and the auxiliary targets.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound = "")]
pub struct Sample<G: Rules = Checkers> {
    pub input: EvalInput<G>,
    /// (policy index, probability) of the actions the search kept.
    pub policy: Vec<(u16, f32)>,
    /// The game's result: 1 win, 0 draw, -1 loss.
    pub z: f32,
    /// The search's mean value at the root.
    pub q: f32,
    /// The side to move's material lead ([`Rules::material_lead`]) [`AHEAD_PLIES`] plies
    /// later in the game, or where it ended if sooner; none for samples kept from before
    /// they were recorded.
    pub ahead: Option<[f32; AHEAD_PLIES.len()]>,
}

/// A sample as run states of checkpoint format 4 and before stored it, without `ahead`.
#[derive(Deserialize)]
#[serde(bound = "")]
struct SampleV4<G: Rules> {
    input: EvalInput<G>,
    policy: Vec<(u16, f32)>,
    z: f32,
    q: f32,
}

/// Reads the layout of the checkpoint being decoded (bincode cannot tell them apart). bincode
/// writes a struct's fields one after another, so today's layout reads as the old one
/// followed by `ahead`.
impl<'de, G: Rules> Deserialize<'de> for Sample<G> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Sample<G>, D::Error> {
        let (old, ahead) = if crate::nn::decoding_version() > crate::nn::NO_AHEAD_VERSION {
            <(SampleV4<G>, Option<[f32; AHEAD_PLIES.len()]>)>::deserialize(d)?
        } else {
            (SampleV4::<G>::deserialize(d)?, None)
        };
        Ok(Sample {
            input: old.input,
            policy: old.policy,
            z: old.z,
            q: old.q,
            ahead,
        })
    }
}

impl<G: Rules> Sample<G> {
    /// The same sample on the board turned or reflected by `sym`: the rules are unchanged by
    /// it, so the image's visit distribution, result and value are the original's, moved to
    /// the image's actions.
    pub fn image(&self, sym: G::Symmetry) -> Sample<G> {
        let state = G::transform_state(sym, &self.input.state);
        let policy = self
            .policy
            .iter()
            .map(|&(i, p)| {
                let action = G::action_at(&self.input.state, i as usize);
                let index = G::policy_index(&state, G::transform_action(sym, action));
                (index as u16, p)
            })
            .collect();
        Sample {
            input: self.input.image(sym),
            policy,
            z: self.z,
            q: self.q,
            ahead: self.ahead,
        }
    }
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
/// (n, policy size), value targets (n). With `symmetries`, each sample is seen under one of
/// the [`start_symmetries`] drawn at random (AlphaGo Zero's augmentation; checkers has none
/// besides the identity).
pub fn batch<G: Rules>(
    samples: &[&Sample<G>],
    encoding: &G::Encoding,
    target: ValueTarget,
    device: &Device,
    mut symmetries: Option<&mut impl Rng>,
) -> (Tensor, Tensor, Tensor) {
    let n = samples.len();
    let (planes, [rows, cols]) = (G::planes(encoding), G::BOARD);
    let size = planes * rows * cols;
    let mut x = vec![0.0; n * size];
    let mut pi = vec![0.0; n * G::POLICY_SIZE];
    let syms = (symmetries.is_some())
        .then(start_symmetries::<G>)
        .unwrap_or_default();
    for ((s, xs), ps) in samples
        .iter()
        .zip(x.chunks_exact_mut(size))
        .zip(pi.chunks_exact_mut(G::POLICY_SIZE))
    {
        let s: Cow<Sample<G>> = match symmetries.as_mut() {
            Some(rng) if syms.len() > 1 => match syms[rng.random_range(0..syms.len())] {
                sym if sym == syms[0] => Cow::Borrowed(*s),
                sym => Cow::Owned(s.image(sym)),
            },
            _ => Cow::Borrowed(*s),
        };
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

/// The auxiliary targets of a batch's samples, (n, [`AHEAD_PLIES`]) row-major, and beside
/// them 1 where a sample has its targets and 0 where it has none (the loss skips those).
pub fn ahead_targets<G: Rules>(samples: &[&Sample<G>]) -> (Vec<f32>, Vec<f32>) {
    let mut targets = Vec::with_capacity(samples.len() * AHEAD_PLIES.len());
    let mut known = Vec::with_capacity(targets.capacity());
    for s in samples {
        targets.extend(s.ahead.unwrap_or_default());
        known.extend([if s.ahead.is_some() { 1.0 } else { 0.0 }; AHEAD_PLIES.len()]);
    }
    (targets, known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::Position;
    use crate::mcts::{Encoding, HopState, policy_index};
    use rand::rngs::StdRng;

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
            ahead: Some([0.25, -0.5]),
        }
    }

    /// Samples of run states of checkpoint format 4 and before, stored without auxiliary
    /// targets, read with none; today's read with theirs.
    #[test]
    fn samples_stored_before_their_auxiliary_targets_read_with_none() {
        use crate::nn::{NO_AHEAD_VERSION, decode_as_of};
        let s = sample(1.0);
        let today = bincode::serde::encode_to_vec(&s, bincode::config::standard()).unwrap();
        // bincode writes `Some` as one byte and each f32 as four, at the end.
        let old = &today[..today.len() - 9];
        let (read, used): (Sample, usize) = decode_as_of(NO_AHEAD_VERSION, old).unwrap();
        assert_eq!(used, old.len());
        let want = Sample {
            ahead: None,
            ..s.clone()
        };
        assert_eq!(read, want);
        let (read, used): (Sample, usize) = decode_as_of(NO_AHEAD_VERSION + 1, &today).unwrap();
        assert_eq!((read, used), (s, today.len()));
    }

    /// A batch's auxiliary targets row by row, and zeros marked unknown for a sample without.
    #[test]
    fn a_batch_marks_the_samples_without_auxiliary_targets() {
        let (with, without) = (
            sample(1.0),
            Sample {
                ahead: None,
                ..sample(0.0)
            },
        );
        let (targets, known) = ahead_targets(&[&with, &without, &with]);
        assert_eq!(targets, [0.25, -0.5, 0.0, 0.0, 0.25, -0.5]);
        assert_eq!(known, [1.0, 1.0, 0.0, 0.0, 1.0, 1.0]);
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
        let (x, pi, z) = batch::<Checkers>(
            &refs,
            &Encoding::default(),
            ValueTarget::Mean,
            &Device::Cpu,
            None::<&mut StdRng>,
        );
        assert_eq!(x.shape(), &[2, 8, 8, 8]);
        assert_eq!(pi.to_vec().iter().sum::<f32>(), 2.0);
        assert_eq!(z.to_vec(), vec![0.75, -0.25]);
    }

    /// Samples from random play: every legal action in the policy, each with its own weight.
    fn random_samples<G: Rules>(n: usize, encoding: &G::Encoding) -> Vec<Sample<G>> {
        use rand::SeedableRng;
        let mut rng = StdRng::seed_from_u64(7);
        let (mut out, mut state, mut history) = (Vec::new(), G::turn_start(&G::start()), vec![]);
        while out.len() < n {
            let mut actions = Vec::new();
            G::legal_actions(&state, &mut actions);
            if G::outcome(&state).is_some() || actions.is_empty() {
                (state, history) = (G::turn_start(&G::start()), vec![]);
                continue;
            }
            let weights: f32 = (1..=actions.len()).map(|w| w as f32).sum();
            let policy = (actions.iter().enumerate())
                .map(|(k, &a)| (G::policy_index(&state, a) as u16, (k + 1) as f32 / weights))
                .collect();
            let keep = G::history(encoding).min(history.len());
            out.push(Sample {
                input: EvalInput {
                    state,
                    quiet: 0,
                    history: history[..keep].to_vec(),
                    actions: actions.clone(),
                },
                policy,
                z: 1.0,
                q: 0.5,
                ahead: Some([0.25, -0.5]),
            });
            if let Some(p) = G::position(&state) {
                history.insert(0, p);
            }
            state = G::apply(&state, actions[rng.random_range(0..actions.len())]);
        }
        out
    }

    /// Each symmetry's image of a sample is the sample of the image position: its actions are
    /// that position's legal ones, each with the probability of the action it is the image of.
    fn images_are_samples_of_the_image<G: Rules>(encoding: &G::Encoding) {
        for s in random_samples::<G>(200, encoding) {
            for &sym in G::SYMMETRIES {
                let image = s.image(sym);
                let mut legal = Vec::new();
                G::legal_actions(&image.input.state, &mut legal);
                let key = |a: &G::Action| format!("{a:?}");
                let sorted = |v: &[G::Action]| {
                    let mut k: Vec<String> = v.iter().map(key).collect();
                    k.sort();
                    k
                };
                assert_eq!(sorted(&image.input.actions), sorted(&legal));
                for (&(i, p), &(j, q)) in s.policy.iter().zip(&image.policy) {
                    let a = G::action_at(&s.input.state, i as usize);
                    let b = G::action_at(&image.input.state, j as usize);
                    assert_eq!(key(&G::transform_action(sym, a)), key(&b));
                    assert_eq!(p, q);
                }
                if sym == G::SYMMETRIES[0] {
                    assert_eq!(image, s);
                }
            }
        }
    }

    #[test]
    fn othello_images_move_the_policy_with_the_board() {
        images_are_samples_of_the_image::<crate::games::Othello>(&());
    }

    #[test]
    fn the_checkers_mirror_is_another_sample_with_the_same_input() {
        let encoding = Encoding {
            history: 2,
            ..Encoding::default()
        };
        images_are_samples_of_the_image::<Checkers>(&encoding);
        let planes = |s: &Sample| {
            let mut x = vec![0.0; Checkers::planes(&encoding) * 64];
            Checkers::encode(&encoding, &s.input.net_input(), &mut x);
            x
        };
        for s in random_samples::<Checkers>(100, &encoding) {
            let mirror = s.image(Checkers::SYMMETRIES[1]);
            assert_eq!(planes(&mirror), planes(&s));
            assert_eq!(mirror.policy, s.policy);
        }
    }

    #[test]
    fn the_start_keeps_four_othello_symmetries_and_only_the_checkers_identity() {
        use crate::games::othello::Symmetry;
        let othello = start_symmetries::<crate::games::Othello>();
        let kept = [
            Symmetry::Identity,
            Symmetry::Rotate180,
            Symmetry::FlipDiagonal,
            Symmetry::FlipAntiDiagonal,
        ];
        assert_eq!(othello, kept);
        assert_eq!(
            start_symmetries::<Checkers>(),
            vec![Checkers::SYMMETRIES[0]]
        );
    }

    #[test]
    fn othello_batches_under_symmetries_keep_each_samples_targets() {
        use rand::SeedableRng;
        let samples = random_samples::<crate::games::Othello>(64, &());
        let refs: Vec<&Sample<crate::games::Othello>> = samples.iter().collect();
        let mut rng = StdRng::seed_from_u64(1);
        let plain = batch(
            &refs,
            &(),
            ValueTarget::Mean,
            &Device::Cpu,
            None::<&mut StdRng>,
        );
        let turned = batch(&refs, &(), ValueTarget::Mean, &Device::Cpu, Some(&mut rng));
        assert_eq!(turned.2.to_vec(), plain.2.to_vec());
        let (plain, turned) = (plain.1.to_vec(), turned.1.to_vec());
        let row = |v: &[f32], r: usize| v[r * 65..(r + 1) * 65].to_vec();
        let sorted = |mut r: Vec<f32>| {
            r.sort_by(f32::total_cmp);
            r
        };
        // The same probabilities, on other squares for most samples (4 symmetries, 64 draws).
        assert!((0..64).all(|r| sorted(row(&plain, r)) == sorted(row(&turned, r))));
        let moved = (0..64)
            .filter(|&r| row(&plain, r) != row(&turned, r))
            .count();
        assert!(moved > 32, "{moved} of 64 samples turned");
    }
}
