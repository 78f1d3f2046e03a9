//! Every agent kind, declared once: its options with their values, defaults and help. The
//! command line's help, spec parsing and printing (an agent's name), the engine's
//! `setoption`, the browser's form (served by `GET /api/info`) and validation all read
//! these declarations.

use super::error::{AgentError, setting_error};
use super::settings::{self, Describe, Domain, PathOf, Setting, SettingValue};
use serde_json::{Value, json};
use std::fmt::Display;
use std::time::Duration;

/// One option of an agent kind.
#[derive(Clone, Copy)]
pub struct AgentOption {
    pub key: &'static str,
    /// A short label (the browser's form).
    pub label: &'static str,
    /// What it does, for help lines.
    pub help: &'static str,
    /// Its values.
    pub setting: &'static dyn Describe,
    /// The value a spec that leaves it out gets (the typed value of its [`Opt`]).
    pub default: Option<&'static (dyn Display + Sync)>,
    /// Older spellings of the key, still accepted (a spec's key is rewritten to `key`).
    pub aliases: &'static [&'static str],
    /// What leaving it out means where there is no default value.
    pub unset: &'static str,
    /// Whether it changes how the agent plays, and so belongs in the agent's name (`device`
    /// does not: both devices compute the same network).
    pub plays: bool,
    /// The option applies only when another option has this value (Gumbel's constants with
    /// `search=gumbel`).
    pub only_with: Option<(&'static str, &'static str)>,
    /// One of a search's limits (depth, time, nodes): its default applies only when no
    /// limit is given.
    pub limit: bool,
}

/// An agent kind: `alphabeta`, `az`, ...
pub struct AgentKind {
    pub kind: &'static str,
    /// What the browser calls it.
    pub label: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    pub options: &'static [AgentOption],
}

impl AgentKind {
    /// The option called `key` or, by an older spelling, one of its aliases.
    pub fn option(&self, key: &str) -> Option<&'static AgentOption> {
        self.options
            .iter()
            .find(|o| o.key == key || o.aliases.contains(&key))
    }

    /// Whether the kind has the option `opt` (its key, with the same setting and default).
    pub fn declares<T>(&self, opt: &Opt<T>) -> bool {
        self.option(opt.key()).is_some_and(|o| {
            std::ptr::addr_eq(o.setting, opt.decl.setting)
                && o.default_text() == opt.decl.default_text()
        })
    }

    /// The help line: the summary, then each option with its values and default.
    pub fn help(&self) -> String {
        if self.options.is_empty() {
            return format!("{} (no options)", self.summary);
        }
        let options: Vec<String> = self.options.iter().map(AgentOption::help_item).collect();
        format!("{}: {}", self.summary, options.join(", "))
    }

    /// The kind and its options as the browser's form wants them.
    pub fn describe(&self) -> Value {
        let options: Vec<Value> = self
            .options
            .iter()
            .map(|o| {
                let domain = match o.setting.domain() {
                    Domain::Whole { min, max } => {
                        json!({"type": "whole", "min": min, "max": max})
                    }
                    Domain::Number { min, max, .. } => json!({
                        "type": "number",
                        "min": min,
                        "max": if max.is_finite() { json!(max) } else { Value::Null },
                    }),
                    Domain::Choice(words) => json!({"type": "choice", "choices": words}),
                    Domain::Path(of) => json!({
                        "type": "path",
                        "of": match of {
                            PathOf::Model => "model",
                            PathOf::Databases => "databases",
                            PathOf::Book => "book",
                        },
                    }),
                };
                json!({
                    "key": o.key,
                    "limit": o.limit,
                    "label": o.label,
                    "help": o.help,
                    "expected": o.setting.expected(),
                    "default": o.default_text(),
                    "unset": o.unset,
                    "only_with": o.only_with.map(|(k, v)| json!({"key": k, "value": v})),
                    "domain": domain,
                })
            })
            .collect();
        json!({
            "kind": self.kind,
            "label": self.label,
            "help": self.help(),
            "options": options,
        })
    }

    /// The agent's name: the spec, in declaration order, of every value that changes play
    /// and differs from its default (`values` holds each option's value, `None` for unset).
    /// Printed names parse back to the same agent.
    pub fn name(&self, values: &[(&str, Option<String>)]) -> String {
        let mut name = self.kind.to_string();
        let mut first = true;
        for option in self.options.iter().filter(|o| o.plays) {
            let Some(Some(value)) = values.iter().find(|(k, _)| *k == option.key).map(|v| &v.1)
            else {
                continue;
            };
            let value = option
                .setting
                .normalise(value)
                .unwrap_or_else(|_| value.clone());
            let default = option.default_text();
            let set = |key: &str| values.iter().any(|(k, v)| *k == key && v.is_some());
            let inactive = option.only_with.is_some_and(|(key, on)| {
                !values
                    .iter()
                    .any(|(k, v)| *k == key && v.as_deref() == Some(on))
            });
            // A limit at its default is the default only while it is the one limit given.
            let other_limit = option.limit
                && self
                    .options
                    .iter()
                    .any(|o| o.limit && o.key != option.key && set(o.key));
            if inactive || (default.as_deref() == Some(value.as_str()) && !other_limit) {
                continue;
            }
            name.push(if first { ':' } else { ',' });
            first = false;
            name.push_str(&format!("{}={value}", option.key));
        }
        name
    }
}

