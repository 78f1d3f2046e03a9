//! The genetic algorithm of the Durham study ("Playing Draughts using Neural Networks and
//! Genetic Algorithms", after Blondie24), with the Blondie24 scheme as an option.
//!
//! Durham: 15 networks; each plays `games` games as Black against random members (a game
//! capped at 100 plies is a draw), win +2, draw 0, loss -1 (both players score). The best five
//! survive; 1st x 2nd and 2nd x 3rd each give two reciprocal crossovers and two mutated copies,
//! 4th and 5th one mutant each. Blondie24: 15 parents each make one offspring by self-adaptive
//! Gaussian mutation (and an evolving king value); the 30 play, scoring +1 / 0 / -2, and the
//! best 15 survive.

use super::errors::TrainError;
use super::fitness::{self, Arena, Pairing, Player, Points};
use super::population::{self, PopulationTrainer};
use super::run_dir::RunOptions;
use crate::arena::OpeningSet;
use crate::net::value_net::{Features, HiddenActivation, Learner, ValueArch, ValueNet};
use crate::nn::{Checkpoint, Module, TensorData};
use crate::seeds::{Purpose, seed_for};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

crate::names::named_enum! {
    /// An evolution scheme.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Scheme {
        /// Elitism, crossover of hidden units and uniform mutation (the Durham study).
        Durham = "durham",
        /// 15 parents + 15 offspring, self-adaptive mutation only, evolving king value.
        Blondie24 = "blondie24",
    }
}

crate::keys::settings! {
    /// A GA run's settings (saved in its run state).
    #[derive(Clone, Debug, PartialEq)]
    pub struct GaConfig {
        /// Which study's evolution scheme.
        scheme: Scheme = Scheme::Durham,
        /// Networks kept per generation (the Durham scheme needs 15).
        population: usize = DURHAM_POPULATION,
        /// Games each network plays as Black per generation.
        games: usize = 5,
        /// Alpha-beta depth during training.
        depth: u32 = 4,
        /// A game reaching this many plies is a draw.
        max_plies: usize = 100,
        /// Hidden layer widths, comma-separated.
        hidden: Vec<usize> = vec![40, 10],
        /// King input value (Blondie24: the starting value, then evolved; 2.0 in that study).
        king: f32 = 1.5,
        /// Start games from random three-move ballots instead of the start position.
        ballots: bool = false,
        /// Games a new champion plays against each of the previous five (half per colour).
        (no_flag) champion_games: usize = 6,
        /// Seed of every random choice of the run.
        seed: u64 = 0,
    }
}

/// Durham: survivors and children per generation.
const ELITE: usize = 5;
const DURHAM_POPULATION: usize = 15;
/// Blondie24's initial mutation step and the range of its king value.
const BLONDIE_SIGMA: f32 = 0.05;
const KING_RANGE: (f32, f32) = (1.0, 3.0);
/// Previous champions a new one is measured against.
const CHAMPIONS: usize = 5;

impl GaConfig {
    /// Why these settings cannot run, if they cannot.
    pub fn validate(&self) -> Result<(), TrainError> {
        let bad = |m: &str| Err(TrainError::Config(format!("train-ga: {m}")));
        if self.scheme == Scheme::Durham && self.population != DURHAM_POPULATION {
            return bad("the Durham scheme has a population of 15 (5 survivors, 10 children)");
        }
        if self.population < 2 || self.games == 0 || self.max_plies == 0 {
            return bad("expected --population >= 2, --games >= 1, --max-plies >= 1");
        }
        if !(1..=64).contains(&self.depth) || self.hidden.is_empty() || self.hidden.contains(&0) {
            return bad("expected --depth 1-64 and at least one hidden layer, none empty");
        }
        if !(self.king > 0.0 && self.king <= 10.0) {
            return bad("expected --king in (0, 10]");
        }
        Ok(())
    }

