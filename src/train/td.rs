//! TD(lambda) after Tesauro, as in the Othello study that trained a value network against a
//! random player: V(s) is trained online at each of the learner's turns with eligibility
//! traces, e_t = gamma lambda e_(t-1) + grad V(s_t), w += alpha (gamma V(s_t+1) - V(s_t)) e_t,
//! and at the end w += alpha (z - V(s_T)) e_T against the result z (+1, 0, -1). V is the value
//! for the side to move, so the learner's successive turns form the chain; in self-play each
//! colour keeps its own chain over the shared weights.

use super::run::{RunDir, RunOptions, TrainError, derive_seed, learner_spec, progress, strength};
use super::value_net::{Activation, Features, Learner, ValueArch, ValueNet};
use crate::agents::{Agent, AgentSpec, Limits, random::RandomAgent};
use crate::arena::OpeningSet;
use crate::game::{Color, Game, Position, adjudicate, dedup_routes_of, legal_moves};
use crate::nn::Checkpoint;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
pub enum Opponent {
    /// The uniformly random agent (as in the study); the learner alternates colours.
    Random,
    /// The network against itself; both colours learn.
    SelfPlay,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TdConfig {
    pub alpha: f32,
    pub gamma: f32,
    pub lambda: f32,
    /// Chance of a random move instead of the greedy 1-ply choice.
    pub epsilon: f32,
    pub hidden: Vec<usize>,
    pub king: f32,
    pub opponent: Opponent,
    /// Training games reaching this many plies are adjudicated on material.
    pub max_plies: usize,
    /// Games between evaluations (and checkpoints).
    pub eval_every: u64,
    /// Evaluation games per colour against random and against alpha-beta depth 2.
    pub eval_games: usize,
    pub seed: u64,
}

impl Default for TdConfig {
    fn default() -> Self {
        TdConfig {
            alpha: 0.01,
            gamma: 0.9,
            lambda: 0.3,
            epsilon: 0.1,
            hidden: vec![40],
            king: 1.5,
            opponent: Opponent::Random,
            max_plies: 200,
            eval_every: 500,
            eval_games: 100,
            seed: 0,
        }
    }
}

impl TdConfig {
    pub fn arch(&self) -> ValueArch {
        ValueArch {
            learner: Learner::Td,
            features: Features::Squares,
            hidden: self.hidden.clone(),
            activation: Activation::Tanh,
            king: self.king,
        }
    }