impl AgentOption {
    /// The default as a spec writes it.
    pub fn default_text(&self) -> Option<String> {
        self.default.map(|d| d.to_string())
    }

    /// `searches=N (simulations per move: a whole number 1-4294967295; default 200)`.
    pub fn help_item(&self) -> String {
        let placeholder = match self.setting.domain() {
            Domain::Whole { .. } => "N".to_string(),
            Domain::Number { .. } => "X".to_string(),
            Domain::Choice(words) => words.join("|"),
            Domain::Path(_) => "PATH".to_string(),
        };
        let default = match self.default_text() {
            Some(d) if self.limit => format!("default {d} when no other limit is given"),
            Some(d) => format!("default {d}"),
            None => format!("unset: {}", self.unset),
        };
        let only = self
            .only_with
            .map(|(k, v)| format!(", with {k}={v}"))
            .unwrap_or_default();
        let values = match self.setting.domain() {
            Domain::Choice(_) | Domain::Path(_) => String::new(),
            domain => format!(": {domain}"),
        };
        format!(
            "{}={placeholder} ({}{values}; {default}{only})",
            self.key, self.help
        )
    }
}

/// A typed handle on one option: its declaration and the type its value is read as. Every
/// read of an option goes through its handle (`Options::value(&az::SEARCHES)`), so a
/// misspelt option does not compile and its key is written once, here.
pub struct Opt<T: 'static> {
    pub decl: AgentOption,
    setting: &'static Setting<T>,
    default: Option<&'static T>,
}

impl<T> Opt<T> {
    pub const fn key(&self) -> &'static str {
        self.decl.key
    }

    pub const fn setting(&self) -> &'static Setting<T> {
        self.setting
    }

    /// The value a spec that leaves the option out gets.
    pub const fn default(&self) -> Option<&'static T> {
        self.default
    }
}

impl<T: SettingValue + Sync> Opt<T> {
    /// An option that changes play, with no conditions; every option below is one call.
    const fn new(
        key: &'static str,
        label: &'static str,
        help: &'static str,
        setting: &'static Setting<T>,
        default: Option<&'static T>,
        unset: &'static str,
    ) -> Self {
        let shown: Option<&'static (dyn Display + Sync)> = match default {
            Some(d) => Some(d),
            None => None,
        };
        Opt {
            decl: AgentOption {
                key,
                label,
                help,
                setting,
                default: shown,
                aliases: &[],
                unset,
                plays: true,
                only_with: None,
                limit: false,
            },
            setting,
            default,
        }
    }

    /// The same option, still accepted under the older keys `aliases`.
    const fn aliased(self, aliases: &'static [&'static str]) -> Self {
        Opt {
            decl: AgentOption {
                aliases,
                ..self.decl
            },
            ..self
        }
    }

    /// The same option applying only with `search=gumbel`.
    const fn gumbel(self) -> Self {
        Opt {
            decl: AgentOption {
                only_with: Some((az::SEARCH.decl.key, "gumbel")),
                ..self.decl
            },
            ..self
        }
    }

    /// The same option as one of a search's limits.
    const fn limit(self) -> Self {
        Opt {
            decl: AgentOption {
                limit: true,
                ..self.decl
            },
            ..self
        }
    }

    /// The same option, left out of the agent's name (it does not change play).
    const fn not_playing(self) -> Self {
        Opt {
            decl: AgentOption {
                plays: false,
                ..self.decl
            },
            ..self
        }
    }

    /// `value` if the setting takes it, else the error a spec giving it to `kind` gets
    /// (for values that come from code).
    pub fn check(&self, kind: &AgentKind, value: T) -> Result<T, AgentError> {
        self.setting
            .check(value)
            .map_err(|e| setting_error(kind.kind, self.key(), e))
    }

    /// The option's entry in an agent's name ([`AgentKind::name`]): its key and value.
    pub fn with(&self, value: Option<impl Display>) -> (&'static str, Option<String>) {
        (self.key(), value.map(|v| v.to_string()))
    }
}

