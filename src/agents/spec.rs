//! Agent specs: `kind[:key=value,...]`, e.g. `random`, `alphabeta:depth=6,king=1.5`.
//! One parser and one builder serve the command line, the engine protocol and tournaments.

use super::alphabeta::{AlphaBeta, AlphaBetaConfig};
use super::checkers_eval::{DEFAULT_KING, Material};
use super::learned::{NetAgent, load_checkers_net};
use super::othello_eval::OthelloEval;
use super::random::RandomAgent;
use super::search::{AzAgent, AzConfig, MctsAgent};
use super::settings::{self, Setting};
use super::{Agent, Limits};
use crate::games::{Checkers, Othello};
use crate::mcts::uct::DEFAULT_C;
use crate::mcts::{GumbelConfig, PuctConfig, SearchKind};
use crate::net::NetGame;
use crate::net::othello_value::OthelloValueNet;
use crate::net::value_net::Learner;
use std::fmt::Display;
use std::str::FromStr;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AgentError(pub String);

/// The agents every game has, each with a one-line description of its options.
pub const COMMON_KINDS: &[(&str, &str)] = &[
    ("random", "uniform over legal moves (no options)"),
    (
        "mcts",
        "UCT with random rollouts: searches=N (simulations per move, default 1000), c=F \
         (exploration constant, default 1.41)",
    ),
    (
        "az",
        "AlphaZero search with a trained network: model=PATH (checkers' default: the \
         built-in network, models/default.bin), \
         searches=N (simulations per move, default 200), time=MS (search for this long \
         instead), batch=N (leaves per network call, default 8), device=auto|cpu|gpu, \
         c_puct=F (PUCT's exploration constant, default 1.25), temperature=T (0: the most \
         visited move, default; 1: moves sampled by visits), search=puct|gumbel (default puct; Gumbel AlphaZero's with considered=M root \
         actions, default 16, c_visit=F, default 50, c_scale=F, default 1)",
    ),
];

/// Checkers' own agents.
const CHECKERS_KINDS: &[(&str, &str)] = &[
    (
        "alphabeta",
        "negamax alpha-beta on material: depth=N, time=MS, nodes=N (stops at the first \
         reached; depth 6 if none is given), king=W (king value in men, default 1.5), \
         hash=MB (transposition table, default 16)",
    ),
    ("td", LEARNED_OPTIONS),
    ("ga", LEARNED_OPTIONS),
    ("pso", LEARNED_OPTIONS),
];

const LEARNED_OPTIONS: &str = "a trained value network at the leaves of alpha-beta: \
     model=PATH (checkpoint from train-td / train-ga / train-pso), depth=N (default 1)";

/// A game agents can be built for from specs: the kinds it has beyond [`COMMON_KINDS`].
pub trait AgentGame: NetGame {
    /// Its own kinds, with their option descriptions.
    const OWN_KINDS: &'static [(&'static str, &'static str)];

    /// Builds an agent of one of [`Self::OWN_KINDS`] from its options.
    fn build_own(
        kind: &str,
        opts: &mut Options,
        seed: u64,
    ) -> Result<Box<dyn Agent<Self>>, AgentError>;

    /// Every kind: the common ones, then the game's own.
    fn kinds() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
        COMMON_KINDS.iter().chain(Self::OWN_KINDS)
    }
}

impl AgentGame for Checkers {
    const OWN_KINDS: &'static [(&'static str, &'static str)] = CHECKERS_KINDS;

    fn build_own(kind: &str, opts: &mut Options, seed: u64) -> Result<Box<dyn Agent>, AgentError> {
        Ok(match kind {
            "alphabeta" => {
                let defaults = AlphaBetaConfig::default();
                let limits = opts.limits(&defaults.limits)?;
                let king = opts.setting("king", &settings::KING)?;
                let material = Material::new(king.unwrap_or(DEFAULT_KING))?;
                let config = AlphaBetaConfig {
                    limits,
                    hash_mb: opts.hash(defaults.hash_mb)?,
                };
                Box::new(AlphaBeta::new(config, seed, material)?)
            }
            _ => {
                let learner = match kind {
                    "td" => Learner::Td,
                    "ga" => Learner::Ga,
                    _ => Learner::Pso,
                };
                let (model, depth) = opts.learned()?;
                Box::new(NetAgent::load(
                    kind,
                    model.as_deref(),
                    depth,
                    seed,
                    |path| load_checkers_net(learner, path),
                )?)
            }
        })
    }
}

