//! Every hyperparameter of an AlphaZero run, with presets for a laptop CPU and a desktop GPU.
//! One list below defines each key once: the resolved [`TrainConfig`], and
//! [`ConfigOverrides`] — the same keys, all optional, its [`Keys`](crate::keys::Keys) — which
//! is both the `train` command's flags (`--games-per-iteration 40`) and the config file's
//! JSON keys (`{"games_per_iteration": 40}`). A run resolves preset, then file, then flags.

use crate::agents::kinds::{Opt, az};
use crate::agents::settings::{self, Describe, Domain, Setting, SettingValue};
use crate::agents::{AgentGame, AgentSpec, SpecList};
use crate::arena::ArenaGame;
use crate::games::checkers::encoding::Encoding;
use crate::games::{Checkers, GameName, Othello};
use crate::mcts::{GumbelConfig, PlayoutCap, PuctConfig, Search, SearchKind, Temperature};
use crate::net::AzModel;
use crate::nn::{Architecture, NetPreset, OptimConfig};
use crate::selfplay::{AHEAD_PLIES, SelfPlayConfig, ValueTarget};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Why keys are not a run's configuration: the key and what it must be, or what the JSON
/// is not.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A key's value, or the shape of the keys.
    #[error("{0}")]
    Invalid(String),
    /// Text that is not JSON, or values that are not the keys' types.
    #[error("{0} ({KEYS_EXPECTED})")]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    /// A config file that was read but does not hold a run's keys.
    #[error("config file {}: {source}", path.display())]
    InFile {
        path: PathBuf,
        #[source]
        source: Box<ConfigError>,
    },
}

/// What train keys as JSON look like.
const KEYS_EXPECTED: &str =
    "expected a JSON object of train keys, e.g. {\"games_per_iteration\": 40}";

/// A spec list is a key's value here (the gauntlet's opponents): text, no named values.
impl crate::keys::KeyType for SpecList {}

/// The presets' gauntlets, written as a spec list.
fn specs(text: &str) -> SpecList {
    text.parse()
        .expect("the presets' opponents are valid specs")
}

crate::names::named_enum! {
    /// Where gating's and the gauntlet's games run.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum GatingDevice {
        /// The run's device.
        Run = "run",
        /// The CPU backend, one game a core.
        Cpu = "cpu",
    }
}

crate::names::named_enum! {
    /// The optimizer of the network's training.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum OptimizerKind {
        /// Stochastic gradient descent with momentum.
        Sgd = "sgd",
        /// Adam.
        Adam = "adam",
    }
}