/// A time per move as `time=` writes it, in milliseconds.
pub fn millis(t: Duration) -> u64 {
    t.as_millis().try_into().unwrap_or(u64::MAX)
}

/// The options of `mcts`.
pub mod mcts {
    use super::{Opt, settings};

    pub const SEARCHES: Opt<u32> = Opt::new(
        "searches",
        "Searches per move",
        "simulations per move",
        &settings::SEARCHES,
        Some(&1000),
        "",
    );
    pub const C: Opt<f32> = Opt::new(
        "c",
        "Exploration c",
        "UCT's exploration constant",
        &settings::EXPLORATION,
        Some(&1.41),
        "",
    );
}

/// The options of `az`.
pub mod az {
    use super::Opt;
    use super::settings::{self, CheckEval};
    use crate::mcts::{EvalSymmetry, SearchKind};
    use crate::tensor::{DeviceChoice, Precision};

    pub const MODEL: Opt<String> = Opt::new(
        "model",
        "Model",
        "a model file from `train`",
        &settings::MODEL,
        None,
        "the built-in network",
    );
    pub const SEARCHES: Opt<u32> = Opt::new(
        "searches",
        "Searches per move",
        "simulations per move",
        &settings::SEARCHES,
        Some(&200),
        "",
    );
    pub const TIME: Opt<u64> = Opt::new(
        "time",
        "Time per move (ms)",
        "milliseconds per move, searching until then",
        &settings::MOVETIME_MS,
        None,
        "searches bound the move",
    );
    pub const SPEND: Opt<settings::TimeUse> = Opt::new(
        "spend",
        "Time use",
        "fixed: every move searches its time; managed: the time is a game's mean per move, \
         settled moves stop early and close ones (and the moves before an exact solver) \
         search on with what they saved",
        &settings::TIME_USE,
        Some(&settings::TimeUse::Fixed),
        "",
    );
    pub const LEAF_BATCH: Opt<u32> = Opt::new(
        "leaf_batch",
        "Leaves per network call",
        "leaves a search gathers (under virtual loss) per network call",
        &settings::LEAF_BATCH,
        Some(&8),
        "",
    )
    .aliased(&["batch"]);
    pub const FORCED: Opt<u32> = Opt::new(
        "forced",
        "Forced moves played through",
        "forced moves (a leaf with one legal move: a capture that must be made) played \
         through before the network judges a leaf, up to this many in a row (0: none)",
        &settings::FORCED_THROUGH,
        Some(&64),
        "",
    );
    pub const CHECK: Opt<u32> = Opt::new(
        "check",
        "Tactical check depth",
        "before searching, alpha-beta scores every move to this depth with check_eval's \
         evaluation, and the most visited move is played only if it scores within \
         check_margin of the best; otherwise the most visited of those that do (0: no check)",
        &settings::CHECK_DEPTH,
        None,
        "the game's: 10 for checkers, none for Othello",
    );
    pub const CHECK_EVAL: Opt<CheckEval> = Opt::new(
        "check_eval",
        "Tactical check evaluation",
        "what the check's alpha-beta scores with: own, the game's own evaluation (checkers: \
         material); strongest, its strongest (its fitted patterns; checkers' with the \
         endgame databases)",
        &settings::CHECK_EVAL,
        None,
        "the game's: strongest for checkers, own for Othello",
    );
    pub const CHECK_MARGIN: Opt<f32> = Opt::new(
        "check_margin",
        "Tactical check margin (men)",
        "how far below the best checked move a move may score and still be played, in men \
         (Othello: the check's evaluation units): a sacrifice the network wants within it \
         stays playable",
        &settings::CHECK_MARGIN,
        Some(&1.0),
        "",
    );
    pub const CHECK_PRIOR: Opt<f32> = Opt::new(
        "check_prior",
        "Tactical check's share of root priors",
        "this share of each root move's prior comes from the check's scores (a distribution \
         falling by a factor of e every quarter of a man below the best move), the rest from \
         the network, so the search looks first at the moves alpha-beta rates best (0: the \
         network's priors alone; needs a check)",
        &settings::WEIGHT,
        Some(&0.0),
        "",
    );
    pub const ENDGAME: Opt<u32> = Opt::new(
        "endgame",
        "Alpha-beta in endings from",
        "with this many pieces left or fewer (Othello: empty squares), the game's alpha-beta \
         with its strongest evaluation chooses the move instead of the network's search \
         (its fitted patterns; checkers' with the endgame databases), in the same time \
         (0: never)",
        &settings::ENDGAME_FROM,
        None,
        "the game's: 10 pieces for checkers, never for Othello",
    );
    pub const BOOK: Opt<String> = Opt::new(
        "book",
        "Opening book",
        "an opening book from `checkers-zero book`: in a position it holds, its move is played \
         at once (after the tactical check, where there is one) instead of a search; greedy \
         play only (temperature 0)",
        &settings::BOOK,
        None,
        "no book: every move searched",
    );
    pub const MIX: Opt<f32> = Opt::new(
        "mix",
        "Alpha-beta's weight in leaf values",
        "each leaf's value is this much the game's alpha-beta with its strongest evaluation \
         (its fitted patterns; checkers' with the endgame databases), searched mix_depth plies, and the rest the network's (0: the network's alone)",
        &settings::WEIGHT,
        Some(&0.0),
        "",
    );
    pub const CONTEMPT: Opt<f32> = Opt::new(
        "contempt",
        "Contempt for draws",
        "a draw counts as this much less than nothing for the side searching (its search's \
         values run from -1, lost, to 1, won), so it plays on in positions it judges level \
         rather than settle into a draw; endgame's alpha-beta gets the same contempt in its \
         own units (0: a draw is worth nothing either way)",
        &settings::CONTEMPT_VALUE,
        Some(&0.0),
        "",
    );
    pub const MIX_DEPTH: Opt<u32> = Opt::new(
        "mix_depth",
        "Alpha-beta's depth at leaves",
        "how many plies mix's alpha-beta searches below each leaf, captures resolved beyond",
        &settings::MIX_DEPTH,
        Some(&2),
        "",
    );
    pub const SYMMETRIES: Opt<EvalSymmetry> = Opt::new(
        "symmetries",
        "Board symmetries",
        "off: the network sees each position as it is; random: turned or reflected by one of \
         the board's symmetries that keep the start position, drawn per position; mean: by \
         each of them, the answers averaged (that many network inputs a position; Othello has \
         four, checkers only the identity)",
        &settings::EVAL_SYMMETRY,
        Some(&EvalSymmetry::Off),
        "",
    );
    pub const THREADS: Opt<usize> = Opt::new(
        "threads",
        "Threads",
        "threads evaluating leaves for one search, each with its own copy of the network and \
         one core (more batches of leaves in flight at once)",
        &settings::SEARCH_THREADS,
        Some(&1),
        "",
    );
    pub const CACHE: Opt<usize> = Opt::new(
        "cache",
        "Evaluation cache",
        "evaluations kept for positions the search meets again, 0 for none",
        &settings::EVAL_CACHE,
        Some(&131072),
        "",
    );
    pub const TREE: Opt<usize> = Opt::new(
        "tree",
        "Tree memory (MiB)",
        "the most memory the search tree may hold: a search that fills it chooses its move \
         there",
        &settings::TREE_MB,
        Some(&2048),
        "",
    )
    .not_playing();
    pub const DEVICE: Opt<DeviceChoice> = Opt::new(
        "device",
        "Device",
        "where the network computes",
        &settings::DEVICE,
        Some(&DeviceChoice::Auto),
        "",
    )
    .not_playing();
    pub const PRECISION: Opt<Precision> = Opt::new(
        "precision",
        "Precision",
        "strict (f32 throughout) or mixed (f32 sums of products of rounded operands: on a \
         GPU its tensor cores' f16, one setting for the whole process; on a CPU with AMX its \
         tiles' bf16, for this agent alone)",
        &settings::PRECISION,
        Some(&Precision::Strict),
        "",
    );
    pub const C_PUCT: Opt<f32> = Opt::new(
        "c_puct",
        "Exploration c_puct",
        "PUCT's exploration constant",
        &settings::EXPLORATION,
        Some(&1.25),
        "",
    );
    pub const FPU_REDUCTION: Opt<f32> = Opt::new(
        "fpu_reduction",
        "First-play urgency reduction",
        "unvisited moves count as their parent's value less this",
        &settings::FPU_REDUCTION,
        Some(&0.25),
        "",
    );
    pub const POLICY_TEMPERATURE: Opt<f32> = Opt::new(
        "policy_temp",
        "Policy temperature",
        "each position's priors raised to 1/T and normalised (lc0's policy softmax \
         temperature): above 1 the search tries more of the moves the network rates low",
        &settings::POLICY_TEMPERATURE,
        None,
        "the game's: 1.5 for checkers, 1 (the priors as they are) for Othello",
    );
    pub const TEMPERATURE: Opt<f32> = Opt::new(
        "temperature",
        "Temperature (0: best move)",
        "0 plays the most visited move, 1 samples moves by visits",
        &settings::TEMPERATURE,
        Some(&0.0),
        "",
    );
    pub const SEARCH: Opt<SearchKind> = Opt::new(
        "search",
        "Search",
        "PUCT or Gumbel AlphaZero's search",
        &settings::SEARCH,
        Some(&SearchKind::Puct),
        "",
    );
    pub const GUMBEL_CONSIDERED: Opt<u32> = Opt::new(
        "gumbel_considered",
        "Root actions considered",
        "Gumbel's root actions sampled for Sequential Halving (the paper's m)",
        &settings::CONSIDERED,
        Some(&16),
        "",
    )
    .gumbel()
    .aliased(&["considered"]);
    pub const GUMBEL_C_VISIT: Opt<f32> = Opt::new(
        "gumbel_c_visit",
        "c_visit",
        "Gumbel's c_visit",
        &settings::GUMBEL_CONSTANT,
        Some(&50.0),
        "",
    )
    .gumbel()
    .aliased(&["c_visit"]);
    pub const GUMBEL_C_SCALE: Opt<f32> = Opt::new(
        "gumbel_c_scale",
        "c_scale",
        "Gumbel's c_scale",
        &settings::GUMBEL_CONSTANT,
        Some(&1.0),
        "",
    )
    .gumbel()
    .aliased(&["c_scale"]);
}

