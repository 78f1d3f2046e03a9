//! Particle swarm optimisation of a checkers network, after the study of PSO-trained
//! checkers players: a particle is a 32-10-1 network's weight vector; each iteration every
//! particle's current weights and its personal best play games against random members of that
//! pool (+1 win, -2 loss, 0 draw), which makes the two comparable, and then
//! v = chi (w v + c1 r1 (pbest - x) + c2 r2 (nbest - x)), clamped to +-vmax, x = x + v.

use super::errors::TrainError;
use super::fitness::{self, Arena, Pairing, Player, Points};
use super::population::{self, PopulationTrainer};
use super::run_dir::RunOptions;
use super::strength::{Strength, learner_spec, strength};
use crate::agents::AgentSpec;
use crate::arena::OpeningSet;
use crate::games::Checkers;
use crate::net::value_net::{Features, HiddenActivation, Learner, ValueArch, ValueNet};
use crate::nn::{Checkpoint, Module, TensorData};
use crate::seeds::{Purpose, seed_for};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

crate::names::named_enum! {
    /// The neighbourhood whose best pulls each particle.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Topology {
        /// Every particle follows the swarm's best.
        Gbest = "gbest",
        /// lbest: a particle and its two ring neighbours.
        Ring = "ring",
        /// A wrapped grid: a particle and its four neighbours.
        VonNeumann = "von-neumann",
    }
}

crate::keys::settings! {
    /// A PSO run's settings (saved in its run state).
    #[derive(Clone, Debug, PartialEq)]
    pub struct PsoConfig {
        /// Particles in the swarm (one network each).
        particles: usize = 40,
        /// Hidden units of the 32-H-1 network.
        hidden: usize = 10,
        /// Games each particle (and each personal best) plays per iteration.
        games: usize = 15,
        /// Alpha-beta depth (1: the study's 1-ply lookahead).
        depth: u32 = 1,
        /// A game reaching this many plies is a draw.
        max_plies: usize = 100,
        /// Largest velocity component (each weight moves at most this far per iteration).
        vmax: f32 = 0.15,
        /// Cognitive coefficient: the pull towards a particle's personal best.
        c1: f32 = 1.0,
        /// Social coefficient: the pull towards the neighbourhood's best.
        c2: f32 = 1.0,
        /// Inertia weight w on the previous velocity.
        inertia: f32 = 1.0,
        /// Clerc's constriction factor (needs c1 + c2 > 4).
        constriction: bool = false,
        /// Neighbourhood whose best pulls each particle.
        topology: Topology = Topology::Gbest,
        /// The king's input value.
        (no_flag) king: f32 = 1.5,
        /// Start games from random three-move ballots instead of the start position.
        ballots: bool = false,
        /// Seed of every random choice of the run.
        seed: u64 = 0,
    }
}

/// The constants of one velocity update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    pub inertia: f32,
    pub c1: f32,
    pub c2: f32,
    pub chi: f32,
    pub vmax: f32,
}

impl PsoConfig {
    /// Why these settings cannot run, if they cannot.
    pub fn validate(&self) -> Result<(), TrainError> {
        let bad = |m: &str| Err(TrainError::Config(format!("train-pso: {m}")));
        if self.particles < 2 || self.games == 0 || self.hidden == 0 || self.max_plies == 0 {
            return bad("expected --particles >= 2 and --games, --hidden, --max-plies >= 1");
        }
        if !(1..=64).contains(&self.depth) {
            return bad("expected --depth 1-64");
        }
        if !(self.vmax > 0.0 && self.c1 >= 0.0 && self.c2 >= 0.0 && self.inertia >= 0.0) {
            return bad("expected --vmax > 0 and non-negative --c1, --c2, --inertia");
        }
        if self.constriction && self.c1 + self.c2 <= 4.0 {
            return bad("--constriction needs c1 + c2 > 4 (e.g. --c1 2.05 --c2 2.05)");
        }
        if !(self.king > 0.0 && self.king <= 10.0) {
            return bad("expected --king in (0, 10]");
        }
        Ok(())
    }

    pub fn arch(&self) -> ValueArch {
        ValueArch {
            learner: Learner::Pso,
            features: Features::Squares,
            hidden: vec![self.hidden],
            activation: HiddenActivation::Sigmoid,
            king: self.king,
        }
    }

