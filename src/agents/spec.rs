//! Agent specs: `kind[:key=value,...]`, e.g. `random`, `alphabeta:depth=6,king=1.5`.
//! One parser and one builder serve the command line, the engine protocol and tournaments;
//! what each kind takes is declared in [`super::kinds`].

use super::alphabeta::{AlphaBeta, AlphaBetaConfig};
use super::check::Check;
use super::checkers_eval::CheckersEval;
use super::error::{AgentError, setting_error};
use super::handoff::Handoff;
use super::kinds::{self, AgentKind, LimitOptions, Opt, az};
use super::learned::{NetAgent, load_checkers_net};
use super::othello_eval::OthelloEval;
use super::random::RandomAgent;
use super::search::{AzAgent, AzConfig, MctsAgent};
use super::settings::{CheckEval, SettingValue};
use super::{Agent, Limits};
use crate::endgame::{self, Oracle};
use crate::games::{Checkers, Othello};
use crate::mcts::{GumbelConfig, Judge, PuctConfig, Search, SearchKind};
use crate::net::NetGame;
use crate::net::othello_value::OthelloValueNet;
use crate::net::value_net::Learner;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// How an agent of one kind is built for game `G` from a spec's options and a seed.
pub type Build<G> = fn(&Options, u64) -> Result<Box<dyn Agent<G>>, AgentError>;

/// One of a game's agent kinds: its declaration and its builder.
pub struct Kind<G: 'static> {
    pub decl: &'static AgentKind,
    pub build: Build<G>,
}

/// `random`, `mcts` and `az`: the kinds every game has, built alike.
const fn common<G: AgentGame>() -> [Kind<G>; 3] {
    [
        Kind {
            decl: &kinds::RANDOM,
            build: |_, seed| Ok(Box::new(RandomAgent::new(seed))),
        },
        Kind {
            decl: &kinds::MCTS,
            build: |opts, seed| {
                Ok(Box::new(MctsAgent::<G>::new(
                    opts.value(&kinds::mcts::SEARCHES)?,
                    opts.value(&kinds::mcts::C)?,
                    seed,
                )?))
            },
        },
        Kind {
            decl: &kinds::AZ,
            build: |opts, seed| {
                let config = AzConfig::from_options(opts)?.for_game::<G>();
                let aids = G::AIDS;
                let depth = config.check.unwrap_or(aids.check);
                let check_eval = config.check_eval.unwrap_or(aids.check_eval);
                let margin = config.check_margin;
                let endgame = config.endgame.unwrap_or(aids.endgame);
                let (mix, mix_depth, contempt) = (config.mix, config.mix_depth, config.contempt);
                if config.check_prior > 0.0 && depth == 0 {
                    return Err(AgentError::Invalid(format!(
                        "az: {} steers the search by the check's scores; it needs a check \
                         (check=D with D above 0)",
                        az::CHECK_PRIOR.key()
                    )));
                }
                let mut agent = AzAgent::<G>::new(config, seed)?;
                agent.set_oracle(G::oracle(opts)?);
                let egdb = opts.get(&kinds::EGDB)?;
                let build = |spec: &AgentSpec, seed| spec.build::<G>(seed);
                if depth > 0 {
                    agent.set_check(Check::new(
                        depth,
                        check_eval,
                        margin,
                        egdb.as_deref(),
                        seed,
                    )?);
                }
                if endgame > 0 {
                    let mut spec = G::endgame_search(egdb.as_deref());
                    if contempt > 0.0 {
                        // The same contempt in alpha-beta's units: mix's squashing undone.
                        let units = (contempt.atanh() / G::MIX_SCALE).min(10.0);
                        spec.set(kinds::alphabeta::CONTEMPT.key(), &units.to_string());
                    }
                    let search = build(&spec, seed)?;
                    agent.set_handoff(Handoff::new(endgame, G::left, search));
                }
                if mix > 0.0 {
                    agent = agent.with_mix(mix, mix_judge::<G>(egdb.as_deref(), mix_depth, seed)?);
                }
                Ok(Box::new(agent))
            },
        },
    ]
}

/// `mix`'s judge (`az`'s, and self-play's in `train`): the game's alpha-beta of
/// [`AgentGame::endgame_search`] searching each turn's start `depth` plies, its score
/// squashed into a value with the game's [`AgentGame::MIX_SCALE`].
pub fn mix_judge<G: AgentGame>(
    egdb: Option<&str>,
    depth: u32,
    seed: u64,
) -> Result<Judge<G>, AgentError> {
    let mut search = G::endgame_search(egdb).build::<G>(seed)?;
    Ok(Box::new(move |state| {
        let score = search.judge(&G::position(state)?, depth)?;
        Some((score * G::MIX_SCALE).tanh())
    }))
}

