//! A network's evaluation through the board's symmetries: each position is shown to the
//! network turned or reflected by one of the symmetries that keep the start position
//! ([`start_symmetries`]), drawn at random per position, or by all of them with their
//! answers averaged. The rules do not change under these symmetries, so a perfect network
//! would answer each image alike; a trained one errs differently on each, and the average
//! of its answers errs less (AlphaGo Zero evaluated under a random one of its eight).
//! Checkers has only the identity, so there this changes nothing.

use super::evaluator::{Begun, EvalInput, Evaluation, Evaluator};
use crate::games::{Rules, start_symmetries};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

crate::names::named_enum! {
    /// How an `az` search shows positions to its network.
    #[derive(Default)]
    pub enum EvalSymmetry {
        /// As they are.
        Off = "off" (default),
        /// Under one of the symmetries that keep the start, drawn per position.
        Random = "random",
        /// Under each of them, the answers averaged (as many network inputs per position).
        Mean = "mean",
    }
}

/// An evaluator that asks `inner` about the images of its inputs.
pub struct SymmetricEvaluator<E, G: Rules> {
    inner: E,
    mode: EvalSymmetry,
    symmetries: Vec<G::Symmetry>,
    rng: StdRng,
}

impl<E: Evaluator<G>, G: Rules> SymmetricEvaluator<E, G> {
    /// `seed` draws the symmetries of `EvalSymmetry::Random`.
    pub fn new(inner: E, mode: EvalSymmetry, seed: u64) -> Self {
        SymmetricEvaluator {
            inner,
            mode,
            symmetries: start_symmetries::<G>(),
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

impl<E: Evaluator<G>, G: Rules> Evaluator<G> for SymmetricEvaluator<E, G> {
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
        let images: Vec<EvalInput<G>> = match self.mode {
            EvalSymmetry::Off => return self.inner.begin(inputs),
            EvalSymmetry::Random => {
                let syms = &self.symmetries;
                let rng = &mut self.rng;
                (inputs.iter())
                    .map(|i| i.image(syms[rng.random_range(0..syms.len())]))
                    .collect()
            }
            EvalSymmetry::Mean => (inputs.iter())
                .flat_map(|i| self.symmetries.iter().map(|&s| i.image(s)))
                .collect(),
        };
        // An image's actions are its input's in the same order, so its priors need no mapping.
        let per_input = images.len() / inputs.len().max(1);
        let begun = self.inner.begin(&images);
        Begun::later(move || {
            let evaluations = begun.finish();
            if per_input == 1 {
                return evaluations;
            }
            evaluations.chunks_exact(per_input).map(mean).collect()
        })
    }
}

/// The mean of evaluations of one position's images.
fn mean(images: &[Evaluation]) -> Evaluation {
    let n = images.len() as f32;
    let mut priors = vec![0.0; images[0].priors.len()];
    for e in images {
        priors.iter_mut().zip(&e.priors).for_each(|(p, q)| *p += q);
    }
    priors.iter_mut().for_each(|p| *p /= n);
    Evaluation {
        priors,
        value: images.iter().map(|e| e.value).sum::<f32>() / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Othello;
    use crate::mcts::NetEvaluator;
    use crate::nn::{Architecture, NetPreset, PolicyHead, PolicyValueNet};
    use crate::tensor::Device;

    /// Othello positions along random games from the start, as a search would ask about them.
    fn positions(n: usize) -> Vec<EvalInput<Othello>> {
        let mut rng = StdRng::seed_from_u64(3);
        let start = || Othello::turn_start(&Othello::start());
        let (mut out, mut state) = (Vec::new(), start());
        while out.len() < n {
            let mut actions = Vec::new();
            Othello::legal_actions(&state, &mut actions);
            if Othello::outcome(&state).is_some() || actions.is_empty() {
                state = start();
                continue;
            }
            let next = Othello::apply(&state, actions[rng.random_range(0..actions.len())]);
            out.push(EvalInput {
                state,
                quiet: 0,
                history: Vec::new(),
                actions,
            });
            state = next;
        }
        out
    }

    fn network() -> NetEvaluator<Othello> {
        let arch = Architecture::preset(NetPreset::AzTiny).with_input_planes(Othello::planes(&()));
        let head = PolicyHead::Dense {
            outputs: Othello::POLICY_SIZE,
        };
        let net =
            PolicyValueNet::with_head(arch, head, &Device::Cpu, &mut StdRng::seed_from_u64(1));
        NetEvaluator::new(net, (), Device::Cpu).unwrap()
    }

    fn close(a: &Evaluation, b: &Evaluation) -> bool {
        let near = |x: f32, y: f32| (x - y).abs() <= 1e-5;
        near(a.value, b.value)
            && a.priors.len() == b.priors.len()
            && a.priors.iter().zip(&b.priors).all(|(&x, &y)| near(x, y))
    }

    /// The mean is the average of the network's answers for the four images, each read back
    /// on the position's own actions; a position and its image then get the same answer.
    #[test]
    fn the_mean_averages_the_images_answers_and_is_the_same_for_every_image() {
        let inputs = positions(24);
        let mut plain = network();
        let mut mean_of = SymmetricEvaluator::new(network(), EvalSymmetry::Mean, 0);
        let syms = start_symmetries::<Othello>();
        assert_eq!(syms.len(), 4);
        let got = mean_of.evaluate(&inputs);
        for (input, g) in inputs.iter().zip(&got) {
            let images: Vec<_> = syms.iter().map(|&s| input.image(s)).collect();
            let want = mean(&plain.evaluate(&images));
            assert!(close(g, &want), "{g:?} against {want:?}");
            for image in &images {
                assert!(close(&mean_of.evaluate(std::slice::from_ref(image))[0], g));
            }
        }
        // A trained or untrained network is not itself symmetric: the mean differs somewhere.
        let raw = plain.evaluate(&inputs);
        assert!(raw.iter().zip(&got).any(|(r, g)| !close(r, g)));
    }

    /// Each random answer is the network's answer for one of the images, and the draws cover
    /// all four; off passes the inputs through.
    #[test]
    fn random_answers_for_one_image_and_off_for_the_input() {
        let inputs = positions(40);
        let mut plain = network();
        let syms = start_symmetries::<Othello>();
        let mut random = SymmetricEvaluator::new(network(), EvalSymmetry::Random, 7);
        let mut seen = vec![false; syms.len()];
        for (input, g) in inputs.iter().zip(random.evaluate(&inputs)) {
            let images: Vec<_> = syms.iter().map(|&s| input.image(s)).collect();
            let answers = plain.evaluate(&images);
            let which = answers.iter().position(|a| close(a, &g));
            seen[which.expect("an image's answer")] = true;
        }
        assert_eq!(seen, vec![true; syms.len()]);
        let mut off = SymmetricEvaluator::new(network(), EvalSymmetry::Off, 7);
        for (r, g) in plain.evaluate(&inputs).iter().zip(off.evaluate(&inputs)) {
            assert!(close(r, &g));
        }
    }
}
