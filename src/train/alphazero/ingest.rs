//! How an iteration's games arrived from self-play actors on other machines, whose games a
//! learner receives (`learner`, crate::distributed): the `ingest` object of a metrics line.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How an iteration's games arrived from actors (a line of metrics.jsonl carries it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IngestReport {
    /// Games trained on, by the actor that played them.
    pub games_by_actor: BTreeMap<String, u32>,
    /// Records refused, by reason (another game, another network, bad checksum, ...).
    pub rejected: BTreeMap<String, u32>,
    /// Records received again that the learner already held (redelivered after a restart).
    pub duplicates: u32,
    /// How many model versions (best-network iterations) behind the learner's best the games
    /// were played: mean and most.
    pub mean_staleness: f64,
    pub max_staleness: u32,
    /// Records taken in per second while the iteration waited for its games.
    pub ingest_per_s: f64,
    /// The first and last stream entry of the iteration's games.
    pub first_id: String,
    pub last_id: String,
}

impl IngestReport {
    /// One line: games by actor, their staleness, the ingest rate, what was rejected.
    pub fn summary(&self) -> String {
        let join = |m: &BTreeMap<String, u32>| {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut rejected = String::new();
        if !self.rejected.is_empty() {
            rejected += &format!(", rejected: {}", join(&self.rejected));
        }
        if self.duplicates > 0 {
            rejected += &format!(", {} redelivered and dropped", self.duplicates);
        }
        format!(
            "games from {}, {:.1} versions old (at most {}), {:.0} records/s{rejected}",
            join(&self.games_by_actor),
            self.mean_staleness,
            self.max_staleness,
            self.ingest_per_s
        )
    }
}