/// A game agents can be built for from specs.
pub trait AgentGame: NetGame {
    /// Every kind the game has: `random`, `mcts` and `az` (built alike for every game), then its own.
    const KINDS: &'static [Kind<Self>];

    /// The perfect endgames an agent with these options consults (`egdb` for checkers).
    fn oracle(opts: &Options) -> Result<Option<Oracle<Self>>, AgentError>;

    /// The alpha-beta `az:endgame` hands endings to and `az:mix` judges leaves with: the
    /// game's strongest evaluation, with the endgame databases of `egdb` where given.
    fn endgame_search(egdb: Option<&str>) -> AgentSpec;

    /// Value per unit of that alpha-beta's score (men, discs) before `az:mix` squashes it
    /// into (-1, 1) with tanh.
    const MIX_SCALE: f32;

    /// How much of the game is left, as `az:endgame` counts it.
    fn left(pos: &Self::Position) -> u32;

    /// What `az` plays with where its spec leaves `check`, `check_eval` or `endgame` out.
    const AIDS: Aids;

    /// Every kind's declaration.
    fn kinds() -> impl Iterator<Item = &'static AgentKind> {
        Self::KINDS.iter().map(|k| k.decl)
    }

    /// The kind called `name`.
    fn kind(name: &str) -> Option<&'static Kind<Self>> {
        Self::KINDS.iter().find(|k| k.decl.kind == name)
    }
}

/// What a game's `az` plays with by default beside its network's search: the tactical
/// check's depth and evaluation, the hand-off in endings (0: none), and the policy
/// temperature (1: the network's priors as they are).
pub struct Aids {
    pub check: u32,
    pub check_eval: CheckEval,
    pub endgame: u32,
    pub policy_temperature: f32,
}

/// An `alphabeta` spec's search settings, its limits declared by `limits`.
fn alphabeta_config(opts: &Options, limits: &LimitOptions) -> Result<AlphaBetaConfig, AgentError> {
    Ok(AlphaBetaConfig {
        limits: opts.limits(limits)?,
        hash_mb: opts.value(&kinds::alphabeta::HASH)?,
        contempt: opts.value(&kinds::alphabeta::CONTEMPT)?,
    })
}

/// Checkers' learned agents: `learner`'s network at alpha-beta's leaves.
fn checkers_learned(
    learner: Learner,
    opts: &Options,
    seed: u64,
) -> Result<Box<dyn Agent>, AgentError> {
    let (model, depth) = opts.learned()?;
    Ok(Box::new(NetAgent::load(
        opts.declaration(),
        model.as_deref(),
        depth,
        seed,
        |path| load_checkers_net(learner, path),
    )?))
}

impl AgentGame for Checkers {
    /// A man ahead is worth about 0.46, as in the material stand-in for a network.
    const MIX_SCALE: f32 = 0.5;

    /// The check and the hand-off together beat the network's search alone against the
    /// classic evaluation at a second a move, paired over the ballots, and the flatter
    /// policy beat the priors as they are on the same games (docs/results/strength.md).
    const AIDS: Aids = Aids {
        check: 10,
        check_eval: CheckEval::Strongest,
        endgame: 10,
        policy_temperature: 1.5,
    };

