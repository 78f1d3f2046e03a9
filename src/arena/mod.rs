//! Games between agents: the driver, ballot openings, matches and their statistics.

pub mod driver;
pub mod openings;
pub mod series;
pub mod stats;

pub use driver::{GameConfig, play_game};
pub use openings::{OpeningSet, ballots};
pub use series::{MatchConfig, MatchReport, run_match};
pub use stats::Tally;
