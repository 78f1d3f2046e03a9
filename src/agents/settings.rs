//! The user-settable search settings and their valid values, one declaration each. Agent
//! specs (`alphabeta:time=500` on the command line, `setoption` in the engine), the engine's
//! `go` limits and the browser's form all read these, so a value gets the same verdict and
//! the same message whichever route it comes by.

use crate::mcts::{EvalSymmetry, SearchKind};
use crate::names::Named;
use crate::tensor::{DeviceChoice, Precision};
use std::fmt::{self, Display};
use std::marker::PhantomData;
use std::str::FromStr;

/// The values a setting takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Domain {
    /// Whole numbers `min..=max`.
    Whole { min: u64, max: u64 },
    /// Numbers up to `max` (infinite: no upper bound) from `min`, which `above` excludes.
    Number { min: f32, above: bool, max: f32 },
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A path to what [`PathOf`] names.
    Path(PathOf),
}

/// What a path setting names, so that a form offers the right files.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PathOf {
    /// A model file.
    Model,
    /// A folder of endgame databases (or `none`).
    Databases,
    /// An opening book (`checkers-zero book`).
    Book,
}

impl Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Domain::Whole { min, max } => write!(f, "a whole number {min}-{max}"),
            Domain::Number {
                min,
                above: true,
                max,
            } if max.is_infinite() => write!(f, "a number more than {min}"),
            Domain::Number {
                min,
                above: true,
                max,
            } => write!(f, "more than {min} and at most {max}"),
            Domain::Number { min, max, .. } if max.is_infinite() => {
                write!(f, "a number of at least {min}")
            }
            Domain::Number { min, max, .. } => write!(f, "a number {min}-{max}"),
            Domain::Choice(words) => write!(f, "one of {}", words.join(", ")),
            Domain::Path(_) => f.write_str("a file path"),
        }
    }
}

/// A type a setting's value is read as: whether a parsed value lies in the domain.
pub trait SettingValue: FromStr + Display + Clone {
    fn within(&self, domain: &Domain) -> bool;
}

macro_rules! whole_values {
    ($($t:ty),*) => {$(
        impl SettingValue for $t {
            fn within(&self, domain: &Domain) -> bool {
                match *domain {
                    Domain::Whole { min, max } => (min..=max).contains(&(*self as u64)),
                    _ => false,
                }
            }
        }
    )*};
}
whole_values!(u32, u64, usize);

impl SettingValue for f32 {
    fn within(&self, domain: &Domain) -> bool {
        match *domain {
            Domain::Number { min, above, max } => {
                self.is_finite() && (if above { *self > min } else { *self >= min }) && *self <= max
            }
            _ => false,
        }
    }
}

/// A path: any text but none.
impl SettingValue for String {
    fn within(&self, domain: &Domain) -> bool {
        matches!(domain, Domain::Path(_)) && !self.is_empty()
    }
}

/// One setting: what it is (for messages), its domain, and the type it is read as.
pub struct Setting<T> {
    /// E.g. "a search depth".
    pub what: &'static str,
    pub domain: Domain,
    value: PhantomData<fn() -> T>,
}

impl<T> Setting<T> {
    pub const fn new(what: &'static str, domain: Domain) -> Self {
        Setting {
            what,
            domain,
            value: PhantomData,
        }
    }
}

/// A value a setting refuses: `expected a search depth, a whole number 1-64, got "0"`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected}, got {got:?}")]
pub struct Refusal {
    expected: String,
    got: String,
}

impl<T: SettingValue> Setting<T> {
    /// The value of `text`, or why it is not one.
    pub fn parse(&self, text: &str) -> Result<T, Refusal> {
        match text.trim().parse::<T>() {
            Ok(value) if value.within(&self.domain) => Ok(value),
            _ => Err(self.refusal(text)),
        }
    }

    /// `value` if valid, for settings that come from code rather than text.
    pub fn check(&self, value: T) -> Result<T, Refusal> {
        if value.within(&self.domain) {
            Ok(value)
        } else {
            Err(self.refusal(&value.to_string()))
        }
    }

    fn refusal(&self, got: &str) -> Refusal {
        Refusal {
            expected: self.expected(),
            got: got.to_string(),
        }
    }
}