    fn arch(&self, king: f32) -> ValueArch {
        ValueArch {
            learner: Learner::Ga,
            features: Features::SubSquares,
            hidden: self.hidden.clone(),
            activation: HiddenActivation::Tanh,
            king,
        }
    }

    fn arena(&self) -> Arena {
        Arena {
            depth: self.depth,
            max_plies: self.max_plies,
            openings: if self.ballots {
                OpeningSet::Standard
            } else {
                OpeningSet::None
            },
        }
    }

    fn points(&self) -> Points {
        match self.scheme {
            Scheme::Durham => Points {
                win: 2.0,
                draw: 0.0,
                loss: -1.0,
            },
            Scheme::Blondie24 => Points {
                win: 1.0,
                draw: 0.0,
                loss: -2.0,
            },
        }
    }
}

/// A network of the population.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub id: u64,
    pub weights: Vec<f32>,
    /// Blondie24: one mutation step per weight; empty otherwise.
    pub sigma: Vec<f32>,
    pub king: f32,
}

impl Member {
    fn player(&self, config: &GaConfig) -> Player {
        Player {
            arch: config.arch(self.king),
            weights: self.weights.clone(),
        }
    }
}

/// Durham mutation: every weight moves by m / sqrt(2 sqrt(K)), m uniform in [-1, 1].
pub fn mutate(weights: &[f32], rng: &mut impl Rng) -> Vec<f32> {
    let step = 1.0 / (2.0 * (weights.len() as f32).sqrt()).sqrt();
    weights
        .iter()
        .map(|w| w + step * rng.random_range(-1.0f32..=1.0))
        .collect()
}

/// The flat positions (incoming weights and bias) of hidden unit `unit` counted over all
/// hidden layers, for a network with `layers` (rows, columns) weight matrices in
/// [`ValueNet::layer_shapes`] order.
pub fn hidden_unit(layers: &[(usize, usize)], mut unit: usize) -> Vec<usize> {
    let mut offset = 0;
    for &(rows, cols) in &layers[..layers.len() - 1] {
        if unit < rows {
            let mut at: Vec<usize> = (offset + unit * cols..offset + (unit + 1) * cols).collect();
            at.push(offset + rows * cols + unit);
            return at;
        }
        unit -= rows;
        offset += rows * cols + rows;
    }
    panic!("hidden unit out of range");
}

/// Two reciprocal crossovers: the incoming weights of one random hidden unit of the dominant
/// parent swapped with the other's, giving (dominant with the other's unit, other with the
/// dominant's).
pub fn crossover(
    dominant: &[f32],
    other: &[f32],
    layers: &[(usize, usize)],
    rng: &mut impl Rng,
) -> (Vec<f32>, Vec<f32>) {
    let units: usize = layers[..layers.len() - 1].iter().map(|l| l.0).sum();
    let (mut a, mut b) = (dominant.to_vec(), other.to_vec());
    for i in hidden_unit(layers, rng.random_range(0..units)) {
        std::mem::swap(&mut a[i], &mut b[i]);
    }
    (a, b)
}

/// Blondie24's offspring: sigma' = sigma exp(tau N(0,1)), w' = w + sigma' N(0,1) with
/// tau = 1 / sqrt(2 sqrt(Nw)); the king value moves by up to 0.1 within [1, 3].
fn blondie_offspring(parent: &Member, id: u64, rng: &mut impl Rng) -> Member {
    let tau = 1.0 / (2.0 * (parent.weights.len() as f32).sqrt()).sqrt();
    let sigma: Vec<f32> = parent
        .sigma
        .iter()
        .map(|s| s * (tau * rng.sample::<f32, _>(StandardNormal)).exp())
        .collect();
    let weights = parent
        .weights
        .iter()
        .zip(&sigma)
        .map(|(w, s)| w + s * rng.sample::<f32, _>(StandardNormal))
        .collect();
    let king = (parent.king + rng.random_range(-0.1f32..=0.1)).clamp(KING_RANGE.0, KING_RANGE.1);
    Member {
        id,
        weights,
        sigma,
        king,
    }
}