/// Othello's own agents.
const OTHELLO_KINDS: &[(&str, &str)] = &[
    (
        "alphabeta",
        "negamax alpha-beta on mobility, corners, edge stability and late disc count: depth=N, \
         time=MS, nodes=N (stops at the first reached; depth 4 if none is given), hash=MB \
         (transposition table, default 16)",
    ),
    (
        "td",
        "a trained value network at the leaves of alpha-beta: model=PATH (checkpoint from \
         train-td --game othello), depth=N (default 1)",
    ),
];

/// Othello has more moves a ply than checkers (where captures are often forced), so the
/// default searches less deeply than checkers' 6 for a like cost: depth 4 takes a few
/// hundred nodes a move in the opening, checkers' 6 about a thousand.
const OTHELLO_DEFAULT_DEPTH: u32 = 4;

impl AgentGame for Othello {
    const OWN_KINDS: &'static [(&'static str, &'static str)] = OTHELLO_KINDS;

    fn build_own(
        kind: &str,
        opts: &mut Options,
        seed: u64,
    ) -> Result<Box<dyn Agent<Othello>>, AgentError> {
        if kind == "td" {
            let (model, depth) = opts.learned()?;
            return Ok(Box::new(NetAgent::load(
                kind,
                model.as_deref(),
                depth,
                seed,
                |path| OthelloValueNet::load(path).map_err(|e| e.to_string()),
            )?));
        }
        debug_assert_eq!(kind, "alphabeta");
        let default_limits = Limits {
            depth: Some(OTHELLO_DEFAULT_DEPTH),
            ..Limits::default()
        };
        let config = AlphaBetaConfig {
            limits: opts.limits(&default_limits)?,
            hash_mb: opts.hash(AlphaBetaConfig::default().hash_mb)?,
        };
        Ok(Box::new(AlphaBeta::new(config, seed, OthelloEval)?))
    }
}

/// A parsed agent spec: its kind and options in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentSpec {
    pub kind: String,
    pub options: Vec<(String, String)>,
}

impl AgentSpec {
    pub fn new(kind: &str) -> Self {
        AgentSpec {
            kind: kind.to_string(),
            options: Vec::new(),
        }
    }

    /// Sets an option, replacing an earlier value of the same key.
    pub fn set(&mut self, key: &str, value: &str) {
        let key = key.to_ascii_lowercase();
        match self.options.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value.to_string(),
            None => self.options.push((key, value.to_string())),
        }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Builds the agent for game `G`; `seed` drives any randomness it has (tie-breaks,
    /// sampling).
    pub fn build<G: AgentGame>(&self, seed: u64) -> Result<Box<dyn Agent<G>>, AgentError> {
        let mut opts = Options {
            spec: self,
            used: Vec::new(),
        };
        let agent: Box<dyn Agent<G>> = match self.kind.as_str() {
            "random" => Box::new(RandomAgent::new(seed)),
            "mcts" => Box::new(MctsAgent::<G>::new(
                opts.setting("searches", &settings::SEARCHES)?
                    .unwrap_or(1000),
                opts.setting("c", &settings::EXPLORATION)?
                    .unwrap_or(DEFAULT_C),
                seed,
            )?),
            "az" => Box::new(AzAgent::<G>::new(opts.az_config()?, seed)?),
            own if G::OWN_KINDS.iter().any(|k| k.0 == own) => G::build_own(own, &mut opts, seed)?,
            other => {
                let kinds: Vec<&str> = G::kinds().map(|k| k.0).collect();
                return Err(AgentError(format!(
                    "unknown agent {other:?} for {}: expected one of {}",
                    G::NAME.as_str(),
                    kinds.join(", ")
                )));
            }
        };
        opts.finish()?;
        Ok(agent)
    }
}

impl std::fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.kind)?;
        for (i, (k, v)) in self.options.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