/// A setting seen without its value type: what agent option declarations hold.
pub trait Describe: Sync {
    /// What a valid value is: "a search depth, a whole number 1-64".
    fn expected(&self) -> String;
    fn domain(&self) -> Domain;
    /// The value of `text` as the program writes it ("1.50" is 1.5), or why it is none.
    fn normalise(&self, text: &str) -> Result<String, Refusal>;
}

impl<T: SettingValue> Describe for Setting<T> {
    fn expected(&self) -> String {
        format!("{}, {}", self.what, self.domain)
    }

    fn domain(&self) -> Domain {
        self.domain
    }

    fn normalise(&self, text: &str) -> Result<String, Refusal> {
        self.parse(text).map(|v| v.to_string())
    }
}

/// The deepest alpha-beta search (plies).
pub const MAX_DEPTH: u32 = 64;

const fn whole<T>(what: &'static str, min: u64, max: u64) -> Setting<T> {
    Setting::new(what, Domain::Whole { min, max })
}

const fn at_least(what: &'static str, min: f32) -> Setting<f32> {
    Setting::new(
        what,
        Domain::Number {
            min,
            above: false,
            max: f32::INFINITY,
        },
    )
}

pub static DEPTH: Setting<u32> = whole("a search depth", 1, MAX_DEPTH as u64);

/// Milliseconds per move (`time=` in specs, `movetime` in `go`).
pub static MOVETIME_MS: Setting<u64> = whole("milliseconds", 1, u64::MAX);

/// A clock's time or increment in milliseconds (`wtime`, `winc`, ... in `go`); 0 is a
/// flag about to fall, or no increment.
pub static CLOCK_MS: Setting<u64> = whole("milliseconds", 0, u64::MAX);

/// Moves until the next time control (`movestogo` in `go`).
pub static MOVES_TO_GO: Setting<u64> = whole("a number of moves", 1, u64::MAX);

/// Nodes (alpha-beta) or simulations (MCTS) per move.
pub static NODES: Setting<u64> = whole("a node count", 1, u64::MAX);

/// Alpha-beta's transposition table in MiB.
pub static HASH_MB: Setting<usize> = whole("a table size in MiB", 1, 65536);

/// The most memory a search tree may hold.
pub static TREE_MB: Setting<usize> = whole("a size in MiB", 1, 65536);

/// A king's value in men for the material evaluation.
pub static KING: Setting<f32> = Setting::new(
    "a king value in men",
    Domain::Number {
        min: 0.0,
        above: true,
        max: 100.0,
    },
);

/// How many of the best moves a search reports with their lines (MultiPV).
pub static LINES: Setting<usize> = whole("a number of lines", 1, 64);

/// MCTS simulations per move.
pub static SEARCHES: Setting<u32> = whole("a number of simulations", 1, u32::MAX as u64);

/// The UCT and PUCT exploration constants.
pub static EXPLORATION: Setting<f32> = at_least("an exploration constant", 0.0);

/// Leaves per network call. Each batch's buffers are allocated up front, so the bound keeps
/// a typo from asking for gigabytes; past a few hundred leaves virtual loss spoils the search.
pub static LEAF_BATCH: Setting<u32> = whole("leaves per network call", 1, 1024);

/// Forced moves a search plays through before it evaluates a leaf.
pub static FORCED_THROUGH: Setting<u32> = whole("forced moves", 0, 64);

/// The depth of `az`'s tactical check (0: none).
pub static CHECK_DEPTH: Setting<u32> = whole("a check depth, 0 for none", 0, 32);

crate::names::named_enum! {
    /// Which evaluation `az`'s tactical check searches with.
    #[derive(Default)]
    pub enum CheckEval {
        /// The game's own evaluation: material in checkers.
        Own = "own" (default),
        /// The game's strongest, as `endgame` and `mix` use it: its fitted patterns (checkers'
        /// with the endgame databases).
        Strongest = "strongest",
    }
}

/// `az`'s tactical check's evaluation.
pub static CHECK_EVAL: Setting<CheckEval> =
    Setting::new("an evaluation", Domain::Choice(CheckEval::NAMES));

