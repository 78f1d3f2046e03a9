//! What an agent a request names may ask of the server, which runs every agent itself: the
//! longest thinking a move, the most simulations, the most threads, the games thinking at
//! once. A spec beyond them is refused with the limit named, and every search but an
//! analysis left running until Stop is stopped at the time limit, whatever bounds of its own
//! it has (a depth, a node count).

use crate::agents::AgentSpec;
use crate::agents::kinds;
use std::time::Duration;

/// The server's limits on agents (`gui --max-move-ms`, `--max-searches`, `--max-threads`,
/// `--max-thinking`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AgentLimits {
    /// The longest a search may think about one move.
    pub move_time: Duration,
    /// The most simulations a search may ask for a move.
    pub searches: u64,
    /// The most threads one search may use.
    pub threads: usize,
    /// Searches running at once, over all games; the others wait their turn.
    pub thinking: usize,
}

impl Default for AgentLimits {
    fn default() -> Self {
        AgentLimits {
            move_time: Duration::from_secs(60),
            searches: 1_000_000,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            thinking: 4,
        }
    }
}

impl AgentLimits {
    /// `Err` with the limit it passes and the flag that sets it, for a spec that asks more.
    pub fn check(&self, spec: &AgentSpec) -> Result<(), String> {
        let asked = |key: &str| spec.get(key).and_then(|v| v.parse::<u64>().ok());
        let bounds = [
            (
                kinds::az::TIME.key(),
                self.move_time.as_millis() as u64,
                "ms of thinking a move",
                "--max-move-ms",
            ),
            (
                kinds::az::SEARCHES.key(),
                self.searches,
                "simulations a move",
                "--max-searches",
            ),
            (
                kinds::az::THREADS.key(),
                self.threads as u64,
                "threads a search",
                "--max-threads",
            ),
        ];
        for (key, most, what, flag) in bounds {
            if let Some(n) = asked(key).filter(|&n| n > most) {
                return Err(format!(
                    "{spec}: {key}={n} is beyond this server's limit of {most} {what} (gui {flag})"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_beyond_a_limit_is_refused_naming_it() {
        let limits = AgentLimits {
            move_time: Duration::from_millis(5000),
            searches: 1000,
            threads: 2,
            thinking: 1,
        };
        let check = |text: &str| limits.check(&text.parse().unwrap());
        assert_eq!(check("az:time=5000,searches=1000,threads=2"), Ok(()));
        assert_eq!(check("alphabeta:depth=30"), Ok(()));
        assert_eq!(
            check("alphabeta:time=100000000"),
            Err(
                "alphabeta:time=100000000: time=100000000 is beyond this server's limit of \
                 5000 ms of thinking a move (gui --max-move-ms)"
                    .into()
            )
        );
        assert!(
            check("mcts:searches=1001")
                .unwrap_err()
                .contains("--max-searches")
        );
        assert!(check("az:threads=3").unwrap_err().contains("--max-threads"));
    }
}