/// The population and its history: everything `state.ckpt` restores.
#[derive(Clone, Debug)]
pub struct Population {
    pub config: GaConfig,
    pub generation: u64,
    pub next_id: u64,
    pub members: Vec<Member>,
    /// The latest champions, oldest first (at most five).
    pub champions: Vec<Member>,
}

/// The header of `state.ckpt`; the weights follow as parameters (members' weights, then
/// their mutation steps, then the champions' weights).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GaState {
    pub config: GaConfig,
    pub generation: u64,
    pub next_id: u64,
    /// (id, king) of each member, then of each champion.
    pub members: Vec<(u64, f32)>,
    pub champions: Vec<(u64, f32)>,
}

impl crate::nn::CheckpointKind for GaState {
    const KIND: &'static str = "a train-ga run state";
}

impl std::fmt::Display for GaState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ga population after {} generations", self.generation)
    }
}

/// What one generation did, for metrics.
#[derive(Clone, Debug, Serialize)]
pub struct GenerationReport {
    pub generation: u64,
    pub best_fitness: f64,
    pub mean_fitness: f64,
    pub champion: u64,
    pub champion_king: f32,
    /// A new champion's mean score (win 1, draw 1/2) over the previous champions: the mean of
    /// its mean against each.
    pub champion_vs_previous: Option<f64>,
    pub games: usize,
    pub seconds: f64,
}

