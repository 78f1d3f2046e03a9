//! TD(lambda) after Tesauro, as in the Othello study that trained a value network against a
//! random player: V(s) is trained online at each of the learner's turns with eligibility
//! traces, e_t = gamma lambda e_(t-1) + grad V(s_t), w += alpha (gamma V(s_t+1) - V(s_t)) e_t,
//! and at the end w += alpha (z - V(s_T)) e_T against the result z (+1, 0, -1). V is the value
//! for the side to move, so the learner's successive turns form the chain; in self-play each
//! colour keeps its own chain over the shared weights.
//!
//! The trainer is generic over the game ([`TdGame`]): checkers trains the plain MLP of
//! value_net.rs; Othello the reference's tower network or a plain one (othello_value.rs).
//!
//! By default this is TD-Leaf (Baxter, Tridgell and Weaver's KnightCap): the learner moves by
//! the `td` agent's own search (1 ply and the capture extension), and V(s_t) is the value of
//! that search's principal-variation leaf, for the learner, with its gradient taken there. So
//! the network is trained on the quiet positions the agent evaluates in play, most of them
//! with the opponent to move. Plain TD(lambda) (`Target::Root`) instead trains on the
//! positions at the learner's turns and moves by a 1-ply greedy over the raw children; its
//! score against random rises and collapses within a few thousand games.

use super::errors::TrainError;
use super::run_dir::RunOptions;
use super::run_dir::open_run;
use super::strength::{learner_spec, strength};
use crate::agents::alphabeta::{AlphaBeta, SearchGame};
use crate::agents::learned::{ValueNetEval, net_search, score_to_value};
use crate::agents::{Agent, AgentGame, AgentSpec, Limits, random::RandomAgent};
use crate::arena::OpeningSet;
use crate::arena::openings::ArenaGame;
use crate::games::{Checkers, Color, Game, GameName, Othello};
use crate::net::ValueModel;
use crate::net::othello_value::{OthelloValueArch, OthelloValueNet};
use crate::net::towers::TowerArch;
use crate::net::value_net::{Features, HiddenActivation, Learner, ValueArch, ValueNet};
use crate::nn::{Checkpoint, CheckpointError};
use crate::progress::progress;
use crate::seeds::{Purpose, derive_seed, seed_for};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::path::Path;
use std::time::Instant;

crate::names::named_enum! {
    /// Whom the TD learner plays.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Opponent {
        /// The uniformly random agent (as in the study); the learner alternates colours.
        Random = "random",
        /// The network against itself; both colours learn.
        SelfPlay = "self-play",
    }
}

crate::names::named_enum! {
    /// Which positions' values the TD chain trains, and how the learner picks its moves.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Target {
        /// TD-Leaf: the leaf of the agent's search, which also chooses the move.
        Leaf = "leaf",
        /// Plain TD(lambda): the position at the learner's turn; moves by a 1-ply greedy.
        Root = "root",
    }
}

crate::names::named_enum! {
    /// Which value network TD trains.
    pub enum NetKind {
        /// Fully connected tanh layers over the board's cells.
        Plain = "plain",
        /// Othello only: the reference's informed network of row/column, corner and diagonal
        /// convolution towers over the board's 8 symmetries.
        Towers = "towers",
    }
}

/// What TD needs of a game beyond its rules, search and agents: the value network it trains.
pub trait TdGame: AgentGame + ArenaGame + SearchGame {
    type Net: ValueModel<Input = Self::Position> + Clone + Send;
    /// What the run state records of the network beyond [`TdConfig`], to rebuild it on resume
    /// (checkers: nothing, its MLP follows from `hidden` and `king`).
    type NetChoice: Clone + Debug + PartialEq + Send + Serialize + DeserializeOwned;
    /// The run state's checkpoint kind.
    const STATE_KIND: &'static str;
    /// Hidden layer widths when none are given.
    const DEFAULT_HIDDEN: &'static [usize];

    /// The network of kind `kind` with these hidden widths, or why the game has none such.
    fn choose_net(kind: NetKind, hidden: &[usize]) -> Result<Self::NetChoice, TrainError>;

    fn new_net(config: &TdConfig, choice: &Self::NetChoice, rng: &mut StdRng) -> Self::Net;

    fn save_net(net: &Self::Net, path: &Path) -> Result<(), CheckpointError>;
}

impl TdGame for Checkers {
    type Net = ValueNet;
    type NetChoice = ();
    const STATE_KIND: &'static str = "a train-td run state";
    const DEFAULT_HIDDEN: &'static [usize] = &[40];