/// `name [RANGE]: type = cpu, gpu;` declares a key: its type, the values it may take (a
/// [`Setting`], where it has limits; a search setting shared with `az` names that option's),
/// and its value in each preset.
macro_rules! train_config {
    ($( $(#[doc = $doc:literal])+ $name:ident $([$range:expr])? : $ty:ty = $cpu:expr, $gpu:expr; )+
     added: $( $(#[doc = $adoc:literal])+ $aname:ident $([$arange:expr])? : $aty:ty = $acpu:expr, $agpu:expr; )+) => {
        /// A resolved run configuration (saved in the run folder and its checkpoints). A key
        /// missing from a saved one (a run from before the key existed) takes the cpu
        /// preset's value, which for every key added since is the behaviour those runs had.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct TrainConfig {
            $( $(#[doc = $doc])+ pub $name: $ty, )+
            $( $(#[doc = $adoc])+ pub $aname: $aty, )+
        }

        /// Keys to change over a preset: command-line flags and config-file keys.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct ConfigOverrides {
            $( $(#[doc = $doc])+ pub $name: Option<$ty>, )+
            $( $(#[doc = $adoc])+ pub $aname: Option<$aty>, )+
        }

        impl crate::keys::Keys for ConfigOverrides {
            const KEYS: &'static [crate::keys::Key] = &[
                $( crate::keys::key!($name, $ty, [$($doc),+]), )+
                $( crate::keys::key!($aname, $aty, [$($adoc),+]), )+
            ];
        }

        /// The configuration as run states of layout 1 encoded it (bincode, by position):
        /// the keys before `added`. Read only, to resume those runs.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub(crate) struct TrainConfigV1 {
            $( $name: $ty, )+
        }

        impl From<TrainConfigV1> for TrainConfig {
            /// The keys added since take the cpu preset's values: what those runs did.
            fn from(v: TrainConfigV1) -> TrainConfig {
                TrainConfig { $( $name: v.$name, )+ $( $aname: $acpu.into(), )+ }
            }
        }

        #[cfg(test)]
        impl From<&TrainConfig> for TrainConfigV1 {
            fn from(c: &TrainConfig) -> TrainConfigV1 {
                TrainConfigV1 { $( $name: c.$name.clone(), )+ }
            }
        }

        impl Default for TrainConfig {
            fn default() -> TrainConfig {
                TrainConfig::cpu()
            }
        }

        impl TrainConfig {
            /// Sized for a laptop CPU: a tiny network, short searches, small iterations.
            pub fn cpu() -> TrainConfig {
                TrainConfig { $( $name: $cpu.into(), )+ $( $aname: $acpu.into(), )+ }
            }

            /// Sized for a desktop GPU: a larger network, longer searches, large batches.
            pub fn gpu() -> TrainConfig {
                TrainConfig { $( $name: $gpu.into(), )+ $( $aname: $agpu.into(), )+ }
            }

            /// Replaces every key `o` sets.
            pub fn apply(&mut self, o: &ConfigOverrides) {
                $( if let Some(v) = &o.$name { self.$name = v.clone(); } )+
                $( if let Some(v) = &o.$aname { self.$aname = v.clone(); } )+
            }

            /// Each key with a range holds a value in it; the message names the key.
            fn check_ranges(&self) -> Result<(), ConfigError> {
                $( $( in_range(stringify!($name), $range, &self.$name)?; )? )+
                $( $( in_range(stringify!($aname), $arange, &self.$aname)?; )? )+
                Ok(())
            }
        }

        /// The keys that have a range, with it.
        pub const RANGES: &[(&str, &dyn Describe)] = &[
            $( $( (stringify!($name), $range), )? )+
            $( $( (stringify!($aname), $arange), )? )+
        ];
    };
}

/// `value` lies in `range`, or the error names `key` and what it must be.
fn in_range<T: SettingValue>(key: &str, range: &Setting<T>, value: &T) -> Result<(), ConfigError> {
    range
        .check(value.clone())
        .map(drop)
        .map_err(|e| ConfigError::Invalid(format!("{key}: {e}")))
}

/// A search setting's default where a preset takes it as `az` does.
fn shared<T: Clone>(option: &Opt<T>) -> T {
    option
        .default()
        .cloned()
        .expect("a setting the trainer shares with az has a default")
}

/// Counts of anything: games, iterations, threads, positions a call.
static COUNT: Setting<u32> = Setting::new(
    "a count",
    Domain::Whole {
        min: 1,
        max: u32::MAX as u64,
    },
);
/// A share or probability.
static SHARE: Setting<f32> = Setting::new(
    "a share",
    Domain::Number {
        min: 0.0,
        above: false,
        max: 1.0,
    },
);
static NON_NEGATIVE: Setting<f32> = Setting::new(
    "a number",
    Domain::Number {
        min: 0.0,
        above: false,
        max: f32::INFINITY,
    },
);
static POSITIVE: Setting<f32> = Setting::new(
    "a number",
    Domain::Number {
        min: 0.0,
        above: true,
        max: f32::INFINITY,
    },
);

train_config! {
    /// Iterations (self-play, training, gating) in the whole run.
    iterations [&COUNT]: u32 = 24u32, 200u32;
    /// Self-play games per iteration.
    games_per_iteration [&COUNT]: u32 = 64u32, 512u32;
    /// Gating games between the new network and the best (colours and ballots alternate).
    gating_games: u32 = 20u32, 100u32;
    /// Replace the best network when the new one scores at least this (0 to 1).
    threshold [&SHARE]: f32 = 0.55f32, 0.55f32;
    /// Gate new networks; without it every new network plays the next self-play (AlphaZero).
    gating: bool = true, true;
    /// Simulations of a full search per move (self-play).
    searches [&settings::SEARCHES]: u32 = 80u32, 400u32;
    /// Simulations of a fast search (playout-cap randomisation; not a training target).
    fast_searches [&settings::SEARCHES]: u32 = 20u32, 100u32;
    /// Chance that a move gets a full search (1 turns playout-cap randomisation off).
    full_search_probability [&SHARE]: f32 = 0.5f32, 0.25f32;
    /// Simulations per move in gating games.
    gating_searches [&settings::SEARCHES]: u32 = 48u32, 200u32;
    /// Exploration constant c_puct (AlphaZero's c_init with --c-base).
    c_puct [az::C_PUCT.setting()]: f32 = shared(&az::C_PUCT), shared(&az::C_PUCT);
    /// AlphaZero's c_base for log-growth c_puct (0: constant c_puct).
    c_base [&NON_NEGATIVE]: f32 = 19652.0f32, 19652.0f32;
    /// First-play urgency: unvisited children count as the parent's value less this.
    fpu_reduction [az::FPU_REDUCTION.setting()]: f32 = shared(&az::FPU_REDUCTION), shared(&az::FPU_REDUCTION);
    /// KataGo's forced playouts factor k on full searches (0: off).
    forced_playouts [&NON_NEGATIVE]: f32 = 2.0f32, 2.0f32;
    /// Dirichlet noise alpha at the root (Checkers-MCTS found 1.0 right for checkers).
    dirichlet_alpha [&POSITIVE]: f32 = 1.0f32, 1.0f32;
    /// Share of the root prior replaced by noise.
    dirichlet_epsilon [&SHARE]: f32 = 0.25f32, 0.25f32;
    /// Plies played at temperature 1 before moves become greedy.
    temperature_plies: u32 = 16u32, 20u32;
    /// Let the temperature fall linearly to 0 over those plies instead.
    temperature_decay: bool = false, false;
    /// Self-play games reaching this many plies are adjudicated (pieces, then kings).
    max_plies [&COUNT]: u32 = 160u32, 200u32;
    /// Replay window in iterations.
    replay_window [&COUNT]: u32 = 3u32, 4u32;
    /// Replay cap in positions (0: no cap; the newest iteration is always kept).
    replay_positions: u32 = 0u32, 500_000u32;
    /// Passes over the replay window per iteration.
    epochs [&COUNT]: u32 = 2u32, 2u32;
    /// Training batch size.
    batch_size [&COUNT]: u32 = 128u32, 512u32;
    /// Learning rate of the first iteration.
    lr [&POSITIVE]: f32 = 0.002f32, 0.01f32;
    /// Learning rate factor per iteration (1: constant).
    lr_decay [&POSITIVE]: f32 = 0.97f32, 0.99f32;
    /// Learning rate floor.
    lr_min [&NON_NEGATIVE]: f32 = 0.0002f32, 0.0005f32;
    /// L2 weight decay.
    weight_decay [&NON_NEGATIVE]: f32 = 0.0001f32, 0.0001f32;
    /// Optimizer.
    optimizer: OptimizerKind = OptimizerKind::Adam, OptimizerKind::Sgd;
    /// SGD momentum.
    momentum [&NON_NEGATIVE]: f32 = 0.9f32, 0.9f32;
    /// Value target: the game result or its mean with the root search value.
    value_target: ValueTarget = ValueTarget::Mean, ValueTarget::Mean;
    /// The network: az-tiny, az-small, az-large or plain-7x128.
    network: NetPreset = NetPreset::AzTiny, NetPreset::AzSmall;
    /// Earlier positions shown to the network (history planes).
    history: u32 = 0u32, 0u32;
    /// Legal-hop input planes.
    legal_hops: bool = false, false;
    /// Self-play worker threads.
    threads [&COUNT]: u32 = 1u32, 4u32;
    /// Games each worker keeps going at once.
    games_per_thread [&COUNT]: u32 = 24u32, 128u32;
    /// Leaves each search gathers (under virtual loss) per network call.
    leaf_batch [az::LEAF_BATCH.setting()]: u32 = 4u32, shared(&az::LEAF_BATCH);
    /// Positions per network call at most (the inference service's batch).
    inference_batch [&COUNT]: u32 = 256u32, 1024u32;
    /// Every N iterations (0: never) the best network plays the gauntlet opponents; the
    /// scores go into metrics.jsonl (a strength curve against fixed opponents).
    gauntlet_every: u32 = 0u32, 5u32;
    /// Gauntlet games per opponent (over the ballots, colours alternating).
    gauntlet_games: u32 = 20u32, 40u32;
    /// Gauntlet opponents: agent specs separated by ';'.
    gauntlet_opponents: SpecList = specs("random;alphabeta:depth=4"), specs("random;alphabeta:depth=4;alphabeta:depth=6");
    /// Self-play games per iteration saved as PDN.
    saved_games: u32 = 4u32, 4u32;
    /// Seed of all randomness in the run.
    seed: u64 = 0u64, 0u64;
    // Keys added after run states of layout 1 (which lack them: see `TrainConfigV1`). New
    // keys go at the end of this list, never above it.
    added:
    /// The tree search of self-play and gating: AlphaZero's PUCT, or Gumbel AlphaZero's
    /// (Sequential Halving at the root, the improved policy as the target; the PUCT keys,
    /// noise, forced playouts and temperature do not apply to it).
    search [az::SEARCH.setting()]: SearchKind = shared(&az::SEARCH), shared(&az::SEARCH);
    /// Gumbel: root actions sampled for Sequential Halving (the paper's m).
    gumbel_considered [az::GUMBEL_CONSIDERED.setting()]: u32 = shared(&az::GUMBEL_CONSIDERED), shared(&az::GUMBEL_CONSIDERED);
    /// Gumbel: the paper's c_visit.
    gumbel_c_visit [az::GUMBEL_C_VISIT.setting()]: f32 = shared(&az::GUMBEL_C_VISIT), shared(&az::GUMBEL_C_VISIT);
    /// Gumbel: the paper's c_scale.
    gumbel_c_scale [az::GUMBEL_C_SCALE.setting()]: f32 = shared(&az::GUMBEL_C_SCALE), shared(&az::GUMBEL_C_SCALE);
    /// A model file whose weights start the run instead of random ones (the shipped
    /// models/default.bin, another run's best.ckpt): runs stacked over days. Its network and
    /// encoding must be the run's.
    init: Option<PathBuf> = None, None;
    /// The lineage: FNV-1a 64 of the `init` file's bytes, in hex, written when the run
    /// starts (any value given is replaced).
    init_hash: Option<String> = None, None;
    /// Iterations over which the learning rate rises to its schedule: iteration i < N trains
    /// at (i + 1) / (N + 1) of it (`--init` makes it 2 unless given).
    lr_warmup: u32 = 0u32, 0u32;
    /// A model file whose network plays the self-play games of the first `teacher_iterations`
    /// iterations instead of the run's best, so the run's networks learn from a trained
    /// network's searches from the start, whatever its size (a dark-square network from
    /// az-tiny's games). Its game and encoding must be the run's; gating is among the run's
    /// own networks.
    teacher: Option<PathBuf> = None, None;
    /// Iterations whose self-play the teacher plays (iterations 1 to this).
    teacher_iterations: u32 = 0u32, 0u32;
    /// End self-play games at positions the endgame databases hold, with their exact
    /// result, and search such positions as solved (checkers, with the folder
    /// $CHECKERS_ZERO_EGDB or ~/.local/share/checkers-zero/egdb when present).
    exact_endings: bool = true, true;
    /// Planes of the value head that its MLP reads (1: AlphaZero's). An `init` network with
    /// fewer is widened without changing what it computes.
    value_planes [&COUNT]: u32 = 1u32, 1u32;
    /// Self-play and gating play the mean of the last N iterations' networks (weights and
    /// batch-norm statistics, saved as models/mean-NNNN.ckpt), while training goes on from
    /// the newest alone: stochastic weight averaging, as KataGo's self-play does (0 or 1: the
    /// newest network). Fixed for the run.
    average: u32 = 0u32, 0u32;
    /// Where gating's and the gauntlet's games run: `run`, the run's device, or `cpu`, the
    /// CPU backend, one game a core. Their searches make small network calls one game at a
    /// time, which a GPU answers slowly: on an NVIDIA H200 gating's 40 games at 96
    /// simulations a move took 31-38 s of each 45-59 s iteration, self-play's 256 games at
    /// 240 simulations 13-21 s.
    gating_device: GatingDevice = GatingDevice::Run, GatingDevice::Run;
    /// Train on each sample under a symmetry of the board drawn at random, among those that
    /// keep the start position (AlphaGo Zero's augmentation): Othello's half turn and two
    /// diagonal reflections beside the identity; checkers has none, so it changes nothing
    /// there.
    symmetries: bool = false, false;
    /// A match journal (`match --journal`) whose games' positions a share of self-play's
    /// games start from: every position before a move of the games its first agent did not
    /// win (the network's losses and draws, with it first), with the moves that led there.
    starts: Option<PathBuf> = None, None;
    /// The share of self-play games that start from `starts`' positions.
    start_share [&SHARE]: f32 = 0.25f32, 0.25f32;
    /// Self-play's leaf values mixed with the game's alpha-beta judging each leaf (checkers:
    /// the classic evaluation; Othello: the patterns), this much its and the rest the
    /// network's, so the value and policy targets carry what alpha-beta sees (0: none).
    mix [az::MIX.setting()]: f32 = shared(&az::MIX), shared(&az::MIX);
    /// How many plies that alpha-beta searches each leaf, captures resolved beyond.
    mix_depth [az::MIX_DEPTH.setting()]: u32 = shared(&az::MIX_DEPTH), shared(&az::MIX_DEPTH);
    /// An auxiliary head on the value head's hidden layer learns the material lead 4 and 8
    /// plies ahead (KataGo's auxiliary targets), its squared error added to the loss this
    /// much of: more to learn from each game (0: no head). Fixed for the run; an `init`
    /// network gets or loses the head without changing its policy or value.
    aux_weight [&NON_NEGATIVE]: f32 = 0.0f32, 0.0f32;
}

crate::names::named_enum! {
    /// The starting points of a run's keys.
    pub enum Preset {
        /// Sized for a laptop CPU: a tiny network, short searches, small iterations.
        Cpu = "cpu",
        /// Sized for a desktop GPU: a larger network, longer searches, large batches.
        Gpu = "gpu",
    }
}

impl TrainConfig {
    pub fn preset(preset: Preset) -> TrainConfig {
        match preset {
            Preset::Cpu => TrainConfig::cpu(),
            Preset::Gpu => TrainConfig::gpu(),
        }
    }

    /// Checks ranges; the message names the key and what it must be.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check_ranges()?;
        if self.teacher_iterations > 0 && self.teacher.is_none() {
            return Err(ConfigError::Invalid(
                "teacher_iterations needs a teacher (a model file)".into(),
            ));
        }
        Ok(())
    }

    /// Everything [`validate`](Self::validate) checks, and what only the game decides: its
    /// encoding and the gauntlet opponents.
    pub fn validate_for<G: AzGame>(&self) -> Result<(), ConfigError> {
        self.validate()?;
        G::encoding(self)?;
        self.gauntlet_specs::<G>()?;
        Ok(())
    }

    /// The gauntlet opponents as agent specs, each built once so that a bad one (an unknown
    /// option, a missing model) fails before any work, not after the first iteration.
    pub fn gauntlet_specs<G: AgentGame>(&self) -> Result<Vec<AgentSpec>, ConfigError> {
        for spec in &self.gauntlet_opponents.0 {
            spec.build::<G>(0)
                .map_err(|e| ConfigError::Invalid(format!("gauntlet_opponents: {e}")))?;
        }
        Ok(self.gauntlet_opponents.0.clone())
    }

    /// The network of a run of game `G`: the preset reading the run's encoding.
    pub fn model<G: AzGame>(&self) -> Result<AzModel<G>, ConfigError> {
        Ok(AzModel::new(
            Architecture::preset(self.network)
                .with_value_planes(self.value_planes as usize)
                .with_aux(if self.aux_weight > 0.0 {
                    AHEAD_PLIES.len()
                } else {
                    0
                }),
            G::encoding(self)?,
        ))
    }

    pub fn optim(&self) -> OptimConfig {
        match self.optimizer {
            OptimizerKind::Sgd => OptimConfig::Sgd {
                momentum: self.momentum,
                weight_decay: self.weight_decay,
            },
            OptimizerKind::Adam => OptimConfig::adam(self.weight_decay),
        }
    }

    /// The learning rate of 0-based iteration `i`.
    pub fn lr_at(&self, i: u32) -> f32 {
        let scheduled = (self.lr * self.lr_decay.powi(i as i32)).max(self.lr_min);
        if i < self.lr_warmup {
            scheduled * (i + 1) as f32 / (self.lr_warmup + 1) as f32
        } else {
            scheduled
        }
    }

    /// This run's search, Gumbel's with or without the root noise.
    pub fn search(&self, noise: bool) -> Search {
        match self.search {
            SearchKind::Puct => Search::Puct,
            SearchKind::Gumbel => Search::Gumbel(GumbelConfig {
                considered: self.gumbel_considered as usize,
                c_visit: self.gumbel_c_visit,
                c_scale: self.gumbel_c_scale,
                noise,
            }),
        }
    }

    /// How self-play searches and picks moves.
    pub fn self_play(&self) -> SelfPlayConfig {
        let search = self.search(true);
        let puct = search == Search::Puct;
        SelfPlayConfig {
            puct: PuctConfig {
                c_puct: self.c_puct,
                c_base: (self.c_base > 0.0).then_some(self.c_base),
                fpu_reduction: self.fpu_reduction,
                noise: Some((self.dirichlet_alpha, self.dirichlet_epsilon)).filter(|_| puct),
                batch: self.leaf_batch as usize,
                forced_playouts: (self.forced_playouts > 0.0)
                    .then_some(self.forced_playouts)
                    .filter(|_| puct),
                search,
                forced_through: 0,
                // Self-play searches with the network's priors as they are (play's
                // `policy_temp` is tried at equal time, not in training).
                policy_temperature: 1.0,
            },
            playouts: PlayoutCap {
                full: self.searches,
                fast: self.fast_searches,
                full_probability: self.full_search_probability,
            },
            temperature: Temperature {
                initial: 1.0,
                plies: self.temperature_plies as usize,
                linear_decay: self.temperature_decay,
            },
            max_plies: self.max_plies as usize,
            concurrent_games: self.games_per_thread as usize,
            exact_endings: self.exact_endings,
        }
    }
}

/// A game AlphaZero can train on: how the run's keys become its encoding, and the kind its
/// run states declare (so a checkers run is not resumed as another game's).
pub trait AzGame: AgentGame + ArenaGame {
    /// The kind of this build's run states (layout 2: the configuration as JSON text).
    const RUN_KIND: &'static str;
    /// The kind of run states of layout 1 (the configuration bincode-encoded by position),
    /// which are still resumed.
    const RUN_KIND_V1: &'static str;
    fn encoding(config: &TrainConfig) -> Result<Self::Encoding, ConfigError>;
}

impl AzGame for Checkers {
    const RUN_KIND: &'static str = "an AlphaZero run state, layout 2";
    const RUN_KIND_V1: &'static str = "an AlphaZero run state";

    fn encoding(config: &TrainConfig) -> Result<Encoding, ConfigError> {
        Ok(Encoding {
            history: config.history as usize,
            legal_hops: config.legal_hops,
        })
    }
}

impl AzGame for Othello {
    const RUN_KIND: &'static str = "an Othello AlphaZero run state, layout 2";
    const RUN_KIND_V1: &'static str = "an Othello AlphaZero run state";

    /// Othello's planes have no options: history and legal-hop planes are checkers' (the
    /// legal moves are a plane already).
    fn encoding(config: &TrainConfig) -> Result<(), ConfigError> {
        if config.history != 0 || config.legal_hops {
            return Err(ConfigError::Invalid(
                "history and legal_hops are checkers' input planes; othello has neither \
                 (leave them at 0 and false)"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// The key of config.json that names the run's game (absent in older runs: checkers).
const GAME_KEY: &str = "game";

/// config.json's text: the resolved keys and the game.
pub fn config_json(config: &TrainConfig, game: GameName) -> String {
    let mut value = serde_json::to_value(config).expect("plain data");
    value
        .as_object_mut()
        .expect("a struct is an object")
        .insert(
            GAME_KEY.into(),
            serde_json::Value::String(game.name().into()),
        );
    serde_json::to_string_pretty(&value).expect("plain data")
}

/// Reads config.json's text back: the game (checkers where not named) and the keys.
pub fn parse_config_json(text: &str) -> Result<(GameName, TrainConfig), ConfigError> {
    let mut value: serde_json::Value = serde_json::from_str(text)?;
    let game = match value.as_object_mut().and_then(|o| o.remove(GAME_KEY)) {
        None => GameName::Checkers,
        Some(serde_json::Value::String(name)) => name
            .parse::<GameName>()
            .map_err(|_| ConfigError::Invalid(format!("\"{GAME_KEY}\": unknown game {name:?}")))?,
        Some(other) => {
            return Err(ConfigError::Invalid(format!(
                "\"{GAME_KEY}\": expected a game name, got {other}"
            )));
        }
    };
    Ok((game, from_json_object(&value.to_string())?))
}

/// Reads a config file: a JSON object of [`ConfigOverrides`] keys.
pub fn read_config_file(path: &Path) -> Result<ConfigOverrides, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(crate::files::file_error("read", path))?;
    from_json_object(&text).map_err(|e| ConfigError::InFile {
        path: path.to_owned(),
        source: Box::new(e),
    })
}

/// Train keys (a config or its overrides) from JSON text. Only an object is a config: serde
/// would read an array's items into the keys by position.
pub fn from_json_object<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ConfigError> {
    let value: serde_json::Value = serde_json::from_str(text)?;
    let serde_json::Value::Object(mut keys) = value else {
        return Err(ConfigError::Invalid(format!(
            "{} ({KEYS_EXPECTED})",
            json_kind(&value)
        )));
    };
    // Runs from before `init` and `init_hash` were optional wrote "" for none.
    for key in ["init", "init_hash"] {
        if keys.get(key).is_some_and(|v| v == "") {
            keys.insert(key.into(), serde_json::Value::Null);
        }
    }
    Ok(serde_json::from_value(keys.into())?)
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Null => "null",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_validate_and_overrides_replace_only_what_they_set() {
        for preset in [Preset::Cpu, Preset::Gpu] {
            TrainConfig::preset(preset).validate().unwrap();
        }
        let mut c = TrainConfig::cpu();
        let o: ConfigOverrides = serde_json::from_str(
            r#"{"searches": 7, "optimizer": "sgd", "value_target": "result"}"#,
        )
        .unwrap();
        c.apply(&o);
        assert_eq!(c.searches, 7);
        assert_eq!(c.optimizer, OptimizerKind::Sgd);
        assert_eq!(c.value_target, ValueTarget::Result);
        assert_eq!(
            c.games_per_iteration,
            TrainConfig::cpu().games_per_iteration
        );
        let bad = serde_json::from_str::<ConfigOverrides>(r#"{"serches": 7}"#).unwrap_err();
        assert!(bad.to_string().contains("unknown field `serches`"), "{bad}");
        c.threshold = 1.5;
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "threshold: expected a share, a number 0-1, got \"1.5\""
        );
        c.threshold = 0.5;
        c.lr = 0.0;
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "lr: expected a number, a number more than 0, got \"0\""
        );
    }

    /// The search settings a run shares with `az` are az's declarations: the same range
    /// object, and the same default in every preset but where a preset sizes a key for its
    /// machine (the cpu preset's leaf batch).
    #[test]
    fn the_search_settings_shared_with_az_are_its_declarations() {
        use crate::agents::kinds::AZ;
        let shared = [
            "c_puct",
            "fpu_reduction",
            "leaf_batch",
            "search",
            "gumbel_considered",
            "gumbel_c_visit",
            "gumbel_c_scale",
            "mix",
            "mix_depth",
        ];
        // Keys both have that are different settings: self-play's budget and worker threads
        // against a played move's searches and a search's threads.
        let apart = ["searches", "threads"];
        let presets = [
            ("cpu", serde_json::to_value(TrainConfig::cpu()).unwrap()),
            ("gpu", serde_json::to_value(TrainConfig::gpu()).unwrap()),
        ];
        for (key, range) in RANGES {
            let Some(option) = AZ.options.iter().find(|o| o.key == *key) else {
                assert!(!shared.contains(key), "{key} is no az option");
                continue;
            };
            if apart.contains(key) {
                continue;
            }
            assert!(
                shared.contains(key),
                "{key}: az has it too; shared or apart?"
            );
            assert!(std::ptr::addr_eq(*range, option.setting), "{key}'s range");
            for (preset, values) in &presets {
                let value = values[key].to_string();
                let value = option.setting.normalise(value.trim_matches('"')).unwrap();
                if (*preset, *key) != ("cpu", "leaf_batch") {
                    assert_eq!(Some(value), option.default_text(), "{preset} {key}");
                }
            }
        }
        for key in shared {
            assert!(RANGES.iter().any(|(k, _)| *k == key), "{key} has its range");
        }
        let mut c = TrainConfig::cpu();
        c.leaf_batch = 1025;
        let e = c.validate().unwrap_err().to_string();
        assert_eq!(
            e,
            "leaf_batch: expected leaves per network call, a whole number 1-1024, got \"1025\""
        );
    }

    #[test]
    fn layout_1_states_are_read_by_layout_1_keys() {
        // Layout-1 states are bincode, read by position: the keys before `added` are frozen
        // as they were, and any key added since belongs after it.
        let layout_1 = "iterations games_per_iteration gating_games threshold gating searches \
            fast_searches full_search_probability gating_searches c_puct c_base fpu_reduction \
            forced_playouts dirichlet_alpha dirichlet_epsilon temperature_plies \
            temperature_decay max_plies replay_window replay_positions epochs batch_size lr \
            lr_decay lr_min weight_decay optimizer momentum value_target network history \
            legal_hops threads games_per_thread leaf_batch inference_batch gauntlet_every \
            gauntlet_games gauntlet_opponents saved_games seed";
        let v1 = TrainConfigV1::from(&TrainConfig::cpu());
        let keys = serde_json::to_value(&v1)
            .unwrap()
            .as_object()
            .unwrap()
            .len();
        // A struct's JSON text lists its fields in declaration order.
        let text = serde_json::to_string(&v1).unwrap();
        let at: Vec<Option<usize>> = layout_1
            .split_whitespace()
            .map(|k| text.find(&format!("\"{k}\":")))
            .collect();
        assert_eq!(keys, at.len(), "{text}");
        assert!(at.iter().all(Option::is_some), "{text}");
        assert!(at.is_sorted(), "{text}");
    }

    #[test]
    fn only_a_json_object_is_a_config() {
        let o: ConfigOverrides = from_json_object(r#"{"searches": 7}"#).unwrap();
        assert_eq!(o.searches, Some(7));
        for (text, needle) in [
            ("[2]", "an array"),
            ("[]", "an array"),
            ("7", "a number"),
            ("null", "null"),
            (r#"{"serches": 7}"#, "unknown field"),
            ("{", "EOF"),
        ] {
            let e = from_json_object::<ConfigOverrides>(text)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(needle) && e.contains("expected a JSON object"),
                "{text}: {e}"
            );
        }
    }

    /// `init` is a path or none; runs from before it was optional wrote "" for none.
    #[test]
    fn init_is_a_path_or_none() {
        let read = |text: &str| from_json_object::<TrainConfig>(text).unwrap().init;
        assert_eq!(read(r#"{"init": ""}"#), None);
        let hash = from_json_object::<TrainConfig>(r#"{"init_hash": ""}"#).unwrap();
        assert_eq!(hash.init_hash, None);
        assert_eq!(read(r#"{"init": null}"#), None);
        assert_eq!(read("{}"), None);
        assert_eq!(read(r#"{"init": "m.bin"}"#), Some(PathBuf::from("m.bin")));
        let written = serde_json::to_string(&TrainConfig::cpu()).unwrap();
        assert_eq!(
            from_json_object::<TrainConfig>(&written).unwrap().init,
            None
        );
    }

    #[test]
    fn the_learning_rate_decays_per_iteration_to_its_floor() {
        let c = TrainConfig {
            lr: 0.1,
            lr_decay: 0.5,
            lr_min: 0.02,
            ..TrainConfig::cpu()
        };
        assert_eq!(
            [c.lr_at(0), c.lr_at(1), c.lr_at(2), c.lr_at(3)],
            [0.1, 0.05, 0.025, 0.02]
        );
    }
}