    const KINDS: &'static [Kind<Self>] = &{
        let [random, mcts, az] = common();
        [
            random,
            mcts,
            az,
            Kind {
                decl: &kinds::CHECKERS_ALPHABETA,
                build: |opts, seed| {
                    let config = alphabeta_config(opts, &kinds::alphabeta::CHECKERS_LIMITS)?;
                    let eval = CheckersEval::new(
                        opts.value(&kinds::alphabeta::EVAL)?,
                        opts.value(&kinds::alphabeta::KING)?,
                    )?;
                    let mut agent = AlphaBeta::new(config, seed, eval)?;
                    agent.set_oracle(Self::oracle(opts)?);
                    Ok(Box::new(agent))
                },
            },
            Kind {
                decl: &kinds::TD,
                build: |opts, seed| checkers_learned(Learner::Td, opts, seed),
            },
            Kind {
                decl: &kinds::GA,
                build: |opts, seed| checkers_learned(Learner::Ga, opts, seed),
            },
            Kind {
                decl: &kinds::PSO,
                build: |opts, seed| checkers_learned(Learner::Pso, opts, seed),
            },
        ]
    };

    fn oracle(opts: &Options) -> Result<Option<Oracle<Self>>, AgentError> {
        let dir = match opts.get(&kinds::EGDB)? {
            Some(d) if d.eq_ignore_ascii_case("none") => return Ok(None),
            Some(d) => PathBuf::from(d),
            None => match endgame::checkers::default_dir() {
                Some(d) => d,
                None => return Ok(None),
            },
        };
        endgame::checkers::oracle(&dir).map(Some).map_err(|e| {
            AgentError::Invalid(format!(
                "{} option {}: {e}",
                opts.declaration().kind,
                kinds::EGDB.key()
            ))
        })
    }

    fn endgame_search(egdb: Option<&str>) -> AgentSpec {
        let mut spec = AgentSpec::new(kinds::CHECKERS_ALPHABETA.kind);
        spec.set(kinds::alphabeta::EVAL.key(), "patterns");
        if let Some(egdb) = egdb {
            spec.set(kinds::EGDB.key(), egdb);
        }
        spec
    }

    /// Pieces on the board.
    fn left(pos: &Self::Position) -> u32 {
        pos.occupied().count_ones()
    }
}

impl AgentGame for Othello {
    /// Sixteen discs of final margin are worth about 0.75.
    const MIX_SCALE: f32 = 0.06;

    /// The network's search alone, its priors as they are: none of these was measured to
    /// help in Othello.
    const AIDS: Aids = Aids {
        check: 0,
        check_eval: CheckEval::Own,
        endgame: 0,
        policy_temperature: 1.0,
    };

    const KINDS: &'static [Kind<Self>] = &{
        let [random, mcts, az] = common();
        [
            random,
            mcts,
            az,
            Kind {
                decl: &kinds::OTHELLO_ALPHABETA,
                build: |opts, seed| {
                    let config = alphabeta_config(opts, &kinds::alphabeta::OTHELLO_LIMITS)?;
                    let eval = OthelloEval::new(opts.value(&kinds::alphabeta::OTHELLO_EVAL)?);
                    let mut agent = AlphaBeta::new(config, seed, eval)?;
                    agent.set_oracle(Self::oracle(opts)?);
                    Ok(Box::new(agent))
                },
            },
            Kind {
                decl: &kinds::TD,
                build: |opts, seed| {
                    let (model, depth) = opts.learned()?;
                    Ok(Box::new(NetAgent::load(
                        opts.declaration(),
                        model.as_deref(),
                        depth,
                        seed,
                        OthelloValueNet::load,
                    )?))
                },
            },
        ]
    };

    fn oracle(opts: &Options) -> Result<Option<Oracle<Self>>, AgentError> {
        if opts.is_given(&kinds::EGDB) {
            return Err(AgentError::Invalid(format!(
                "{} option {}: the endgame databases are checkers'",
                opts.declaration().kind,
                kinds::EGDB.key()
            )));
        }
        Ok(Some(std::sync::Arc::new(endgame::othello::Endgame)))
    }

    /// The databases are checkers' (an `egdb` given is refused before this is asked).
    fn endgame_search(_: Option<&str>) -> AgentSpec {
        let mut spec = AgentSpec::new(kinds::OTHELLO_ALPHABETA.kind);
        spec.set(kinds::alphabeta::OTHELLO_EVAL.key(), "patterns");
        spec
    }

    /// Empty squares.
    fn left(pos: &Self::Position) -> u32 {
        endgame::othello::empties(pos)
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

    /// Sets an option, replacing an earlier value of the same key (an older spelling of a
    /// key is stored as the key it now is).
    pub fn set(&mut self, key: &str, value: &str) {
        let key = kinds::current_key(&self.kind, &key.to_ascii_lowercase());
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
        let Some(kind) = G::kind(&self.kind) else {
            let kinds: Vec<&str> = G::kinds().map(|k| k.kind).collect();
            return Err(AgentError::Invalid(format!(
                "unknown agent {:?} for {}: expected one of {}",
                self.kind,
                G::NAME.name(),
                kinds.join(", ")
            )));
        };
        let opts = Options::new(self, kind.decl);
        opts.check_keys()?;
        (kind.build)(&opts, seed)
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
            return Err(AgentError::Invalid(
                "empty agent spec: expected e.g. random or alphabeta:depth=6".into(),
            ));
        }
        let mut spec = AgentSpec::new(&kind);
        for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((k, v)) = item.split_once('=') else {
                return Err(AgentError::Invalid(format!(
                    "agent option {item:?} must be key=value, e.g. depth=6"
                )));
            };
            spec.set(k.trim(), v.trim());
        }
        Ok(spec)
    }
}