    fn choose_net(kind: NetKind, _: &[usize]) -> Result<(), TrainError> {
        match kind {
            NetKind::Plain => Ok(()),
            NetKind::Towers => Err(TrainError::Config(
                "--net towers is Othello's tower network; checkers trains the plain one".into(),
            )),
        }
    }

    fn new_net(config: &TdConfig, _: &(), rng: &mut StdRng) -> ValueNet {
        ValueNet::new(config.arch(), rng)
    }

    fn save_net(net: &ValueNet, path: &Path) -> Result<(), CheckpointError> {
        net.save(path)
    }
}

impl TdGame for Othello {
    type Net = OthelloValueNet;
    type NetChoice = OthelloValueArch;
    const STATE_KIND: &'static str = "an Othello train-td run state";
    /// The reference's head.
    const DEFAULT_HIDDEN: &'static [usize] = &[64, 32];

    fn choose_net(kind: NetKind, hidden: &[usize]) -> Result<OthelloValueArch, TrainError> {
        let hidden = hidden.to_vec();
        Ok(match kind {
            NetKind::Plain => OthelloValueArch::Plain { hidden },
            NetKind::Towers => OthelloValueArch::Towers(TowerArch {
                hidden,
                ..TowerArch::default()
            }),
        })
    }

    fn new_net(_: &TdConfig, arch: &OthelloValueArch, rng: &mut StdRng) -> OthelloValueNet {
        OthelloValueNet::new(arch.clone(), rng)
    }

    fn save_net(net: &OthelloValueNet, path: &Path) -> Result<(), CheckpointError> {
        net.save(path)
    }
}

/// The search depth of the learner in training and of the agent in the evaluations (the
/// `td` agent's default): TD-Leaf trains the leaves this search reaches.
const DEPTH: u32 = 1;

crate::keys::settings! {
    /// A TD run's settings (saved in its run state).
    #[derive(Clone, Debug, PartialEq)]
    pub struct TdConfig {
        /// leaf: TD-Leaf, moves by the agent's search and training its principal-variation
        /// leaf; root: plain TD(lambda) on the positions at the learner's turns, 1-ply greedy
        /// moves.
        target: Target = Target::Leaf,
        /// Learning rate of the TD update.
        alpha: f32 = 0.01,
        /// Discount per ply of the TD target.
        gamma: f32 = 0.9,
        /// Trace decay: 0 learns from the next position only, 1 from the game's result.
        lambda: f32 = 0.3,
        /// Chance of a random move during training.
        epsilon: f32 = 0.1,
        /// Hidden layer widths (the command line's own flag: the default depends on the game).
        (no_flag) hidden: Vec<usize> = Checkers::DEFAULT_HIDDEN.to_vec(),
        /// The king's input value.
        (no_flag) king: f32 = 1.5,
        /// Whom the learner plays while training.
        opponent: Opponent = Opponent::Random,
        /// Training games reaching this many plies are adjudicated (checkers: on material).
        max_plies: usize = 200,
        /// Evaluate (against random and alpha-beta depth 2) and checkpoint every N games.
        eval_every: u64 = 500,
        /// Evaluation games per colour against each opponent.
        eval_games: usize = 100,
        /// Seed of every random choice of the run.
        seed: u64 = 0,
    }
}

impl TdConfig {
    pub fn arch(&self) -> ValueArch {
        ValueArch {
            learner: Learner::Td,
            features: Features::Squares,
            hidden: self.hidden.clone(),
            activation: HiddenActivation::Tanh,
            king: self.king,
        }
    }