    pub fn motion(&self) -> Motion {
        let phi = self.c1 + self.c2;
        let chi = if self.constriction {
            2.0 / (2.0 - phi - (phi * phi - 4.0 * phi).sqrt()).abs()
        } else {
            1.0
        };
        Motion {
            inertia: self.inertia,
            c1: self.c1,
            c2: self.c2,
            chi,
            vmax: self.vmax,
        }
    }
}

/// One velocity update with the given uniform draws r1, r2 (one per dimension).
pub fn update_velocity(
    v: &mut [f32],
    x: &[f32],
    pbest: &[f32],
    nbest: &[f32],
    r: (&[f32], &[f32]),
    m: Motion,
) {
    for i in 0..v.len() {
        let pull = m.c1 * r.0[i] * (pbest[i] - x[i]) + m.c2 * r.1[i] * (nbest[i] - x[i]);
        v[i] = (m.chi * (m.inertia * v[i] + pull)).clamp(-m.vmax, m.vmax);
    }
}

/// The particles whose personal bests particle `i` looks at (itself included).
pub fn neighbours(topology: Topology, n: usize, i: usize) -> Vec<usize> {
    match topology {
        Topology::Gbest => (0..n).collect(),
        Topology::Ring => vec![(i + n - 1) % n, i, (i + 1) % n],
        Topology::VonNeumann => {
            // The most nearly square grid of n cells.
            let rows = (1..=n)
                .filter(|r| n.is_multiple_of(*r) && r * r <= n)
                .max()
                .unwrap_or(1);
            let cols = n / rows;
            let (r, c) = (i / cols, i % cols);
            let at = |r: usize, c: usize| r * cols + c;
            vec![
                i,
                at((r + rows - 1) % rows, c),
                at((r + 1) % rows, c),
                at(r, (c + cols - 1) % cols),
                at(r, (c + 1) % cols),
            ]
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Particle {
    pub x: Vec<f32>,
    pub v: Vec<f32>,
    pub pbest: Vec<f32>,
}

/// The swarm: everything `state.ckpt` restores.
#[derive(Clone, Debug)]
pub struct Swarm {
    pub config: PsoConfig,
    pub iteration: u64,
    pub particles: Vec<Particle>,
    /// The best personal best of the last iteration.
    pub best: Option<Vec<f32>>,
}

/// The header of `state.ckpt`; each particle's x, v and pbest follow as parameters, then the
/// swarm's best.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PsoState {
    pub config: PsoConfig,
    pub iteration: u64,
}

impl crate::nn::CheckpointKind for PsoState {
    const KIND: &'static str = "a train-pso run state";
}

impl std::fmt::Display for PsoState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pso swarm after {} iterations", self.iteration)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct IterationReport {
    pub iteration: u64,
    pub best_fitness: f64,
    pub mean_fitness: f64,
    pub pbest_updates: usize,
    pub mean_speed: f64,
    pub games: usize,
    pub seconds: f64,
}

impl Swarm {
    pub fn new(config: PsoConfig) -> Result<Swarm, TrainError> {
        config.validate()?;
        let mut rng = StdRng::seed_from_u64(seed_for(config.seed, Purpose::Init, 0));
        let n = ValueNet::new(config.arch(), &mut rng).num_params();
        let particles = (0..config.particles)
            .map(|_| {
                let x: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..=1.0)).collect();
                Particle {
                    pbest: x.clone(),
                    v: vec![0.0; n],
                    x,
                }
            })
            .collect();
        Ok(Swarm {
            config,
            iteration: 0,
            particles,
            best: None,
        })
    }

    /// One iteration: the pool plays, personal bests are updated, particles move.
    pub fn step(&mut self) -> IterationReport {
        let t0 = Instant::now();
        let config = self.config.clone();
        let n = self.particles.len();
        let mut rng =
            StdRng::seed_from_u64(seed_for(config.seed, Purpose::Variation, self.iteration));
        let arch = config.arch();
        // Pool: current positions 0..n, personal bests n..2n.
        let players: Vec<Player> = (self.particles.iter().map(|p| &p.x))
            .chain(self.particles.iter().map(|p| &p.pbest))
            .map(|w| Player {
                arch: arch.clone(),
                weights: w.clone(),
            })
            .collect();
        let pool = players.len();
        let pairings: Vec<Pairing> = (0..pool)
            .flat_map(|i| (0..config.games).map(move |g| (i, g)))
            .map(|(i, g)| {
                let j = (i + rng.random_range(1..pool)) % pool;
                if g % 2 == 0 {
                    Pairing { black: i, white: j }
                } else {
                    Pairing { black: j, white: i }
                }
            })
            .collect();
        let arena = Arena {
            depth: config.depth,
            max_plies: config.max_plies,
            openings: if config.ballots {
                OpeningSet::Standard
            } else {
                OpeningSet::None
            },
        };
        let points = Points {
            win: 1.0,
            draw: 0.0,
            loss: -2.0,
        };
        let seed = seed_for(config.seed, Purpose::Games, self.iteration);
        let winners = fitness::play(&players, &pairings, arena, seed);
        let fitness = fitness::scores(pool, &pairings, &winners, points);
        // Each particle's personal best and its fitness in this iteration.
        let mut pfit = vec![0.0; n];
        let mut updates = 0;
        for (i, p) in self.particles.iter_mut().enumerate() {
            pfit[i] = fitness[n + i];
            if fitness[i] > fitness[n + i] {
                p.pbest = p.x.clone();
                pfit[i] = fitness[i];
                updates += 1;
            }
        }
        let argmax = |set: &[usize]| {
            set.iter()
                .copied()
                .max_by(|&a, &b| pfit[a].total_cmp(&pfit[b]).then(b.cmp(&a)))
                .expect("a neighbourhood is not empty")
        };
        let best = argmax(&(0..n).collect::<Vec<_>>());
        self.best = Some(self.particles[best].pbest.clone());
        let nbest: Vec<Vec<f32>> = (0..n)
            .map(|i| {
                self.particles[argmax(&neighbours(config.topology, n, i))]
                    .pbest
                    .clone()
            })
            .collect();
        let motion = config.motion();
        let mut speed = 0.0;
        for (p, nb) in self.particles.iter_mut().zip(&nbest) {
            let dims = p.x.len();
            let r1: Vec<f32> = (0..dims).map(|_| rng.random()).collect();
            let r2: Vec<f32> = (0..dims).map(|_| rng.random()).collect();
            update_velocity(&mut p.v, &p.x, &p.pbest, nb, (&r1, &r2), motion);
            for (x, v) in p.x.iter_mut().zip(&p.v) {
                *x += v;
            }
            speed += p.v.iter().map(|v| (v * v) as f64).sum::<f64>().sqrt();
        }
        self.iteration += 1;
        IterationReport {
            iteration: self.iteration,
            best_fitness: pfit[best],
            mean_fitness: fitness[..n].iter().sum::<f64>() / n as f64,
            pbest_updates: updates,
            mean_speed: speed / n as f64,
            games: pairings.len(),
            seconds: t0.elapsed().as_secs_f64(),
        }
    }

    pub fn best_net(&self) -> Option<ValueNet> {
        self.best
            .as_ref()
            .map(|w| ValueNet::from_weights(self.config.arch(), w))
    }

    pub fn save(&self, path: &std::path::Path) -> Result<(), TrainError> {
        let data = |v: &Vec<f32>| TensorData {
            shape: vec![v.len()],
            data: v.clone(),
        };
        let params = self
            .particles
            .iter()
            .flat_map(|p| [data(&p.x), data(&p.v), data(&p.pbest)])
            .chain(self.best.iter().map(data))
            .collect();
        let ckpt = Checkpoint {
            arch: PsoState {
                config: self.config.clone(),
                iteration: self.iteration,
            },
            params,
            buffers: Vec::new(),
            optimizer: None,
        };
        Ok(ckpt.save(path)?)
    }

    pub fn load(path: &std::path::Path) -> Result<Swarm, TrainError> {
        let ckpt = Checkpoint::<PsoState>::load(path)?;
        let config = ckpt.arch.config;
        config.validate()?;
        let dims = ValueNet::new(config.arch(), &mut StdRng::seed_from_u64(0)).num_params();
        let count = ckpt.params.len();
        if !(count == 3 * config.particles || count == 3 * config.particles + 1)
            || ckpt.params.iter().any(|t| t.data.len() != dims)
        {
            return Err(TrainError::Config(format!(
                "{}: the saved swarm does not fit its configuration",
                path.display()
            )));
        }
        let mut p = ckpt.params.into_iter().map(|t| t.data);
        let particles = (0..config.particles)
            .map(|_| Particle {
                x: p.next().expect("counted"),
                v: p.next().expect("counted"),
                pbest: p.next().expect("counted"),
            })
            .collect();
        Ok(Swarm {
            config,
            iteration: ckpt.arch.iteration,
            particles,
            best: p.next(),
        })
    }
}

