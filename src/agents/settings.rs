//! The user-settable search settings and their valid values, one parser each. Agent specs
//! (`alphabeta:time=500` on the command line, `setoption` in the engine) and the engine's
//! `go` limits all parse through these, so a value gets the same verdict and the same
//! message whichever route it comes by.

use std::fmt::Display;
use std::str::FromStr;

/// One setting: what a valid value is (for messages) and the test it must pass.
pub struct Setting<T> {
    /// E.g. "a search depth, a whole number 1-64".
    pub expected: &'static str,
    valid: fn(&T) -> bool,
}

impl<T: FromStr + Display> Setting<T> {
    /// The value of `text`, or why it is not one: `expected ..., got "text"`.
    pub fn parse(&self, text: &str) -> Result<T, String> {
        match text.trim().parse::<T>() {
            Ok(value) if (self.valid)(&value) => Ok(value),
            _ => Err(self.refusal(text)),
        }
    }

    /// `value` if valid, for settings that come from code rather than text.
    pub fn check(&self, value: T) -> Result<T, String> {
        if (self.valid)(&value) {
            Ok(value)
        } else {
            Err(self.refusal(&value.to_string()))
        }
    }

    fn refusal(&self, got: &str) -> String {
        format!("expected {}, got {got:?}", self.expected)
    }
}

/// The deepest alpha-beta search (plies).
pub const MAX_DEPTH: u32 = 64;

pub const DEPTH: Setting<u32> = Setting {
    expected: "a search depth, a whole number 1-64",
    valid: |d| (1..=MAX_DEPTH).contains(d),
};

/// Milliseconds per move (`time=` in specs, `movetime` in `go`).
pub const MOVETIME_MS: Setting<u64> = Setting {
    expected: "milliseconds, a whole number 1-18446744073709551615",
    valid: |&t| t >= 1,
};

/// A clock's time or increment in milliseconds (`wtime`, `winc`, ... in `go`); 0 is a
/// flag about to fall, or no increment.
pub const CLOCK_MS: Setting<u64> = Setting {
    expected: "milliseconds, a whole number 0-18446744073709551615",
    valid: |_| true,
};

/// Moves until the next time control (`movestogo` in `go`).
pub const MOVES_TO_GO: Setting<u64> = Setting {
    expected: "a number of moves, a whole number 1-18446744073709551615",
    valid: |&n| n >= 1,
};

/// Nodes (alpha-beta) or simulations (MCTS) per move.
pub const NODES: Setting<u64> = Setting {
    expected: "a node count, a whole number 1-18446744073709551615",
    valid: |&n| n >= 1,
};

/// Alpha-beta's transposition table in MiB.
pub const HASH_MB: Setting<usize> = Setting {
    expected: "a table size in MiB, a whole number 1-65536",
    valid: |mb| (1..=65536).contains(mb),
};

/// A king's value in men for the material evaluation.
pub const KING: Setting<f32> = Setting {
    expected: "a king value in men, more than 0 and at most 100",
    valid: |&k| k.is_finite() && k > 0.0 && k <= 100.0,
};

/// MCTS simulations per move.
pub const SEARCHES: Setting<u32> = Setting {
    expected: "a number of simulations, a whole number 1-4294967295",
    valid: |&s| s >= 1,
};

/// The UCT exploration constant.
pub const EXPLORATION: Setting<f32> = Setting {
    expected: "an exploration constant, a number of at least 0",
    valid: |&c| c.is_finite() && c >= 0.0,
};

/// Leaves per network call. Each batch's buffers are allocated up front, so the bound keeps
/// a typo from asking for gigabytes; past a few hundred leaves virtual loss spoils the search.
pub const BATCH: Setting<usize> = Setting {
    expected: "leaves per network call, a whole number 1-1024",
    valid: |b| (1..=1024).contains(b),
};

/// The temperature of a move choice: 0 plays the most visited move, 1 samples in proportion
/// to visits, higher flattens further.
pub const TEMPERATURE: Setting<f32> = Setting {
    expected: "a temperature, a number 0-100",
    valid: |&t| t.is_finite() && (0.0..=100.0).contains(&t),
};

/// Gumbel's root actions sampled for Sequential Halving (the paper's m).
pub const CONSIDERED: Setting<usize> = Setting {
    expected: "a number of root actions, a whole number 1-256",
    valid: |m| (1..=256).contains(m),
};

/// Gumbel's c_visit and c_scale.
pub const GUMBEL_CONSTANT: Setting<f32> = Setting {
    expected: "a number of at least 0",
    valid: |&c| c.is_finite() && c >= 0.0,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_parsed_and_checked_alike() {
        assert_eq!(DEPTH.parse(" 64 "), Ok(64));
        for bad in ["0", "65", "-1", "x", "", "1.5"] {
            let e = DEPTH.parse(bad).unwrap_err();
            assert_eq!(
                e,
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
        assert!(BATCH.parse("1024").is_ok() && BATCH.parse("1025").is_err());
        assert!(SEARCHES.parse("0").is_err());
        assert!(TEMPERATURE.parse("0").is_ok() && TEMPERATURE.parse("-0.5").is_err());
        assert!(CONSIDERED.parse("16").is_ok() && CONSIDERED.parse("0").is_err());
        assert!(GUMBEL_CONSTANT.parse("0").is_ok() && GUMBEL_CONSTANT.parse("-1").is_err());
    }
}