    fn validate(&self) -> Result<(), TrainError> {
        let unit = |x: f32| (0.0..=1.0).contains(&x);
        if !(self.alpha > 0.0 && unit(self.gamma) && unit(self.lambda) && unit(self.epsilon)) {
            return Err(TrainError::Config(
                "td: expected alpha > 0 and gamma, lambda, epsilon in [0, 1]".into(),
            ));
        }
        if self.hidden.contains(&0) || self.eval_every == 0 || self.max_plies == 0 {
            return Err(TrainError::Config(
                "td: hidden widths, --eval-every and --max-plies must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// The step sizes of one update.
#[derive(Clone, Copy, Debug)]
pub struct TdParams {
    pub alpha: f32,
    pub gamma: f32,
    pub lambda: f32,
}

/// One colour's TD chain: its eligibility trace and the value of its previous turn.
#[derive(Clone, Debug, Default)]
pub struct TdChain {
    trace: Vec<f32>,
    last: Option<f32>,
}

impl TdChain {
    /// At one of the learner's turns, with V(s) and grad V(s) under the current weights:
    /// updates `w` against the previous turn's value, then folds the gradient into the trace.
    pub fn observe(&mut self, w: &mut [f32], value: f32, grad: &[f32], p: TdParams) {
        if let Some(prev) = self.last {
            self.update(w, p.gamma * value - prev, p.alpha);
        }
        self.trace.resize(grad.len(), 0.0);
        for (e, g) in self.trace.iter_mut().zip(grad) {
            *e = p.gamma * p.lambda * *e + g;
        }
        self.last = Some(value);
    }

    /// The game is over with result `z` for this colour: the last update, and a fresh chain.
    pub fn finish(&mut self, w: &mut [f32], z: f32, p: TdParams) {
        if let Some(prev) = self.last.take() {
            self.update(w, z - prev, p.alpha);
        }
        self.trace.clear();
    }

    fn update(&self, w: &mut [f32], delta: f32, alpha: f32) {
        for (wi, e) in w.iter_mut().zip(&self.trace) {
            *wi += alpha * delta * e;
        }
    }
}

/// The greedy 1-ply move: a move that wins at once, else the one whose position is worst for
/// the opponent by the network.
fn greedy(net: &ValueNet, pos: &Position) -> Position {
    let children: Vec<Position> = dedup_routes_of(legal_moves(pos))
        .iter()
        .map(|m| pos.apply(m))
        .collect();
    if let Some(win) = children.iter().find(|c| legal_moves(c).is_empty()) {
        return *win;
    }
    let values = net.values(&children);
    let best = (0..children.len())
        .min_by(|&a, &b| values[a].total_cmp(&values[b]))
        .expect("the game is not over");
    children[best]
}

/// Plays one training game, updating `net` online; returns the result for Black (+1, 0, -1).
pub fn train_game(net: &mut ValueNet, config: &TdConfig, learner: Color, seed: u64) -> f32 {
    let p = TdParams {
        alpha: config.alpha,
        gamma: config.gamma,
        lambda: config.lambda,
    };
    let learns = |c: Color| config.opponent == Opponent::SelfPlay || c == learner;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut random = RandomAgent::new(derive_seed(seed, 1, 0));
    let mut chains = [TdChain::default(), TdChain::default()];
    let mut w = net.weights();
    let mut game = Game::new();
    let outcome = loop {
        if let Some(o) = game.outcome() {
            break o;
        }
        if game.ply() >= config.max_plies {
            break adjudicate(game.position());
        }
        let mover = game.position().turn();
        if !learns(mover) {
            let mv = random.select(&game, &Limits::default()).mv;
            game.play(mv);
            continue;
        }
        let (value, grad) = net.value_and_grad(game.position());
        chains[mover.index()].observe(&mut w, value, &grad, p);
        net.set_weights(&w);
        let moves = dedup_routes_of(game.legal_moves());
        let mv = if rng.random::<f32>() < config.epsilon {
            moves[rng.random_range(0..moves.len())]
        } else {
            let target = greedy(net, game.position());
            *moves
                .iter()
                .find(|m| game.position().apply(m) == target)
                .expect("the greedy position follows a legal move")
        };
        game.play(mv);
    };
    let z_black = match outcome.winner() {
        Some(Color::Black) => 1.0,
        Some(Color::White) => -1.0,
        None => 0.0,
    };
    for c in [Color::Black, Color::White] {
        let z = if c == Color::Black { z_black } else { -z_black };
        chains[c.index()].finish(&mut w, z, p);
    }
    net.set_weights(&w);
    z_black
}

/// What `state.ckpt` records beside the weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TdState {
    pub config: TdConfig,
    pub games: u64,
    pub best_score: f64,
}

impl std::fmt::Display for TdState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "td training state after {} games", self.games)
    }
}

/// Trains until `total_games` games have been played (counting those of a resumed run).
pub fn train(config: TdConfig, total_games: u64, opts: &RunOptions) -> Result<(), TrainError> {
    let (mut net, mut state) = match &opts.resume {
        Some(path) => {
            let ckpt = Checkpoint::<TdState>::load(path)?;
            let arch = ckpt.arch.config.arch();
            let weights: Vec<f32> = ckpt.params.iter().flat_map(|t| t.data.clone()).collect();
            let net = ValueNet::new(arch, &mut StdRng::seed_from_u64(0));
            if weights.len() != net.weights().len() {
                return Err(TrainError::Config(format!(
                    "{}: {} weights where the network has {}",
                    path.display(),
                    weights.len(),
                    net.weights().len()
                )));
            }
            let mut net = net;
            net.set_weights(&weights);
            (net, ckpt.arch)
        }
        None => {
            config.validate()?;
            let net = ValueNet::new(
                config.arch(),
                &mut StdRng::seed_from_u64(derive_seed(config.seed, 0, 0)),
            );
            let state = TdState {
                config,
                games: 0,
                best_score: f64::NEG_INFINITY,
            };
            (net, state)
        }
    };
    let config = state.config.clone();
    let mut dir = RunDir::create(&opts.out)?;
    let latest = dir.dir.join("latest.ckpt");
    let bar = progress(total_games, state.games, "games");
    if !opts.progress {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_message("train-td");
    let (mut results, mut t0) = (0.0f64, Instant::now());
    let mut played = 0u64;
    while state.games < total_games {
        let g = state.games;
        let learner = if g % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let z_black = train_game(&mut net, &config, learner, derive_seed(config.seed, 1, g));
        results += if learner == Color::Black {
            z_black as f64
        } else {
            -z_black as f64
        };
        played += 1;
        state.games += 1;
        bar.inc(1);
        if state.games.is_multiple_of(config.eval_every) || state.games == total_games {
            net.save(&latest)?;
            let spec = learner_spec("td", &latest, 1)?;
            let seed = derive_seed(config.seed, 2, state.games);
            let random: AgentSpec = "random".parse()?;
            let ab2: AgentSpec = "alphabeta:depth=2".parse()?;
            let per = config.eval_games;
            let vs_random = strength(&spec, &random, per, OpeningSet::None, seed)?;
            let vs_ab2 = strength(&spec, &ab2, per, OpeningSet::Standard, seed)?;
            let score = vs_random.score() + vs_ab2.score();
            let improved = score > state.best_score;
            if improved {
                state.best_score = score;
                net.save(&dir.best())?;
            }
            Checkpoint::capture(state.clone(), &net, None).save(&dir.state())?;
            bar.set_message(format!(
                "train-td vs random {:.0}% vs ab2 {:.0}%",
                100.0 * vs_random.score(),
                100.0 * vs_ab2.score()
            ));
            dir.log(&serde_json::json!({
                "trainer": "td",
                "games": state.games,
                "train_mean_result": results / played.max(1) as f64,
                "games_per_s": played as f64 / t0.elapsed().as_secs_f64(),
                "vs_random": vs_random.record(),
                "vs_alphabeta2": vs_ab2.record(),
                "new_best": improved,
            }))?;
            (results, played, t0) = (0.0, 0, Instant::now());
        }
    }
    bar.finish();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TD step by hand: V = tanh(w . x) for a one-layer net; observe s0 then s1, finish.
    #[test]
    fn chain_updates_match_hand_computation() {
        let p = TdParams {
            alpha: 0.1,
            gamma: 0.9,
            lambda: 0.5,
        };
        let mut w = vec![0.2f32, -0.4];
        let mut chain = TdChain::default();
        // s0: V0 = 0.3, grad g0 = [1, 2] (values supplied as the network would).
        chain.observe(&mut w, 0.3, &[1.0, 2.0], p);
        assert_eq!(w, vec![0.2, -0.4], "no update before a second value");
        // s1: delta = 0.9 * 0.5 - 0.3 = 0.15; w += 0.1 * 0.15 * [1, 2] = [0.015, 0.03].
        chain.observe(&mut w, 0.5, &[-1.0, 0.5], p);
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(close(&w, &[0.215, -0.37]), "{w:?}");
        // trace = 0.45 * [1, 2] + [-1, 0.5] = [-0.55, 1.4]; final delta = -1 - 0.5 = -1.5;
        // w += 0.1 * -1.5 * [-0.55, 1.4] = [0.0825, -0.21].
        chain.finish(&mut w, -1.0, p);
        assert!(close(&w, &[0.2975, -0.58]), "{w:?}");
    }
}
