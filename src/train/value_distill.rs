//! Teaching a checkers network's value head a deeper judge: the positions of the pattern
//! fits' games ([`super::checkers_patterns::play_games`]), each labelled with the shipped
//! patterns' alpha-beta score some plies deep ([`label_by_search`](super::checkers_patterns::label_by_search),
//! with the endgame databases where the agent finds them), become training samples whose
//! value target is that label and whose policy target is the network's own prior: the policy
//! is held where it was while the value learns what the search sees, as TreeStrap moves a
//! search's look-ahead into its evaluation.

use super::alphazero::optimise::{TrainSpec, TrainStats, train_candidate};
use super::checkers_patterns as patterns;
use crate::games::{Checkers, Rules};
use crate::mcts::evaluator::{EvalInput, Evaluator};
use crate::nn::{Optimizer, PolicyValueNet};
use crate::selfplay::replay::{Sample, ValueTarget};
use crate::tensor::Device;
use rand::SeedableRng;
use rand::rngs::StdRng;

/// Network inputs a call while priors and values are read.
const EVAL_BATCH: usize = 512;

/// Game by game, training samples for `games`' positions and their labels `labels` (as
/// `label_by_search` returns them): value target the label, policy target `evaluator`'s
/// priors. Counted on `bar`.
pub fn samples(
    games: Vec<Vec<EvalInput<Checkers>>>,
    labels: &[Vec<patterns::Sample>],
    evaluator: &mut impl Evaluator<Checkers>,
    bar: &indicatif::ProgressBar,
) -> Vec<Vec<Sample<Checkers>>> {
    assert_eq!(games.len(), labels.len(), "labels for every game");
    let mut out = Vec::with_capacity(games.len());
    for (game, labels) in games.into_iter().zip(labels) {
        assert_eq!(game.len(), labels.len(), "a label for every position");
        let mut samples = Vec::with_capacity(game.len());
        for (chunk, labels) in game.chunks(EVAL_BATCH).zip(labels.chunks(EVAL_BATCH)) {
            let evals = evaluator.evaluate(chunk);
            for ((input, eval), label) in chunk.iter().zip(evals).zip(labels) {
                let policy = (input.actions.iter().zip(&eval.priors))
                    .map(|(&a, &p)| (Checkers::policy_index(&input.state, a) as u16, p))
                    .collect();
                samples.push(Sample {
                    input: input.clone(),
                    policy,
                    z: label.target,
                    q: label.target,
                    ahead: None,
                });
            }
        }
        bar.inc(game.len() as u64);
        out.push(samples);
    }
    out
}

/// The mean squared error of `evaluator`'s values against the samples' value targets.
pub fn value_error(evaluator: &mut impl Evaluator<Checkers>, samples: &[&Sample<Checkers>]) -> f64 {
    let mut sum = 0.0;
    for chunk in samples.chunks(EVAL_BATCH) {
        let inputs: Vec<EvalInput<Checkers>> = chunk.iter().map(|s| s.input.clone()).collect();
        for (s, eval) in chunk.iter().zip(evaluator.evaluate(&inputs)) {
            sum += ((eval.value - s.z) as f64).powi(2);
        }
    }
    sum / samples.len().max(1) as f64
}

/// How the network is taught.
#[derive(Clone, Debug)]
pub struct Teaching {
    pub epochs: u32,
    pub batch_size: usize,
    /// Adam's learning rate.
    pub lr: f32,
    pub weight_decay: f32,
    pub seed: u64,
}

/// Trains `net` on `samples` (their value targets the labels, as [`samples`] made them) with
/// a fresh Adam, on the CPU, counted on `bar` (one tick a step).
pub fn teach(
    net: &mut PolicyValueNet,
    encoding: &<Checkers as Rules>::Encoding,
    samples: &[&Sample<Checkers>],
    how: &Teaching,
    bar: &indicatif::ProgressBar,
) -> TrainStats {
    let mut opt = Optimizer::adam(how.lr, how.weight_decay, net);
    let spec = TrainSpec {
        encoding,
        // z and q are both the label.
        target: ValueTarget::Mean,
        batch_size: how.batch_size,
        epochs: how.epochs,
        device: &Device::Cpu,
        symmetries: false,
        aux_weight: 0.0,
    };
    let mut rng = StdRng::seed_from_u64(how.seed);
    train_candidate(net, &mut opt, samples, &spec, &mut rng, bar)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcts::evaluator::NetEvaluator;
    use crate::net::NetGame;
    use crate::train::checkers_patterns::{Play, label_by_search, play_games};

    /// The samples carry each position's label as both value targets and the network's own
    /// priors as the policy target; teaching moves the network's values toward the labels
    /// on positions it did not train on.
    #[test]
    fn teaching_moves_the_value_toward_the_labels() {
        let bar = indicatif::ProgressBar::hidden();
        let (mut net, encoding, _) = Checkers::default_model(&Device::Cpu).unwrap();
        let mut before = NetEvaluator::<Checkers>::new(net.clone(), encoding, Device::Cpu).unwrap();
        let games = play_games(&Play::default(), 300, 7, before.history(), &bar);
        let labels = label_by_search(&games, 6, &bar);
        let games = samples(games, &labels, &mut before, &bar);
        assert_eq!(games.len(), labels.len());
        for (samples, labels) in games.iter().zip(&labels) {
            assert_eq!(samples.len(), labels.len());
            for (s, l) in samples.iter().zip(labels) {
                assert_eq!(Checkers::position(&s.input.state), Some(l.pos));
                assert_eq!((s.z, s.q), (l.target, l.target));
                assert_eq!(s.policy.len(), s.input.actions.len());
                let sum: f32 = s.policy.iter().map(|&(_, p)| p).sum();
                assert!((sum - 1.0).abs() < 1e-3, "{sum}");
                for (&(i, _), &a) in s.policy.iter().zip(&s.input.actions) {
                    assert_eq!(Checkers::action_at(&s.input.state, i as usize), a);
                }
            }
        }
        let held: Vec<_> = games.iter().skip(1).step_by(2).flatten().collect();
        let fitted: Vec<_> = games.iter().step_by(2).flatten().collect();
        let error_before = value_error(&mut before, &held);
        let how = Teaching {
            epochs: 1,
            batch_size: 128,
            lr: 0.0001,
            weight_decay: 1e-4,
            seed: 1,
        };
        let stats = teach(&mut net, &encoding, &fitted, &how, &bar);
        assert!(stats.steps > 50, "{stats:?}");
        let mut after = NetEvaluator::<Checkers>::new(net, encoding, Device::Cpu).unwrap();
        let error_after = value_error(&mut after, &held);
        assert!(
            error_after < 0.95 * error_before,
            "{error_before} -> {error_after}"
        );
    }
}