impl FromStr for AgentSpec {
    type Err = AgentError;

    fn from_str(text: &str) -> Result<Self, AgentError> {
        let text = text.trim();
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        let kind = kind.trim().to_ascii_lowercase();
        if kind.is_empty() {
            return Err(AgentError(
                "empty agent spec: expected e.g. random or alphabeta:depth=6".into(),
            ));
        }
        let mut spec = AgentSpec::new(&kind);
        for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((k, v)) = item.split_once('=') else {
                return Err(AgentError(format!(
                    "agent option {item:?} must be key=value, e.g. depth=6"
                )));
            };
            spec.set(k.trim(), v.trim());
        }
        Ok(spec)
    }
}

/// Typed access to a spec's options that remembers which were read, so a misspelt option
/// is reported instead of silently ignored.
pub struct Options<'a> {
    spec: &'a AgentSpec,
    used: Vec<&'static str>,
}

impl Options<'_> {
    pub fn take<T: FromStr>(
        &mut self,
        key: &'static str,
        what: &str,
    ) -> Result<Option<T>, AgentError> {
        self.used.push(key);
        match self.spec.get(key) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| {
                AgentError(format!(
                    "{} option {key}={v:?}: expected {what}",
                    self.spec.kind
                ))
            }),
        }
    }

    /// A value of one of the [`settings`], with the message every route gives for it.
    pub fn setting<T: FromStr + Display>(
        &mut self,
        key: &'static str,
        setting: &Setting<T>,
    ) -> Result<Option<T>, AgentError> {
        self.used.push(key);
        self.spec
            .get(key)
            .map(|v| {
                setting
                    .parse(v)
                    .map_err(|e| setting_error(&self.spec.kind, key, e))
            })
            .transpose()
    }

    /// The search limits given as `depth`, `time` (ms) and `nodes`, else `defaults` (so
    /// a default depth applies only when no limit is given at all).
    pub fn limits(&mut self, defaults: &Limits) -> Result<Limits, AgentError> {
        let given = Limits {
            depth: self.setting("depth", &settings::DEPTH)?,
            movetime: self
                .setting("time", &settings::MOVETIME_MS)?
                .map(Duration::from_millis),
            nodes: self.setting("nodes", &settings::NODES)?,
            ..Limits::default()
        };
        Ok(given.or(defaults))
    }

    /// The `az` agent's options over its defaults.
    fn az_config(&mut self) -> Result<AzConfig, AgentError> {
        let d = AzConfig::default();
        let search: SearchKind = self.take("search", "puct or gumbel")?.unwrap_or_default();
        let g = GumbelConfig::default();
        let gumbel = GumbelConfig {
            considered: self
                .setting("considered", &settings::CONSIDERED)?
                .unwrap_or(g.considered),
            c_visit: (self.setting("c_visit", &settings::GUMBEL_CONSTANT)?).unwrap_or(g.c_visit),
            c_scale: (self.setting("c_scale", &settings::GUMBEL_CONSTANT)?).unwrap_or(g.c_scale),
            noise: false,
        };
        Ok(AzConfig {
            model: self.take("model", "a model file path")?.or(d.model),
            searches: (self.setting("searches", &settings::SEARCHES)?).unwrap_or(d.searches),
            movetime: (self.setting("time", &settings::MOVETIME_MS)?).map(Duration::from_millis),
            device: self.take("device", "auto, cpu or gpu")?.unwrap_or(d.device),
            temperature: (self.setting("temperature", &settings::TEMPERATURE)?)
                .unwrap_or(d.temperature),
            puct: PuctConfig {
                batch: (self.setting("batch", &settings::BATCH)?).unwrap_or(d.puct.batch),
                c_puct: (self.setting("c_puct", &settings::EXPLORATION)?).unwrap_or(d.puct.c_puct),
                gumbel: (search == SearchKind::Gumbel).then_some(gumbel),
                ..d.puct
            },
        })
    }

    /// A learned agent's `model` (a checkpoint path) and `depth`, as given.
    pub fn learned(&mut self) -> Result<(Option<String>, Option<u32>), AgentError> {
        let model = self.take("model", "a checkpoint path")?;
        Ok((model, self.setting("depth", &settings::DEPTH)?))
    }

    /// Alpha-beta's table size `hash` (MiB), else `default`.
    pub fn hash(&mut self, default: usize) -> Result<usize, AgentError> {
        Ok(self.setting("hash", &settings::HASH_MB)?.unwrap_or(default))
    }

    fn finish(self) -> Result<(), AgentError> {
        for (k, _) in &self.spec.options {
            if !self.used.contains(&k.as_str()) {
                let valid = if self.used.is_empty() {
                    "it takes no options".to_string()
                } else {
                    format!("valid options: {}", self.used.join(", "))
                };
                return Err(AgentError(format!(
                    "agent {} has no option {k:?}; {valid}",
                    self.spec.kind
                )));
            }
        }
        Ok(())
    }
}