/// Checkers' endgame databases, an option of `az` and checkers' `alphabeta` (for other
/// games' agents, an error that says so).
pub const EGDB: Opt<String> = Opt::new(
    "egdb",
    "Endgame databases",
    "a folder egdb build made, or none; exact values and perfect moves where few pieces are left",
    &settings::EGDB,
    None,
    "the folder $CHECKERS_ZERO_EGDB, else ~/.local/share/checkers-zero/egdb, when present",
);

/// The limits of an alpha-beta search: the first reached stops it, and the depth's
/// default applies when none is given.
pub struct LimitOptions {
    pub depth: Opt<u32>,
    pub time: Opt<u64>,
    pub nodes: Opt<u64>,
}

impl LimitOptions {
    const fn new(default_depth: &'static u32) -> Self {
        LimitOptions {
            depth: Opt::new(
                "depth",
                "Depth (plies)",
                "plies to search",
                &settings::DEPTH,
                Some(default_depth),
                "",
            )
            .limit(),
            time: Opt::new(
                "time",
                "Time per move (ms)",
                "milliseconds per move",
                &settings::MOVETIME_MS,
                None,
                "no time limit",
            )
            .limit(),
            nodes: Opt::new(
                "nodes",
                "Nodes",
                "nodes per move",
                &settings::NODES,
                None,
                "no node limit",
            )
            .limit(),
        }
    }
}

