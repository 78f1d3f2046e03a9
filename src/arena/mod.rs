//! Games between agents: the driver, ballot openings, matches, gauntlets, tournaments,
//! statistics, Elo; and the endgame quiz (moves judged by the databases).

pub mod book;
pub mod driver;
pub mod elo;
pub mod gauntlet;
pub mod journal;
pub mod openings;
mod progress;
pub mod quiz;
pub mod series;
pub mod stats;
pub mod tournament;

pub use driver::{GameConfig, play_game};
pub use gauntlet::{
    DEFAULT_OPPONENTS, GauntletConfig, GauntletRecord, GauntletReport, GauntletRow, run_gauntlet,
};
pub use journal::{journal_games, journal_status, run_match_journaled};
pub use openings::{ArenaGame, OpeningSet, ballots};
pub use series::{MatchConfig, MatchReport, Series, run_match};
pub use stats::Tally;
pub use tournament::{TournamentConfig, TournamentReport, run_tournament};
