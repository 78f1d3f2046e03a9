//! The learned agents `td`, `ga` and `pso`: a value network from a checkpoint, read at the
//! leaves of the alpha-beta search (1 ply by default).

use super::alphabeta::{AlphaBeta, AlphaBetaConfig, Evaluator};
use super::settings;
use super::spec::setting_error;
use super::{Agent, AgentError, Analysis, Decision, Limits};
use crate::games::Checkers;
use crate::games::checkers::{Game, Position};
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
pub struct NetEval {
    pub net: ValueNet,
}

impl Evaluator<Checkers> for NetEval {
    const BATCHED: bool = true;

    fn evaluate(&mut self, pos: &Position) -> i32 {
        (self.net.values(std::slice::from_ref(pos))[0] * SCALE).round() as i32
    }

    fn evaluate_many(&mut self, positions: &[Position], out: &mut Vec<i32>) {
        out.clear();
        out.extend(
            self.net
                .values(positions)
                .into_iter()
                .map(|v| (v * SCALE).round() as i32),
        );
    }
}

pub struct NetAgent {
    name: String,
    search: AlphaBeta<Checkers, NetEval>,
}

/// The agent's search: `depth` plies (and the capture extension) with `net` at the leaves.
pub fn net_search(net: ValueNet, depth: u32, seed: u64) -> AlphaBeta<Checkers, NetEval> {
    let config = AlphaBetaConfig {
        limits: Limits {
            depth: Some(depth),
            ..Limits::default()
        },
        // A shallow search fills little of a table; a small one is quick to clear per game.
        hash_mb: 1,
    };
    // A fixed 1 MiB table: failing to get it is running out of memory, not a bad setting.
    AlphaBeta::new(config, seed, NetEval { net }).expect("a 1 MiB table")
}

impl NetAgent {
    /// Searches `depth` plies with `net` at the leaves; `name` is the spec that rebuilds it.
    pub fn new(net: ValueNet, depth: u32, seed: u64, name: String) -> NetAgent {
        NetAgent {
            name,
            search: net_search(net, depth, seed),
        }
    }

    /// The agent of spec `kind:model=PATH,depth=N`: the checkpoint must hold a `kind` network.
    pub fn load(
        kind: Learner,
        model: Option<&str>,
        depth: Option<u32>,
        seed: u64,
    ) -> Result<NetAgent, AgentError> {
        let k = kind.kind();
        let model = model.ok_or_else(|| {
            AgentError(format!(
                "agent {k} needs model=PATH, a checkpoint written by train-{k}"
            ))
        })?;
        let depth = settings::DEPTH
            .check(depth.unwrap_or(1))
            .map_err(|e| setting_error(k, "depth", e))?;
        let net =
            ValueNet::load(Path::new(model)).map_err(|e| AgentError(format!("{k} agent: {e}")))?;
        if net.arch().learner != kind {
            return Err(AgentError(format!(
                "{k} model={model}: the checkpoint holds a {}, not a {k} network",
                net.arch()
            )));
        }
        let name = format!("{k}:model={model},depth={depth}");
        Ok(NetAgent::new(net, depth, seed, name))
    }

    pub fn net_mut(&mut self) -> &mut ValueNet {
        &mut self.search.evaluator_mut().net
    }
}

impl Agent for NetAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, game: &Game, limits: &Limits) -> Decision {
        self.search.decide(game, limits)
    }

    fn analyse(&mut self, game: &Game, limits: &Limits) -> Option<Analysis> {
        Some(self.search.analyse_all(game, limits))
    }

    fn new_game(&mut self) {
        self.search.reset();
    }
}