    /// Why these settings cannot run, if they cannot.
    pub fn validate(&self) -> Result<(), TrainError> {
        let unit = |x: f32| (0.0..=1.0).contains(&x);
        if !(self.alpha > 0.0 && unit(self.gamma) && unit(self.lambda) && unit(self.epsilon)) {
            return Err(TrainError::Config(
                "td: expected alpha > 0 and gamma, lambda, epsilon in [0, 1]".into(),
            ));
        }
        if self.hidden.contains(&0)
            || self.eval_every == 0
            || self.eval_games == 0
            || self.max_plies == 0
        {
            return Err(TrainError::Config(
                "td: hidden widths, --eval-every, --eval-games and --max-plies must be at least 1"
                    .into(),
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
fn greedy<G: TdGame>(net: &G::Net, pos: &G::Position) -> G::Move {
    let moves = G::distinct_moves(pos);
    let children: Vec<G::Position> = moves.iter().map(|m| G::apply_move(pos, m)).collect();
    let mover = G::side_to_move(pos);
    let wins =
        |c: &G::Position| G::outcome(&G::turn_start(c)).is_some_and(|o| o.winner() == Some(mover));
    if let Some(win) = children.iter().position(wins) {
        return moves[win];
    }
    let values = net.values(&children);
    let best = (0..children.len())
        .min_by(|&a, &b| values[a].total_cmp(&values[b]))
        .expect("the game is not over");
    moves[best]
}

/// TD-Leaf's value of the root for its side to move, with the gradient: the principal-variation
/// leaf's network value, negated when the opponent is to move there; a line ending in a win,
/// loss or draw gives its result, which no weight changes.
fn leaf_value<G: TdGame>(
    net: &G::Net,
    mover: Color,
    score: i32,
    leaf: Option<G::Position>,
) -> (f32, Vec<f32>) {
    match leaf {
        Some(leaf) => {
            let (value, mut grad) = net.value_and_grad(&leaf);
            if G::side_to_move(&leaf) == mover {
                (value, grad)
            } else {
                grad.iter_mut().for_each(|g| *g = -*g);
                (-value, grad)
            }
        }
        None => (score_to_value(score), vec![0.0; net.weights().len()]),
    }
}

/// Plays one training game, updating `net` online; returns the result for Black (+1, 0, -1).
pub fn train_game<G: TdGame>(
    net: &mut G::Net,
    config: &TdConfig,
    learner: Color,
    seed: u64,
) -> f32 {
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
    // TD-Leaf's search holds a copy of the network, kept at `w` like `net`.
    let mut search: Option<AlphaBeta<G, ValueNetEval<G::Net>>> = (config.target == Target::Leaf)
        .then(|| net_search(net.clone(), DEPTH, derive_seed(seed, 2, 0)));
    let mut game = Game::<G>::at_start();
    let outcome = loop {
        if let Some(o) = game.outcome() {
            break o;
        }
        if game.ply() >= config.max_plies {
            break G::adjudicate(game.position());
        }
        let mover = game.turn();
        if !learns(mover) {
            let mv = random.select(&game, &Limits::default()).mv;
            game.play(mv);
            continue;
        }
        let (searched, value, grad) = match &mut search {
            Some(search) => {
                let (mv, score, leaf) = search.decide_with_leaf(&game, &Limits::default());
                let (value, grad) = leaf_value::<G>(net, mover, score, leaf);
                (Some(mv), value, grad)
            }
            None => {
                let (value, grad) = net.value_and_grad(game.position());
                (None, value, grad)
            }
        };
        chains[mover.index()].observe(&mut w, value, &grad, p);
        net.set_weights(&w);
        if let Some(search) = &mut search {
            search.evaluator_mut().net.set_weights(&w);
        }
        let mv = if rng.random::<f32>() < config.epsilon {
            let moves = G::distinct_moves(game.position());
            moves[rng.random_range(0..moves.len())]
        } else if let Some(mv) = searched {
            mv
        } else {
            greedy::<G>(net, game.position())
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

/// What `state.ckpt` records beside the weights. The network's record comes last, so that a
/// checkers state (which records nothing there) reads as it did before Othello.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct TdState<G: TdGame> {
    pub config: TdConfig,
    pub games: u64,
    pub best_score: f64,
    pub net: G::NetChoice,
}

impl<G: TdGame> crate::nn::CheckpointKind for TdState<G> {
    const KIND: &'static str = G::STATE_KIND;
}

/// The game of the train-td run in `dir`, which its run state names (checkers unless it is
/// Othello's: any other kind of file is for the checkers load to report).
pub fn game_of_run(dir: &Path) -> GameName {
    match Checkpoint::<TdState<Checkers>>::load(&dir.join("state.ckpt")) {
        Err(e) => match e.into_cause() {
            CheckpointError::Kind { found, .. } if found == Othello::STATE_KIND => {
                GameName::Othello
            }
            _ => GameName::Checkers,
        },
        Ok(_) => GameName::Checkers,
    }
}

impl<G: TdGame> std::fmt::Display for TdState<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "td training state after {} games", self.games)
    }
}

/// Trains until `total_games` games have been played (counting those of a resumed run); a new
/// run trains the network `choice`.
pub fn train_td<G: TdGame>(
    config: TdConfig,
    choice: G::NetChoice,
    total_games: u64,
    opts: &RunOptions,
) -> Result<(), TrainError> {
    let new = || {
        config.validate()?;
        let net = G::new_net(
            &config,
            &choice,
            &mut StdRng::seed_from_u64(seed_for(config.seed, Purpose::Init, 0)),
        );
        let state = TdState::<G> {
            config,
            games: 0,
            best_score: f64::NEG_INFINITY,
            net: choice,
        };
        Ok((net, state))
    };
    let load = |path: &Path| {
        let ckpt = Checkpoint::<TdState<G>>::load(path)?;
        let weights: Vec<f32> = ckpt.params.iter().flat_map(|t| t.data.clone()).collect();
        let (config, choice) = (&ckpt.arch.config, &ckpt.arch.net);
        let mut net = G::new_net(config, choice, &mut StdRng::seed_from_u64(0));
        if weights.len() != net.weights().len() {
            return Err(TrainError::Config(format!(
                "{}: {} weights where the network has {}",
                path.display(),
                weights.len(),
                net.weights().len()
            )));
        }
        net.set_weights(&weights);
        Ok((net, ckpt.arch))
    };
    let (mut dir, (mut net, mut state)) =
        open_run(opts, "games", new, load, |(_, s): &(G::Net, TdState<G>)| {
            s.games
        })?;
    let config = state.config.clone();
    let latest = dir.dir.join("latest.ckpt");
    let bar = progress(total_games, state.games, "games", opts.progress);
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
        let z_black = train_game::<G>(
            &mut net,
            &config,
            learner,
            seed_for(config.seed, Purpose::Games, g),
        );
        results += if learner == Color::Black {
            z_black as f64
        } else {
            -z_black as f64
        };
        played += 1;
        state.games += 1;
        bar.inc(1);
        if state.games.is_multiple_of(config.eval_every) || state.games == total_games {
            G::save_net(&net, &latest)?;
            let spec = learner_spec("td", &latest, DEPTH)?;
            let seed = seed_for(config.seed, Purpose::Evaluation, state.games);
            let random: AgentSpec = "random".parse()?;
            let ab2: AgentSpec = "alphabeta:depth=2".parse()?;
            let per = config.eval_games;
            let vs_random = strength::<G>(&spec, &random, per, OpeningSet::None, seed)?;
            let vs_ab2 = strength::<G>(&spec, &ab2, per, OpeningSet::Standard, seed)?;
            let score = vs_random.score() + vs_ab2.score();
            let improved = score > state.best_score;
            if improved {
                state.best_score = score;
                G::save_net(&net, &dir.best())?;
            }
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
            // The checkpoint marks these games done, so it comes after their metrics line.
            Checkpoint::capture(state.clone(), &net, None).save(&dir.state())?;
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

    /// TD-Leaf's value is the agent's root score seen from the side to move, whichever side is
    /// to move at the leaf, and its gradient carries the same sign.
    #[test]
    fn leaf_value_is_the_root_score_for_the_mover() {
        let config = TdConfig {
            hidden: vec![6],
            ..TdConfig::default()
        };
        let net = ValueNet::new(config.arch(), &mut StdRng::seed_from_u64(5));
        let mut search = net_search::<Checkers, _>(net.clone(), DEPTH, 1);
        let mut random = RandomAgent::new(2);
        let mut game = Game::new();
        let mut parities = [0; 2];
        while game.outcome().is_none() && game.ply() < 300 {
            let mover = game.position().turn();
            let (_, score, leaf) = search.decide_with_leaf(&game, &Limits::default());
            let (value, grad) = leaf_value::<Checkers>(&net, mover, score, leaf);
            // The search scores a leaf as its value times 10 000, rounded.
            assert!(
                (value - score_to_value(score)).abs() <= 1e-4,
                "{value} vs {score}"
            );
            if let Some(leaf) = leaf {
                parities[(leaf.turn() == mover) as usize] += 1;
                // Along the gradient the value rises: the sign flip reached the gradient too.
                let step: Vec<f32> = net
                    .weights()
                    .iter()
                    .zip(&grad)
                    .map(|(w, g)| w + 1e-3 * g)
                    .collect();
                let nudged = leaf_value::<Checkers>(
                    &ValueNet::from_weights(config.arch(), &step),
                    mover,
                    score,
                    Some(leaf),
                )
                .0;
                assert!(nudged > value, "{nudged} <= {value}");
            }
            game.play(random.select(&game, &Limits::default()).mv);
        }
        assert!(
            parities.iter().all(|&n| n > 0),
            "leaves of both sides: {parities:?}"
        );
    }
}