impl Population {
    pub fn new(config: GaConfig) -> Result<Population, TrainError> {
        config.validate()?;
        let mut rng = StdRng::seed_from_u64(seed_for(config.seed, Purpose::Init, 0));
        let n = ValueNet::new(config.arch(config.king), &mut rng).num_params();
        let (bound, sigma) = match config.scheme {
            Scheme::Durham => (1.0, Vec::new()),
            Scheme::Blondie24 => (0.2, vec![BLONDIE_SIGMA; n]),
        };
        let members = (0..config.population as u64)
            .map(|id| Member {
                id,
                weights: (0..n).map(|_| rng.random_range(-bound..=bound)).collect(),
                sigma: sigma.clone(),
                king: config.king,
            })
            .collect();
        Ok(Population {
            next_id: config.population as u64,
            config,
            generation: 0,
            members,
            champions: Vec::new(),
        })
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    /// Plays one generation and breeds the next.
    pub fn step(&mut self) -> GenerationReport {
        let t0 = Instant::now();
        let config = self.config.clone();
        let mut rng =
            StdRng::seed_from_u64(seed_for(config.seed, Purpose::Variation, self.generation));
        let pool: Vec<Member> = match config.scheme {
            Scheme::Durham => self.members.clone(),
            Scheme::Blondie24 => {
                let parents = self.members.clone();
                let mut pool = parents.clone();
                for p in &parents {
                    let id = self.fresh_id();
                    pool.push(blondie_offspring(p, id, &mut rng));
                }
                pool
            }
        };
        let pairings: Vec<Pairing> = (0..pool.len())
            .flat_map(|i| (0..config.games).map(move |_| i))
            .map(|i| {
                let j = (i + rng.random_range(1..pool.len())) % pool.len();
                Pairing { black: i, white: j }
            })
            .collect();
        let players: Vec<Player> = pool.iter().map(|m| m.player(&config)).collect();
        let game_seed = seed_for(config.seed, Purpose::Games, self.generation);
        let winners = fitness::play(&players, &pairings, config.arena(), game_seed);
        let fitness = fitness::scores(pool.len(), &pairings, &winners, config.points());
        let mut order: Vec<usize> = (0..pool.len()).collect();
        order.sort_by(|&a, &b| fitness[b].total_cmp(&fitness[a]));
        let ranked: Vec<Member> = order.iter().map(|&i| pool[i].clone()).collect();
        let champion = ranked[0].clone();
        self.members = match config.scheme {
            Scheme::Blondie24 => ranked[..config.population].to_vec(),
            Scheme::Durham => self.breed(&ranked, &mut rng),
        };
        let champion_vs_previous = self.track_champion(&champion);
        self.generation += 1;
        GenerationReport {
            generation: self.generation,
            best_fitness: fitness[order[0]],
            mean_fitness: fitness.iter().sum::<f64>() / fitness.len() as f64,
            champion: champion.id,
            champion_king: champion.king,
            champion_vs_previous,
            games: pairings.len(),
            seconds: t0.elapsed().as_secs_f64(),
        }
    }

    /// Durham breeding from the ranked pool: the best five and their ten children.
    fn breed(&mut self, ranked: &[Member], rng: &mut StdRng) -> Vec<Member> {
        let layers = ValueNet::new(self.config.arch(self.config.king), rng).layer_shapes();
        let mut next: Vec<Member> = ranked[..ELITE].to_vec();
        let child = |this: &mut Self, weights: Vec<f32>, king: f32| Member {
            id: this.fresh_id(),
            weights,
            sigma: Vec::new(),
            king,
        };
        for (a, b) in [(0, 1), (1, 2)] {
            let (x, y) = crossover(&ranked[a].weights, &ranked[b].weights, &layers, rng);
            let king = ranked[a].king;
            for w in [
                x,
                y,
                mutate(&ranked[a].weights, rng),
                mutate(&ranked[b].weights, rng),
            ] {
                next.push(child(self, w, king));
            }
        }
        for m in &ranked[3..ELITE] {
            let w = mutate(&m.weights, rng);
            next.push(child(self, w, m.king));
        }
        next
    }

    /// A new champion plays the previous five; returns the mean of its mean scores.
    fn track_champion(&mut self, champion: &Member) -> Option<f64> {
        if self.champions.last().is_some_and(|c| c.id == champion.id) {
            return None;
        }
        let me = champion.player(&self.config);
        let scores: Vec<f64> = self
            .champions
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let seed = seed_for(self.config.seed, Purpose::Member(i as u64), self.generation);
                let arena = self.config.arena();
                let games = self.config.champion_games;
                fitness::head_to_head(&me, &c.player(&self.config), games, arena, seed)
            })
            .collect();
        // A champion is kept to be played, never bred: its mutation steps are not needed.
        self.champions.push(Member {
            sigma: Vec::new(),
            ..champion.clone()
        });
        if self.champions.len() > CHAMPIONS {
            self.champions.remove(0);
        }
        (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
    }

    /// The latest champion's network (the best of the last generation played).
    pub fn champion_net(&self) -> Option<ValueNet> {
        self.champions
            .last()
            .map(|c| ValueNet::from_weights(self.config.arch(c.king), &c.weights))
    }

    pub fn save(&self, path: &std::path::Path) -> Result<(), TrainError> {
        let header = GaState {
            config: self.config.clone(),
            generation: self.generation,
            next_id: self.next_id,
            members: self.members.iter().map(|m| (m.id, m.king)).collect(),
            champions: self.champions.iter().map(|m| (m.id, m.king)).collect(),
        };
        let data = |v: &Vec<f32>| TensorData {
            shape: vec![v.len()],
            data: v.clone(),
        };
        let params = (self.members.iter().map(|m| data(&m.weights)))
            .chain(self.members.iter().map(|m| data(&m.sigma)))
            .chain(self.champions.iter().map(|m| data(&m.weights)))
            .collect();
        let ckpt = Checkpoint {
            arch: header,
            params,
            buffers: Vec::new(),
            optimizer: None,
        };
        Ok(ckpt.save(path)?)
    }