/// The options of both games' `alphabeta`.
pub mod alphabeta {
    use super::{LimitOptions, Opt, settings};
    use crate::agents::settings::{CheckersEvalKind, OthelloEvalKind};

    /// Checkers' depth costs about a thousand nodes a move in the opening.
    pub const CHECKERS_LIMITS: LimitOptions = LimitOptions::new(&6);

    /// Othello has more moves a ply than checkers (where captures are often forced), so its
    /// default searches less deeply for a like cost: depth 4 takes a few hundred nodes a move
    /// in the opening.
    pub const OTHELLO_LIMITS: LimitOptions = LimitOptions::new(&4);

    pub const HASH: Opt<usize> = Opt::new(
        "hash",
        "Hash table (MB)",
        "transposition table in MiB",
        &settings::HASH_MB,
        Some(&16),
        "",
    );

    pub const CONTEMPT: Opt<f32> = Opt::new(
        "contempt",
        "Contempt for draws (men)",
        "a draw scores this many men below nothing for the side searching, so it plays on in \
         positions it scores level rather than settle into a draw (0: a draw scores nothing)",
        &settings::CONTEMPT_MEN,
        Some(&0.0),
        "",
    );

    /// Checkers' only.
    pub const EVAL: Opt<CheckersEvalKind> = Opt::new(
        "eval",
        "Evaluation",
        "material (men and kings); classic: material with a guarded back rank, the \
         centre, mobility, tempo, runaway men, trapped kings and trading when ahead; or \
         patterns: row pairs, files and pieces by square with weights fitted to the \
         built-in network's values, then to their own search's",
        &settings::EVAL,
        Some(&CheckersEvalKind::Material),
        "",
    );

