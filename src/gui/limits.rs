//! What an agent a request names may ask of the server, which runs every agent itself: the
//! longest thinking a move, the most simulations, the most threads, the largest evaluation
//! cache, the games thinking at once, and the agents kept between moves. A spec beyond them
//! is refused with the limit named, and every search but an analysis left running until Stop
//! is stopped at the time limit, whatever bounds of its own it has (a depth, a node count).
//! The memory the agents hold is bounded with them: an agent holds its cache (about 60 MB
//! for `az`'s default 131072 evaluations, filled) and its search tree (`az`'s `tree`, which
//! the server sets to its own limit where a spec leaves it out), and only the searches
//! running and the agents kept hold one.

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
    /// The most evaluations an agent may ask to keep in its cache.
    pub cache: u64,
    /// The most memory a search tree may hold, in MiB (`az`'s `tree`).
    pub tree_mb: u64,
    /// The largest transposition table an alpha-beta search may ask, in MiB (`hash`).
    pub hash_mb: u64,
    /// Games whose agents are kept between moves (search tree and cache, for the next
    /// move); the agents of games that searched less recently are let go and built again
    /// when next needed.
    pub kept_agents: usize,
}

impl Default for AgentLimits {
    fn default() -> Self {
        AgentLimits {
            move_time: Duration::from_secs(60),
            searches: 1_000_000,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            thinking: 4,
            cache: kinds::az::CACHE.default().copied().unwrap_or(0) as u64,
            tree_mb: 128,
            hash_mb: 256,
            kept_agents: 4,
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
            (
                kinds::az::CACHE.key(),
                self.cache,
                "cached evaluations an agent",
                "--max-cache",
            ),
            (
                kinds::az::TREE.key(),
                self.tree_mb,
                "MiB of search tree",
                "--max-tree-mb",
            ),
            (
                kinds::alphabeta::HASH.key(),
                self.hash_mb,
                "MiB of transposition table",
                "--max-hash-mb",
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

    /// The spec the server builds for `spec`: its own, with the tree and the cache held to
    /// the limits where it leaves their sizes out and the defaults are larger (`az`'s tree
    /// default is far larger).
    pub fn bounded(&self, spec: &AgentSpec) -> AgentSpec {
        let mut bounded = spec.clone();
        if spec.kind != kinds::AZ.kind {
            return bounded;
        }
        let (tree, cache) = (&kinds::az::TREE, &kinds::az::CACHE);
        let sizes = [
            (tree.key(), tree.default().map(|&d| d as u64), self.tree_mb),
            (cache.key(), cache.default().map(|&d| d as u64), self.cache),
        ];
        for (key, default, most) in sizes {
            if spec.get(key).is_none() && default.is_some_and(|d| d > most) {
                bounded.set(key, &most.to_string());
            }
        }
        bounded
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
            cache: 1000,
            tree_mb: 64,
            hash_mb: 32,
            kept_agents: 1,
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
        assert!(check("az:cache=1001").unwrap_err().contains("--max-cache"));
        assert!(check("az:tree=65").unwrap_err().contains("--max-tree-mb"));
        assert!(
            check("alphabeta:hash=65536")
                .unwrap_err()
                .contains("--max-hash-mb")
        );
        assert_eq!(check("alphabeta:hash=32"), Ok(()));
        let bounded = |text: &str| limits.bounded(&text.parse().unwrap()).to_string();
        assert_eq!(bounded("az:time=100"), "az:time=100,tree=64,cache=1000");
        assert_eq!(bounded("az:cache=10"), "az:cache=10,tree=64");
        assert_eq!(bounded("az:tree=8,cache=5"), "az:tree=8,cache=5");
        assert_eq!(bounded("alphabeta"), "alphabeta");
    }
}
