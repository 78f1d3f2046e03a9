//! The learned agents `td`, `ga` and `pso` (Othello: `td`): a value network from a
//! checkpoint, read at the leaves of the alpha-beta search (1 ply by default).

use super::alphabeta::{AlphaBeta, AlphaBetaConfig, SearchGame, StaticEval};
use super::kinds::{self, AgentKind};
use super::{Agent, AgentError, Analysis, Decision, Limits, Listener};
use crate::errors::Context;
use crate::games::Game;
use crate::net::ValueModel;
use crate::net::value_net::{Learner, ValueNet};
use std::path::Path;

/// Network values (-1..1) in the search's hundredths of a man: 1.0 scores as 10 000, fine
/// enough that distinct values rarely tie, far below a win.
const SCALE: f32 = 10_000.0;

/// A search score back in network units, clamped to the network's range (a win is 1).
pub fn score_to_value(score: i32) -> f32 {
    (score as f32 / SCALE).clamp(-1.0, 1.0)
}

/// A value network as the search's leaf evaluation.
pub struct ValueNetEval<N> {
    pub net: N,
}

impl<G: SearchGame, N: ValueModel<Input = G::Position> + Send> StaticEval<G> for ValueNetEval<N> {
    const BATCHED: bool = true;

    fn evaluate(&mut self, pos: &G::Position) -> i32 {
        (self.net.values(std::slice::from_ref(pos))[0] * SCALE).round() as i32
    }

    fn evaluate_many(&mut self, positions: &[G::Position], out: &mut Vec<i32>) {
        out.clear();
        out.extend(
            self.net
                .values(positions)
                .into_iter()
                .map(|v| (v * SCALE).round() as i32),
        );
    }
}

pub struct NetAgent<G: SearchGame, N: ValueModel<Input = G::Position> + Send> {
    name: String,
    search: AlphaBeta<G, ValueNetEval<N>>,
}

/// The agent's search: `depth` plies (and checkers' capture extension) with `net` at the
/// leaves.
pub fn net_search<G: SearchGame, N: ValueModel<Input = G::Position> + Send>(
    net: N,
    depth: u32,
    seed: u64,
) -> AlphaBeta<G, ValueNetEval<N>> {
    let config = AlphaBetaConfig {
        limits: Limits {
            depth: Some(depth),
            ..Limits::default()
        },
        // A shallow search fills little of a table; a small one is quick to clear per game.
        hash_mb: 1,
        contempt: 0.0,
    };
    // A fixed 1 MiB table: failing to get it is running out of memory, not a bad setting.
    AlphaBeta::new(config, seed, ValueNetEval { net }).expect("a 1 MiB table")
}

impl<G: SearchGame, N: ValueModel<Input = G::Position> + Send> NetAgent<G, N> {
    /// Searches `depth` plies with `net` at the leaves; `name` is the spec that rebuilds it.
    pub fn new(net: N, depth: u32, seed: u64, name: String) -> Self {
        NetAgent {
            name,
            search: net_search(net, depth, seed),
        }
    }

    /// The agent of spec `kind:model=PATH,depth=N`, with the network `load` reads from the
    /// checkpoint (or the reason it cannot).
    pub fn load<E: std::fmt::Display>(
        kind: &'static AgentKind,
        model: Option<&str>,
        depth: u32,
        seed: u64,
        load: impl FnOnce(&Path) -> Result<N, E>,
    ) -> Result<Self, AgentError> {
        let name = kind.kind;
        let model = model.ok_or_else(|| {
            AgentError::Invalid(format!(
                "agent {name} needs model=PATH, a checkpoint written by train-{name}"
            ))
        })?;
        let depth = kinds::learned::DEPTH.check(kind, depth)?;
        let net = load(Path::new(model))
            .map_err(|e| AgentError::Invalid(format!("{name} agent: {e}")))?;
        let name = kind.name(&[
            kinds::learned::MODEL.with(Some(model.to_string())),
            kinds::learned::DEPTH.with(Some(depth)),
        ]);
        Ok(NetAgent::new(net, depth, seed, name))
    }
}

/// Checkers' learned network at `path`, which must be a `kind` network.
pub fn load_checkers_net(kind: Learner, path: &Path) -> Result<ValueNet, AgentError> {
    // The checkpoint's errors name the file already.
    let key = kinds::learned::MODEL.key();
    let net = ValueNet::load(path).context(|| key.into())?;
    if net.arch().learner != kind {
        return Err(AgentError::Invalid(format!(
            "model={}: the checkpoint holds a {}, not a {} network",
            path.display(),
            net.arch(),
            kind.kind()
        )));
    }
    Ok(net)
}

impl<G: SearchGame, N: ValueModel<Input = G::Position> + Send> Agent<G> for NetAgent<G, N> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select_reporting(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        listener: Option<Listener<'_, G>>,
    ) -> Decision<G> {
        self.search.decide(game, limits, listener)
    }

    fn analyse(&mut self, game: &Game<G>, limits: &Limits) -> Option<Analysis<G>> {
        Some(self.search.analyse_all(game, limits))
    }

    fn new_game(&mut self) {
        self.search.reset();
    }
}