/// `alphabeta option depth: expected ...`: the route-independent message of a setting,
/// named by agent and key.
pub fn setting_error(kind: &str, key: &str, message: String) -> AgentError {
    AgentError(format!("{kind} option {key}: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_print_and_reject_bad_options() {
        let s: AgentSpec = "AlphaBeta: depth=4, king=2".parse().unwrap();
        assert_eq!(s.to_string(), "alphabeta:depth=4,king=2");
        assert!(s.build::<Checkers>(1).is_ok());
        for (bad, needle) in [
            ("", "empty agent spec"),
            ("minimax", "unknown agent \"minimax\" for checkers"),
            ("alphabeta:depth", "key=value"),
            (
                "alphabeta:depht=3",
                "no option \"depht\"; valid options: depth, time, nodes, king, hash",
            ),
            ("alphabeta:depth=x", "expected a search depth"),
            (
                "alphabeta:depth=0",
                "alphabeta option depth: expected a search depth",
            ),
            (
                "alphabeta:time=0",
                "alphabeta option time: expected milliseconds",
            ),
            (
                "alphabeta:nodes=0",
                "alphabeta option nodes: expected a node count",
            ),
            (
                "alphabeta:king=0",
                "alphabeta option king: expected a king value",
            ),
            (
                "mcts:searches=0",
                "mcts option searches: expected a number of simulations",
            ),
            (
                "az:batch=0",
                "az option batch: expected leaves per network call",
            ),
            ("az:batch=1000000000000", "az option batch"),
            ("random:depth=3", "takes no options"),
        ] {
            let e = bad
                .parse::<AgentSpec>()
                .and_then(|s| s.build::<Checkers>(1).map(|_| ()))
                .unwrap_err();
            assert!(e.0.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn othello_has_alphabeta_and_td_without_checkers_options() {
        assert!(
            "alphabeta:depth=2,time=50,nodes=9,hash=1"
                .parse::<AgentSpec>()
                .unwrap()
                .build::<Othello>(1)
                .is_ok()
        );
        for (bad, needle) in [
            (
                "minimax",
                "unknown agent \"minimax\" for othello: expected one of random, mcts, az, \
                 alphabeta, td",
            ),
            ("alphabeta:king=2", "no option \"king\""),
            ("ga:model=x", "unknown agent \"ga\" for othello"),
            ("td:model=/nonexistent.ckpt", "td agent: cannot access"),
            ("alphabeta:hash=0", "alphabeta option hash"),
        ] {
            let e = bad
                .parse::<AgentSpec>()
                .and_then(|s| s.build::<Othello>(1).map(|_| ()))
                .unwrap_err();
            assert!(e.0.contains(needle), "{bad}: {e}");
        }
    }
}