/// How far below the best move `az`'s check lets a move score, in the check's units.
pub static CHECK_MARGIN: Setting<f32> = Setting::new(
    "men (Othello: the evaluation's units) from 0 to 10",
    Domain::Number {
        min: 0.0,
        above: false,
        max: 10.0,
    },
);

/// Where `az` hands its moves to alpha-beta: pieces left (Othello: empty squares), 0 never.
pub static ENDGAME_FROM: Setting<u32> = whole("pieces left, 0 for never", 0, 64);

/// The share of alpha-beta's judgement in `az`'s leaf values (`mix`) or root priors
/// (`check_prior`); 0: the network's alone.
pub static WEIGHT: Setting<f32> = Setting::new(
    "a weight from 0 to 1",
    Domain::Number {
        min: 0.0,
        above: false,
        max: 1.0,
    },
);

/// How much less than nothing a draw is worth to the side searching, in a search's value
/// (`az`, from -1 to 1) or in men (`alphabeta`): it plays on rather than settle for a draw.
pub static CONTEMPT_VALUE: Setting<f32> = Setting::new(
    "a value from 0 to 1",
    Domain::Number {
        min: 0.0,
        above: false,
        max: 1.0,
    },
);
pub static CONTEMPT_MEN: Setting<f32> = Setting::new(
    "men (Othello: discs) from 0 to 10",
    Domain::Number {
        min: 0.0,
        above: false,
        max: 10.0,
    },
);

/// How deep `az:mix`'s alpha-beta searches each leaf (captures are resolved beyond it).
pub static MIX_DEPTH: Setting<u32> = whole("a search depth", 0, 16);

/// First-play urgency: how far below its parent's value an unvisited move counts.
pub static FPU_REDUCTION: Setting<f32> = at_least("a value reduction", 0.0);
/// Threads a search evaluates its batches on, each with its own copy of the network.
pub static SEARCH_THREADS: Setting<usize> = whole("a number of threads", 1, 256);
pub static EVAL_CACHE: Setting<usize> = whole("positions, 0 for none", 0, 1 << 24);

/// The temperature of a move choice: 0 plays the most visited move, 1 samples in proportion
/// to visits, higher flattens further.
pub static TEMPERATURE: Setting<f32> = Setting::new(
    "a temperature",
    Domain::Number {
        min: 0.0,
        above: false,
        max: 100.0,
    },
);

/// The temperature the network's priors are raised to the inverse of.
pub static POLICY_TEMPERATURE: Setting<f32> = Setting::new(
    "a temperature",
    Domain::Number {
        min: 0.0,
        above: true,
        max: 10.0,
    },
);

/// Gumbel's root actions sampled for Sequential Halving (the paper's m).
pub static CONSIDERED: Setting<u32> = whole("a number of root actions", 1, 256);

/// Gumbel's c_visit and c_scale.
pub static GUMBEL_CONSTANT: Setting<f32> = at_least("a constant", 0.0);

/// A model or checkpoint file.
pub static MODEL: Setting<String> = Setting::new("a model file", Domain::Path(PathOf::Model));

/// An opening book file.
pub static BOOK: Setting<String> = Setting::new("a book file", Domain::Path(PathOf::Book));

/// A checkers endgame database folder, or `none`.
pub static EGDB: Setting<String> =
    Setting::new("a database folder or none", Domain::Path(PathOf::Databases));

/// Where a network computes.
pub static DEVICE: Setting<DeviceChoice> =
    Setting::new("a device", Domain::Choice(DeviceChoice::NAMES));

crate::names::named_enum! {
    /// What checkers' `alphabeta` scores at its leaves.
    #[derive(Default)]
    pub enum CheckersEvalKind {
        /// Men and kings only.
        Material = "material" (default),
        /// Material and the classic positional terms (back rank, centre, mobility, tempo,
        /// runaways, trapped kings, trading when ahead).
        Classic = "classic",
        /// Groups of squares (row pairs, files) and pieces by square, with weights fitted to
        /// the built-in network's values and then to their own search's, by stage.
        Patterns = "patterns",
    }
}

/// Checkers' alpha-beta evaluation.
pub static EVAL: Setting<CheckersEvalKind> =
    Setting::new("an evaluation", Domain::Choice(CheckersEvalKind::NAMES));