impl AzConfig {
    /// The config of a spec's options, over the declared defaults.
    pub fn from_options(opts: &Options) -> Result<AzConfig, AgentError> {
        let gumbel = GumbelConfig {
            considered: opts.value(&az::GUMBEL_CONSIDERED)? as usize,
            c_visit: opts.value(&az::GUMBEL_C_VISIT)?,
            c_scale: opts.value(&az::GUMBEL_C_SCALE)?,
            noise: false,
        };
        Ok(AzConfig {
            model: opts.get(&az::MODEL)?.map(PathBuf::from),
            searches: opts.value(&az::SEARCHES)?,
            movetime: opts.get(&az::TIME)?.map(Duration::from_millis),
            spend: opts.value(&az::SPEND)?,
            device: opts.value(&az::DEVICE)?,
            precision: opts.value(&az::PRECISION)?,
            check: opts.get(&az::CHECK)?,
            check_eval: opts.get(&az::CHECK_EVAL)?,
            check_margin: opts.value(&az::CHECK_MARGIN)?,
            check_prior: opts.value(&az::CHECK_PRIOR)?,
            policy_temperature: opts.get(&az::POLICY_TEMPERATURE)?,
            endgame: opts.get(&az::ENDGAME)?,
            book: opts.get(&az::BOOK)?.map(PathBuf::from),
            mix: opts.value(&az::MIX)?,
            mix_depth: opts.value(&az::MIX_DEPTH)?,
            contempt: opts.value(&az::CONTEMPT)?,
            symmetries: opts.value(&az::SYMMETRIES)?,
            threads: opts.value(&az::THREADS)?,
            cache: opts.value(&az::CACHE)?,
            tree_mb: opts.value(&az::TREE)?,
            temperature: opts.value(&az::TEMPERATURE)?,
            // Play: constant c_puct, no root noise, no forced playouts (self-play's).
            puct: PuctConfig {
                batch: opts.value(&az::LEAF_BATCH)? as usize,
                forced_through: opts.value(&az::FORCED)?,
                // The network's priors as they are, unless given: `az`'s builder puts in
                // the game's where the spec leaves it out.
                policy_temperature: opts.get(&az::POLICY_TEMPERATURE)?.unwrap_or(1.0),
                c_puct: opts.value(&az::C_PUCT)?,
                c_base: None,
                fpu_reduction: opts.value(&az::FPU_REDUCTION)?,
                noise: None,
                forced_playouts: None,
                search: match opts.value(&az::SEARCH)? {
                    SearchKind::Puct => Search::Puct,
                    SearchKind::Gumbel => Search::Gumbel(gumbel),
                },
            },
        })
    }

    /// The config with game `G`'s policy temperature where the spec left it out.
    pub fn for_game<G: AgentGame>(mut self) -> Self {
        self.puct.policy_temperature =
            (self.policy_temperature).unwrap_or(G::AIDS.policy_temperature);
        self
    }
}

/// The declared defaults.
impl Default for AzConfig {
    fn default() -> Self {
        let spec = AgentSpec::new(kinds::AZ.kind);
        AzConfig::from_options(&Options::new(&spec, &kinds::AZ))
            .expect("az's declared defaults are valid")
    }
}

/// Agent specs in one line, separated by `;` (specs hold commas): a gauntlet's opponents.
/// Files keep the line as it is written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecList(pub Vec<AgentSpec>);

impl std::fmt::Display for SpecList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let specs: Vec<String> = self.0.iter().map(AgentSpec::to_string).collect();
        f.write_str(&specs.join(";"))
    }
}

impl FromStr for SpecList {
    type Err = AgentError;

    fn from_str(text: &str) -> Result<Self, AgentError> {
        text.split(';')
            .filter(|s| !s.trim().is_empty())
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map(SpecList)
    }
}

crate::names::serde_as_text!(SpecList);

/// Typed access to a spec's options through its kind's declaration: a value given, else
/// the declared default.
pub struct Options<'a> {
    spec: &'a AgentSpec,
    kind: &'static AgentKind,
}