    pub fn load(path: &std::path::Path) -> Result<Population, TrainError> {
        let ckpt = Checkpoint::<GaState>::load(path)?;
        let h = ckpt.arch;
        h.config.validate()?;
        let n =
            ValueNet::new(h.config.arch(h.config.king), &mut StdRng::seed_from_u64(0)).num_params();
        let (members, champions) = (h.members.len(), h.champions.len());
        let ok = ckpt.params.len() == 2 * members + champions
            && ckpt.params.iter().enumerate().all(|(i, t)| {
                let sigma = (members..2 * members).contains(&i);
                let want = if sigma && h.config.scheme == Scheme::Durham {
                    0
                } else {
                    n
                };
                t.data.len() == want
            });
        if !ok {
            return Err(TrainError::Config(format!(
                "{}: the saved weights do not fit the saved configuration",
                path.display()
            )));
        }
        let mut data: Vec<Vec<f32>> = ckpt.params.into_iter().map(|t| t.data).collect();
        let champion_weights = data.split_off(2 * members);
        let sigmas = data.split_off(members);
        let member = |&(id, king): &(u64, f32), weights, sigma| Member {
            id,
            weights,
            sigma,
            king,
        };
        Ok(Population {
            members: (h.members.iter().zip(data).zip(sigmas))
                .map(|((m, w), s)| member(m, w, s))
                .collect(),
            champions: (h.champions.iter().zip(champion_weights))
                .map(|(m, w)| member(m, w, Vec::new()))
                .collect(),
            config: h.config,
            generation: h.generation,
            next_id: h.next_id,
        })
    }
}

impl PopulationTrainer for Population {
    const NAME: &'static str = "ga";
    const STEP: &'static str = "generation";
    type Report = GenerationReport;

    fn steps(&self) -> u64 {
        self.generation
    }

    fn step(&mut self) -> GenerationReport {
        Population::step(self)
    }

    fn best_net(&self) -> Option<ValueNet> {
        self.champion_net()
    }

    fn summary(report: &GenerationReport) -> String {
        format!(
            "best {:+.0} mean {:+.1}",
            report.best_fitness, report.mean_fitness
        )
    }

    fn save(&self, path: &Path) -> Result<(), TrainError> {
        Population::save(self, path)
    }

    fn load(path: &Path) -> Result<Population, TrainError> {
        Population::load(path)
    }
}

/// Runs generations until `generations` have been played (counting a resumed run's).
pub fn train_ga(config: GaConfig, generations: u64, opts: &RunOptions) -> Result<(), TrainError> {
    population::run(|| Population::new(config), generations, opts)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2-3-1 network: 6 + 3 first-layer weights and biases, then 3 + 1.
    const TINY: [(usize, usize); 2] = [(3, 2), (1, 3)];

    #[test]
    fn crossover_swaps_one_hidden_unit() {
        assert_eq!(hidden_unit(&TINY, 1), vec![2, 3, 7]);
        let a: Vec<f32> = (0..13).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..13).map(|i| -(i as f32) - 100.0).collect();
        let (x, y) = crossover(&a, &b, &TINY, &mut StdRng::seed_from_u64(3));
        let swapped: Vec<usize> = (0..13).filter(|&i| x[i] != a[i]).collect();
        assert_eq!(
            swapped.len(),
            3,
            "two incoming weights and a bias: {swapped:?}"
        );
        assert!((0..3).any(|u| hidden_unit(&TINY, u) == swapped));
        for i in 0..13 {
            let moved = swapped.contains(&i);
            assert_eq!(x[i], if moved { b[i] } else { a[i] });
            assert_eq!(y[i], if moved { a[i] } else { b[i] });
        }
    }

    #[test]
    fn mutation_moves_every_weight_within_its_step() {
        let w = vec![0.5f32; 13];
        let m = mutate(&w, &mut StdRng::seed_from_u64(1));
        // K = 13: step 1 / sqrt(2 sqrt(13)) = 0.3724.
        let step = 1.0 / (2.0 * 13f32.sqrt()).sqrt();
        assert!((step - 0.3724).abs() < 1e-4);
        assert!(
            m.iter().all(|x| (x - 0.5).abs() <= step && *x != 0.5),
            "{m:?}"
        );
    }
}