    /// Othello's.
    pub const OTHELLO_EVAL: Opt<OthelloEvalKind> = Opt::new(
        "eval",
        "Evaluation",
        "classic: mobility, frontier, corners, stable edges and the late disc count, by hand; \
         or patterns: edges, corners, rows and diagonals with weights fitted to games",
        &settings::OTHELLO_EVAL,
        Some(&OthelloEvalKind::Classic),
        "",
    );

    /// Checkers' only.
    pub const KING: Opt<f32> = Opt::new(
        "king",
        "King value (men)",
        "a king's value in men",
        &settings::KING,
        Some(&1.5),
        "",
    );
}

/// The options of the learned agents (`td`, `ga`, `pso`: a value network at alpha-beta's
/// leaves).
pub mod learned {
    use super::{Opt, settings};

    pub const MODEL: Opt<String> = Opt::new(
        "model",
        "Model",
        "a checkpoint written by train-td, train-ga or train-pso",
        &settings::MODEL,
        None,
        "required",
    );
    pub const DEPTH: Opt<u32> = Opt::new(
        "depth",
        "Depth (plies)",
        "plies of alpha-beta above the network",
        &settings::DEPTH,
        Some(&1),
        "",
    );
}

pub static RANDOM: AgentKind = AgentKind {
    kind: "random",
    label: "Random mover",
    summary: "uniform over legal moves",
    options: &[],
};

pub static MCTS: AgentKind = AgentKind {
    kind: "mcts",
    label: "MCTS (random rollouts)",
    summary: "UCT with random rollouts",
    options: &[mcts::SEARCHES.decl, mcts::C.decl],
};

pub static AZ: AgentKind = AgentKind {
    kind: "az",
    label: "AlphaZero network (az)",
    summary: "AlphaZero search with a trained network",
    options: &[
        az::MODEL.decl,
        az::SEARCHES.decl,
        az::TIME.decl,
        az::SPEND.decl,
        az::LEAF_BATCH.decl,
        az::FORCED.decl,
        az::CHECK.decl,
        az::CHECK_EVAL.decl,
        az::CHECK_MARGIN.decl,
        az::CHECK_PRIOR.decl,
        az::ENDGAME.decl,
        az::BOOK.decl,
        az::MIX.decl,
        az::MIX_DEPTH.decl,
        az::CONTEMPT.decl,
        az::SYMMETRIES.decl,
        az::THREADS.decl,
        az::CACHE.decl,
        az::TREE.decl,
        az::DEVICE.decl,
        az::PRECISION.decl,
        az::C_PUCT.decl,
        az::FPU_REDUCTION.decl,
        az::POLICY_TEMPERATURE.decl,
        az::TEMPERATURE.decl,
        az::SEARCH.decl,
        az::GUMBEL_CONSIDERED.decl,
        az::GUMBEL_C_VISIT.decl,
        az::GUMBEL_C_SCALE.decl,
        EGDB.decl,
    ],
};

pub static CHECKERS_ALPHABETA: AgentKind = AgentKind {
    kind: "alphabeta",
    label: "Alpha-beta",
    summary: "negamax alpha-beta on material (or the classic positional terms, or \
              fitted patterns), stopping at the first limit reached",
    options: &[
        alphabeta::CHECKERS_LIMITS.depth.decl,
        alphabeta::CHECKERS_LIMITS.time.decl,
        alphabeta::CHECKERS_LIMITS.nodes.decl,
        alphabeta::EVAL.decl,
        alphabeta::KING.decl,
        alphabeta::HASH.decl,
        alphabeta::CONTEMPT.decl,
        EGDB.decl,
    ],
};

pub static OTHELLO_ALPHABETA: AgentKind = AgentKind {
    kind: "alphabeta",
    label: "Alpha-beta",
    summary: "negamax alpha-beta on mobility, corners, edge stability and late disc count \
              (or fitted patterns), stopping at the first limit reached",
    options: &[
        alphabeta::OTHELLO_LIMITS.depth.decl,
        alphabeta::OTHELLO_LIMITS.time.decl,
        alphabeta::OTHELLO_LIMITS.nodes.decl,
        alphabeta::OTHELLO_EVAL.decl,
        alphabeta::HASH.decl,
        alphabeta::CONTEMPT.decl,
    ],
};

/// Every kind's declaration, of every game (one name may have a declaration per game).
const DECLARED: &[&AgentKind] = &[
    &RANDOM,
    &MCTS,
    &AZ,
    &CHECKERS_ALPHABETA,
    &OTHELLO_ALPHABETA,
    &TD,
    &GA,
    &PSO,
];