crate::names::named_enum! {
    /// What Othello's `alphabeta` scores at its leaves.
    #[derive(Default)]
    pub enum OthelloEvalKind {
        /// Mobility, frontier, corners and the squares beside them, stable edges, and the
        /// disc count near the end, weighted by hand.
        Classic = "classic" (default),
        /// Patterns of squares (edges, corners, rows, diagonals) with weights fitted to
        /// games, by stage.
        Patterns = "patterns",
    }
}

/// Othello's alpha-beta evaluation.
pub static OTHELLO_EVAL: Setting<OthelloEvalKind> =
    Setting::new("an evaluation", Domain::Choice(OthelloEvalKind::NAMES));

crate::names::named_enum! {
    /// How `az` spends its time per move.
    #[derive(Default)]
    pub enum TimeUse {
        /// Every move searches for its whole time.
        Fixed = "fixed" (default),
        /// The time is a game's mean per move: settled moves stop early, and close ones
        /// (and the moves before an exact solver takes over) search on with what they saved.
        Managed = "managed",
    }
}

/// How `az`'s network computes on a GPU.
pub static PRECISION: Setting<Precision> =
    Setting::new("a precision", Domain::Choice(Precision::NAMES));

/// How `az` spends its time.
pub static TIME_USE: Setting<TimeUse> =
    Setting::new("a way to spend the time", Domain::Choice(TimeUse::NAMES));

/// How `az` shows positions to its network.
pub static EVAL_SYMMETRY: Setting<EvalSymmetry> = Setting::new(
    "a use of the board's symmetries",
    Domain::Choice(EvalSymmetry::NAMES),
);

/// Which tree search `az` runs.
pub static SEARCH: Setting<SearchKind> =
    Setting::new("a search", Domain::Choice(SearchKind::NAMES));

/// Any enum chosen by name is a [`Domain::Choice`] of its names.
impl<T: Named + FromStr + Display> SettingValue for T {
    fn within(&self, domain: &Domain) -> bool {
        matches!(domain, Domain::Choice(words) if words.contains(&self.name()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_parsed_and_checked_alike() {
        assert_eq!(DEPTH.parse(" 64 "), Ok(64));
        for bad in ["0", "65", "-1", "x", "", "1.5"] {
            let e = DEPTH.parse(bad).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("expected a search depth, a whole number 1-64, got {bad:?}")
            );
        }
        assert_eq!(DEPTH.check(0), DEPTH.parse("0"));
        assert_eq!(MOVETIME_MS.parse("18446744073709551615"), Ok(u64::MAX));
        assert!(MOVETIME_MS.parse("18446744073709551616").is_err());
        assert!(MOVETIME_MS.parse("0").is_err() && NODES.parse("0").is_err());
        assert!(HASH_MB.parse("65536").is_ok() && HASH_MB.parse("65537").is_err());
        for bad in ["0", "-1", "NaN", "inf", "100.5"] {
            assert!(KING.parse(bad).is_err(), "{bad}");
        }
        assert!(EXPLORATION.parse("0").is_ok() && EXPLORATION.parse("NaN").is_err());
        assert!(LEAF_BATCH.parse("1024").is_ok() && LEAF_BATCH.parse("1025").is_err());
        assert!(SEARCHES.parse("0").is_err());
        assert!(TEMPERATURE.parse("0").is_ok() && TEMPERATURE.parse("-0.5").is_err());
        assert!(CONSIDERED.parse("16").is_ok() && CONSIDERED.parse("0").is_err());
        assert!(GUMBEL_CONSTANT.parse("0").is_ok() && GUMBEL_CONSTANT.parse("-1").is_err());
        assert_eq!(
            KING.parse("0").unwrap_err().to_string(),
            "expected a king value in men, more than 0 and at most 100, got \"0\""
        );
        assert_eq!(SEARCH.parse(" Gumbel"), Ok(SearchKind::Gumbel));
        assert_eq!(DEVICE.parse("cpu"), Ok(DeviceChoice::Cpu));
        assert!(SEARCH.parse("mcts").is_err() && MODEL.parse("").is_err());
        assert_eq!(KING.normalise("1.50"), Ok("1.5".to_string()));
    }
}