impl PopulationTrainer for Swarm {
    const NAME: &'static str = "pso";
    const STEP: &'static str = "iteration";
    type Report = IterationReport;

    fn steps(&self) -> u64 {
        self.iteration
    }

    fn step(&mut self) -> IterationReport {
        Swarm::step(self)
    }

    fn best_net(&self) -> Option<ValueNet> {
        Swarm::best_net(self)
    }

    fn summary(report: &IterationReport) -> String {
        format!("best {:+.0}", report.best_fitness)
    }

    fn save(&self, path: &Path) -> Result<(), TrainError> {
        Swarm::save(self, path)
    }

    fn load(path: &Path) -> Result<Swarm, TrainError> {
        Swarm::load(path)
    }
}

/// Runs iterations until `iterations` have been done, then the study's evaluation: the best
/// network against random, `eval_games` games with each colour (0 skips it).
pub fn train_pso(
    config: PsoConfig,
    iterations: u64,
    eval_games: usize,
    opts: &RunOptions,
) -> Result<Option<Strength>, TrainError> {
    let (mut dir, swarm) = population::run(|| Swarm::new(config), iterations, opts)?;
    if eval_games == 0 || swarm.best.is_none() {
        return Ok(None);
    }
    let spec = learner_spec("pso", &dir.best(), swarm.config.depth)?;
    let random: AgentSpec = "random".parse()?;
    let seed = seed_for(swarm.config.seed, Purpose::Evaluation, swarm.iteration);
    let result = strength::<Checkers>(&spec, &random, eval_games, OpeningSet::None, seed)?;
    // A finished run resumed to the same length evaluates again: its line replaces the last.
    let done = swarm.iteration;
    dir.keep_metrics(|r| {
        r.get("final_vs_random").is_none() || r["iteration"].as_u64() != Some(done)
    })?;
    dir.log(&serde_json::json!({
        "trainer": "pso",
        "iteration": swarm.iteration,
        "final_vs_random": result.record(),
    }))?;
    Ok(Some(result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn velocity_update_and_clamp() {
        let m = Motion {
            inertia: 0.5,
            c1: 1.0,
            c2: 1.0,
            chi: 1.0,
            vmax: 0.15,
        };
        let mut v = vec![0.1, -0.1, 0.0];
        let x = [0.0, 0.0, 1.0];
        let pbest = [0.1, 0.0, 0.0];
        let nbest = [0.0, -0.5, 1.0];
        update_velocity(
            &mut v,
            &x,
            &pbest,
            &nbest,
            (&[0.5, 0.5, 0.5], &[1.0, 1.0, 0.2]),
            m,
        );
        // 0.05 + 0.5*0.1 = 0.1; -0.05 + 1.0*(-0.5) = -0.55 -> -0.15; 0.5*(-1) = -0.5 -> -0.15.
        let want = [0.1, -0.15, -0.15];
        assert!(
            v.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6),
            "{v:?}"
        );
    }

    #[test]
    fn constriction_and_neighbourhoods() {
        let c = PsoConfig {
            c1: 2.05,
            c2: 2.05,
            constriction: true,
            ..PsoConfig::default()
        };
        // Clerc and Kennedy's value for phi = 4.1.
        assert!((c.motion().chi - 0.729_84).abs() < 1e-4);
        assert_eq!(neighbours(Topology::Ring, 40, 0), vec![39, 0, 1]);
        // 40 particles: a 5 x 8 grid; particle 0's neighbours wrap around.
        assert_eq!(
            neighbours(Topology::VonNeumann, 40, 0),
            vec![0, 32, 8, 7, 1]
        );
        assert_eq!(neighbours(Topology::Gbest, 4, 2), vec![0, 1, 2, 3]);
    }
}