/// `key` as the kind called `kind` now spells it: an option's older spelling becomes its key.
pub fn current_key(kind: &str, key: &str) -> String {
    DECLARED
        .iter()
        .filter(|k| k.kind.eq_ignore_ascii_case(kind))
        .flat_map(|k| k.options)
        .find(|o| o.aliases.contains(&key))
        .map_or(key, |o| o.key)
        .to_string()
}

const LEARNED_OPTIONS: &[AgentOption] = &[learned::MODEL.decl, learned::DEPTH.decl];

/// A learned value network at alpha-beta's leaves: `td`, `ga`, `pso`.
const fn learned_kind(kind: &'static str, label: &'static str, summary: &'static str) -> AgentKind {
    AgentKind {
        kind,
        label,
        summary,
        options: LEARNED_OPTIONS,
    }
}

pub static TD: AgentKind = learned_kind(
    "td",
    "TD(λ) network",
    "a TD(lambda) value network at the leaves of alpha-beta",
);
pub static GA: AgentKind = learned_kind(
    "ga",
    "Evolved network (GA)",
    "a network evolved by train-ga at the leaves of alpha-beta",
);
pub static PSO: AgentKind = learned_kind(
    "pso",
    "Particle-swarm network (PSO)",
    "a network trained by train-pso at the leaves of alpha-beta",
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::spec::{AgentGame, AgentSpec};
    use crate::games::{Checkers, Othello};
    use proptest::prelude::*;

    fn all_kinds() -> Vec<&'static AgentKind> {
        Checkers::kinds().chain(Othello::kinds()).collect()
    }

    #[test]
    fn declarations_are_consistent() {
        for kind in all_kinds() {
            for o in kind.options {
                if let Some(d) = o.default_text() {
                    assert!(
                        o.setting.normalise(&d).is_ok(),
                        "{} {}: {d}",
                        kind.kind,
                        o.key
                    );
                } else {
                    assert!(
                        !o.unset.is_empty(),
                        "{} {} says what unset means",
                        kind.kind,
                        o.key
                    );
                }
                if let Some((key, value)) = o.only_with {
                    let other = kind.option(key).expect("only_with names an option");
                    assert!(other.setting.normalise(value).is_ok());
                }
                let keys = || std::iter::once(o.key).chain(o.aliases.iter().copied());
                for key in keys() {
                    let named = kind
                        .options
                        .iter()
                        .filter(|p| p.key == key || p.aliases.contains(&key));
                    assert_eq!(named.count(), 1, "{} {key}", kind.kind);
                }
            }
            assert!(kind.help().starts_with(kind.summary));
            assert!(
                DECLARED.iter().any(|d| std::ptr::eq(*d, kind)),
                "{}",
                kind.kind
            );
        }
        let help = AZ.help();
        assert!(
            help.contains(
                "leaf_batch=N (leaves a search gathers (under virtual loss) per network call: \
                 a whole number 1-1024; default 8)"
            ),
            "{help}"
        );
        assert!(help.contains("search=puct|gumbel"), "{help}");
        assert!(
            CHECKERS_ALPHABETA
                .help()
                .contains("default 6 when no other limit is given")
        );
    }

    /// What each option of `spec` resolves to: the value given, else its default (a limit's
    /// only while no other limit is given), normalised; options that do not change play or
    /// do not apply are left out.
    fn resolved(kind: &AgentKind, spec: &AgentSpec) -> Vec<(&'static str, Option<String>)> {
        let value = |o: &AgentOption| match spec.get(o.key) {
            Some(v) => Some(o.setting.normalise(v).expect("valid")),
            None if o.limit
                && kind
                    .options
                    .iter()
                    .any(|p| p.limit && spec.get(p.key).is_some()) =>
            {
                None
            }
            None => o.default_text(),
        };
        kind.options
            .iter()
            .filter(|o| o.plays)
            .filter(|o| {
                o.only_with.is_none_or(|(k, v)| {
                    let on = kind.option(k).expect("declared");
                    value(on).as_deref() == Some(v)
                })
            })
            .map(|o| (o.key, value(o)))
            .collect()
    }

    /// A valid value of `o`'s setting drawn from `pick` (a number in 0..1), kept small where
    /// a value costs memory (table sizes).
    fn draw(o: &AgentOption, pick: f64) -> Option<String> {
        Some(match o.setting.domain() {
            Domain::Whole { min, max } => {
                let top = max.min(min + 64);
                (min + ((top - min) as f64 * pick) as u64).to_string()
            }
            Domain::Number { min, above, max } => {
                let top = if max.is_finite() { max } else { min + 10.0 };
                let x = min + (top - min) * pick as f32;
                if above && x <= min {
                    top.to_string()
                } else {
                    x.to_string()
                }
            }
            Domain::Choice(words) => {
                words[(pick * words.len() as f64) as usize % words.len()].to_string()
            }
            // Models need files; the kinds that require one are left out below.
            Domain::Path(_) => return None,
        })
    }

    fn spec_of(kind: &AgentKind, picks: &[(bool, f64)]) -> AgentSpec {
        let mut spec = AgentSpec::new(kind.kind);
        // Settings that do not change play (the device: a GPU may not be there) are left out.
        for (o, &(given, pick)) in kind.options.iter().zip(picks) {
            if given
                && o.plays
                && let Some(v) = draw(o, pick)
            {
                spec.set(o.key, &v);
            }
        }
        spec
    }

    /// A proptest failure is its reason's text.
    fn failure(e: AgentError) -> TestCaseError {
        TestCaseError::fail(e.to_string())
    }

    fn round_trip<G: AgentGame>(kind: &AgentKind, spec: &AgentSpec) -> Result<(), TestCaseError> {
        // `check_prior` steers by the check's scores and is refused without a check.
        let mut spec = spec.clone();
        let check = spec
            .get("check")
            .map(|d| d.parse().expect("a whole number"));
        if kind.option("check_prior").is_some() && check.unwrap_or(G::AIDS.check) == 0 {
            spec.set("check_prior", "0");
        }
        let spec = &spec;
        let name = spec.build::<G>(1).map_err(failure)?.name();
        let again: AgentSpec = name.parse().map_err(failure)?;
        let rebuilt = again.build::<G>(1).map_err(failure)?.name();
        prop_assert_eq!(
            &rebuilt,
            &name,
            "{} names itself {}, which names itself {}",
            spec,
            name,
            rebuilt
        );
        prop_assert_eq!(
            resolved(kind, &again),
            resolved(kind, spec),
            "{} printed as {}",
            spec,
            name
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(crate::test_support::proptest_config(64))]

        /// Any valid spec prints as a name that re-parses to the same agent, and the name
        /// carries every setting that changes play.
        #[test]
        fn specs_print_and_reparse_to_the_same_agent(
            which in 0usize..16,
            picks in proptest::collection::vec((any::<bool>(), 0.0f64..1.0), 12),
        ) {
            // Kinds whose model may be left out (the built-in network).
            let playable = |k: &&AgentKind| k.option("model").is_none_or(|m| m.default.is_none() && m.unset != "required");
            let checkers: Vec<_> = Checkers::kinds().filter(playable).collect();
            let othello: Vec<_> = Othello::kinds().filter(playable).collect();
            if which % 2 == 0 {
                let kind = checkers[which / 2 % checkers.len()];
                round_trip::<Checkers>(kind, &spec_of(kind, &picks))?;
            } else {
                let kind = othello[which / 2 % othello.len()];
                round_trip::<Othello>(kind, &spec_of(kind, &picks))?;
            }
        }
    }

    #[test]
    fn names_leave_out_defaults_but_keep_what_changes_play() {
        let name = |s: &str| {
            s.parse::<AgentSpec>()
                .unwrap()
                .build::<Checkers>(1)
                .unwrap()
                .name()
        };
        assert_eq!(name("az:leaf_batch=16"), "az:leaf_batch=16");
        assert_eq!(name("az:searches=200,device=cpu,c_puct=1.250"), "az");
        assert_eq!(name("az:gumbel_considered=4"), "az");
        assert_eq!(
            name("az:search=gumbel,gumbel_considered=4"),
            "az:search=gumbel,gumbel_considered=4"
        );
        // The older spellings are read as the keys they are now.
        assert_eq!(name("az:batch=16"), "az:leaf_batch=16");
        assert_eq!(
            name("AZ:search=gumbel,considered=4,c_visit=30,c_scale=0.5,leaf_batch=2,batch=3"),
            "az:leaf_batch=3,search=gumbel,gumbel_considered=4,gumbel_c_visit=30,gumbel_c_scale=0.5"
        );
        assert_eq!(name("alphabeta"), "alphabeta");
        assert_eq!(
            name("alphabeta:time=100,depth=6"),
            "alphabeta:depth=6,time=100"
        );
        assert_eq!(
            name("alphabeta:king=1.50,hash=32,time=5"),
            "alphabeta:time=5,hash=32"
        );
        assert_eq!(name("alphabeta:king=2.50"), "alphabeta:king=2.5");
        assert_eq!(name("mcts:c=1.41"), "mcts");
    }
}