impl<'a> Options<'a> {
    /// The options of `spec`, a spec of `kind`.
    pub fn new(spec: &'a AgentSpec, kind: &'static AgentKind) -> Self {
        Options { spec, kind }
    }

    pub fn declaration(&self) -> &'static AgentKind {
        self.kind
    }

    /// The option as given, else its default; `None` for an option left out that has none.
    /// The kind must declare it (a programming error otherwise, which every kind's tests
    /// would meet).
    pub fn get<T: SettingValue>(&self, opt: &Opt<T>) -> Result<Option<T>, AgentError> {
        assert!(
            self.kind.declares(opt),
            "{} declares no option {}",
            self.kind.kind,
            opt.key()
        );
        match self.spec.get(opt.key()) {
            Some(text) => opt
                .setting()
                .parse(text)
                .map(Some)
                .map_err(|e| setting_error(self.kind.kind, opt.key(), e)),
            None => Ok(opt.default().cloned()),
        }
    }

    /// An option that has a default, as given or the default.
    pub fn value<T: SettingValue>(&self, opt: &Opt<T>) -> Result<T, AgentError> {
        Ok(self
            .get(opt)?
            .unwrap_or_else(|| panic!("{} option {} has no default", self.kind.kind, opt.key())))
    }

    /// Whether the spec gives the option.
    pub fn is_given<T>(&self, opt: &Opt<T>) -> bool {
        self.spec.get(opt.key()).is_some()
    }

    /// An option as given, ignoring its default (limits, whose default applies only when
    /// none is given).
    fn given<T: SettingValue>(&self, opt: &Opt<T>) -> Result<Option<T>, AgentError> {
        match self.is_given(opt) {
            true => self.get(opt),
            false => Ok(None),
        }
    }

    /// The search limits given as `depth`, `time` (ms) and `nodes`, else the default depth.
    pub fn limits(&self, options: &LimitOptions) -> Result<Limits, AgentError> {
        let given = Limits {
            depth: self.given(&options.depth)?,
            movetime: self.given(&options.time)?.map(Duration::from_millis),
            nodes: self.given(&options.nodes)?,
            ..Limits::default()
        };
        Ok(given.or(&Limits {
            depth: self.get(&options.depth)?,
            ..Limits::default()
        }))
    }

    /// A learned agent's `model` (a checkpoint path) and `depth`.
    pub fn learned(&self) -> Result<(Option<String>, u32), AgentError> {
        Ok((
            self.get(&kinds::learned::MODEL)?,
            self.value(&kinds::learned::DEPTH)?,
        ))
    }

    /// Every option given is one the kind has.
    fn check_keys(&self) -> Result<(), AgentError> {
        for (k, _) in &self.spec.options {
            if self.kind.option(k).is_none() {
                let valid = if self.kind.options.is_empty() {
                    "it takes no options".to_string()
                } else {
                    let keys: Vec<&str> = self.kind.options.iter().map(|o| o.key).collect();
                    format!("valid options: {}", keys.join(", "))
                };
                return Err(AgentError::Invalid(format!(
                    "agent {} has no option {k:?}; {valid}",
                    self.kind.kind
                )));
            }
        }
        Ok(())
    }
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
                "no option \"depht\"; valid options: depth, time, nodes, eval, king, hash",
            ),
            (
                "alphabeta:eval=fancy",
                "alphabeta option eval: expected an evaluation",
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
                "az:leaf_batch=0",
                "az option leaf_batch: expected leaves per network call",
            ),
            // An older spelling's message names the key as it is now.
            ("az:batch=1000000000000", "az option leaf_batch"),
            ("random:depth=3", "takes no options"),
        ] {
            let e = bad
                .parse::<AgentSpec>()
                .and_then(|s| s.build::<Checkers>(1).map(|_| ()))
                .unwrap_err();
            assert!(e.to_string().contains(needle), "{bad}: {e}");
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
            (
                "td:model=/nonexistent.ckpt",
                "td agent: cannot read /nonexistent.ckpt",
            ),
            ("alphabeta:hash=0", "alphabeta option hash"),
        ] {
            let e = bad
                .parse::<AgentSpec>()
                .and_then(|s| s.build::<Othello>(1).map(|_| ()))
                .unwrap_err();
            assert!(e.to_string().contains(needle), "{bad}: {e}");
        }
    }
}
