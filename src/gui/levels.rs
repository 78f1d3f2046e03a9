//! The named difficulty levels the first screen offers: each one the built-in network (of
//! either game) with a documented setting, weakest first (docs/gui.md, "Levels").

use serde::Serialize;

#[derive(Serialize, Debug, Clone, Copy)]
pub struct Level {
    pub name: &'static str,
    /// The agent spec it stands for.
    pub spec: &'static str,
    pub about: &'static str,
}

/// The levels; the page starts on [`DEFAULT_LEVEL`].
pub const LEVELS: [Level; 4] = [
    Level {
        name: "Beginner",
        spec: "az:searches=4,temperature=1,check=0,endgame=0",
        about: "the network's instinct after 4 simulations, picking among the moves it likes",
    },
    Level {
        name: "Casual",
        spec: "az:searches=32,temperature=0.5,check=0,endgame=0",
        about: "32 simulations a move, now and then not the best move",
    },
    Level {
        name: "Club",
        spec: "az:searches=200",
        about: "200 simulations a move, always its best move (checkers: with alpha-beta's \
                tactical check and its play in endings)",
    },
    Level {
        name: "Strong",
        spec: "az:time=2000",
        about: "two seconds of search a move (checkers: with alpha-beta's tactical check \
                and its play in endings)",
    },
];

/// The level a new visitor plays.
pub const DEFAULT_LEVEL: usize = 1;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::AgentSpec;
    use crate::games::{Checkers, Othello};

    #[test]
    fn every_level_builds_for_both_games() {
        for level in LEVELS {
            let spec: AgentSpec = level.spec.parse().unwrap();
            spec.build::<Checkers>(1).unwrap();
            spec.build::<Othello>(1).unwrap();
        }
    }
}
