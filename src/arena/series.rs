//! A match: two agents over many games, colours alternating, each opening from both sides.

use super::driver::{GameConfig, play_game};
use super::openings::{ArenaGame, OpeningSet};
use super::progress::Progress;
use super::stats::Tally;
use crate::agents::{Agent, AgentError, Decision, Limits, Listener, Player};
use crate::games::{Checkers, Color, Game, Rules};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How each series of games between two agents is played (a match, each pair of a
/// tournament, each opponent of a gauntlet).
#[derive(Clone, Copy, Debug)]
pub struct Series {
    /// Games to play; `None` plays every opening twice (once from each side).
    pub games: Option<usize>,
    pub openings: OpeningSet,
    pub seed: u64,
    pub game: GameConfig,
    /// Show progress on stderr: a bar on a terminal, a line a minute in a log.
    pub progress: bool,
}

impl Series {
    /// The same settings with a seed of its own for the `k`-th series of a larger event, so
    /// two series between equal specs do not replay each other.
    pub fn nth(&self, k: u64) -> Series {
        Series {
            seed: self.seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            ..*self
        }
    }
}

#[derive(Clone, Debug)]
pub struct MatchConfig<G: Rules = Checkers> {
    pub first: Player<G>,
    pub second: Player<G>,
    pub series: Series,
}

/// One finished game of a match.
#[derive(Clone, Debug)]
pub struct MatchGame<G: Rules = Checkers> {
    pub round: usize,
    pub opening: String,
    /// The colour the first agent played.
    pub first_color: Color,
    pub game: Game<G>,
    /// How long the first and the second agent thought (none in journals older than the
    /// record of it).
    pub thinking: Option<[Thinking; 2]>,
}

/// One side's thinking over a game: what equal time per move is checked against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thinking {
    pub ms: u64,
    pub moves: u32,
}

/// An agent whose moves are timed.
struct Timed<'a, G: Rules> {
    agent: &'a mut dyn Agent<G>,
    spent: Duration,
    moves: u32,
}

impl<'a, G: Rules> Timed<'a, G> {
    fn new(agent: &'a mut dyn Agent<G>) -> Self {
        Timed {
            agent,
            spent: Duration::ZERO,
            moves: 0,
        }
    }

    fn thinking(&self) -> Thinking {
        Thinking {
            ms: self.spent.as_millis().try_into().unwrap_or(u64::MAX),
            moves: self.moves,
        }
    }
}

impl<G: Rules> Agent<G> for Timed<'_, G> {
    fn name(&self) -> String {
        self.agent.name()
    }

    fn select_reporting(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        listener: Option<Listener<'_, G>>,
    ) -> Decision<G> {
        let start = Instant::now();
        let decision = self.agent.select_reporting(game, limits, listener);
        self.spent += start.elapsed();
        self.moves += 1;
        decision
    }

    fn new_game(&mut self) {
        self.agent.new_game();
    }
}

impl<G: Rules> MatchGame<G> {
    /// The first agent's score in this game.
    pub fn first_score(&self) -> f64 {
        self.game
            .outcome()
            .map_or(0.5, |o| o.score_for(self.first_color))
    }
}

#[derive(Clone, Debug)]
pub struct MatchReport<G: Rules = Checkers> {
    pub first: String,
    pub second: String,
    pub games: Vec<MatchGame<G>>,
}

impl<G: Rules> MatchReport<G> {
    /// The first agent's results, overall or with one colour.
    pub fn tally(&self, color: Option<Color>) -> Tally {
        let mut t = Tally::default();
        for g in self
            .games
            .iter()
            .filter(|g| color.is_none_or(|c| g.first_color == c))
        {
            t.add(g.first_score());
        }
        t
    }

    /// The human-readable result block.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} vs {}: {} games\n",
            self.first,
            self.second,
            self.games.len()
        );
        s += &format!("  {}: {}\n", self.first, self.tally(None).summary());
        for c in [Color::Black, Color::White] {
            let t = self.tally(Some(c));
            s += &format!("    as {c}: +{} ={} -{}\n", t.wins, t.draws, t.losses);
        }
        let timed: Vec<&[Thinking; 2]> = self
            .games
            .iter()
            .filter_map(|g| g.thinking.as_ref())
            .collect();
        if !timed.is_empty() {
            let per_move = |side: usize| {
                let ms: u64 = timed.iter().map(|t| t[side].ms).sum();
                let moves: u64 = timed.iter().map(|t| u64::from(t[side].moves)).sum();
                ms as f64 / moves.max(1) as f64
            };
            s += &format!(
                "  thinking per move ({} games timed): {} {:.0} ms, {} {:.0} ms\n",
                timed.len(),
                self.first,
                per_move(0),
                self.second,
                per_move(1)
            );
        }
        s
    }

    /// All games as one PDN file.
    pub fn pdn(&self) -> String {
        self.games
            .iter()
            .map(|g| {
                let (black, white) = match g.first_color {
                    Color::Black => (&self.first, &self.second),
                    Color::White => (&self.second, &self.first),
                };
                g.game.to_pdn(&[
                    ("Event", "checkers-zero match".to_string()),
                    ("Round", (g.round + 1).to_string()),
                    ("Black", black.clone()),
                    ("White", white.clone()),
                    ("Opening", g.opening.clone()),
                ])
            })
            .collect()
    }
}

/// A per-game seed derived from the match seed, so results do not depend on thread count.
fn game_seed(seed: u64, round: usize, side: u64) -> u64 {
    let mut z = seed
        ^ (round as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ side.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    z = (z ^ (z >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    z ^ (z >> 32)
}

/// Plays the match, as many games at a time as the current rayon pool has threads. Game `i`
/// starts from opening `i / 2`; the first agent has Black in even games and White in odd ones.
pub fn run_match<G: ArenaGame>(config: &MatchConfig<G>) -> Result<MatchReport<G>, AgentError> {
    let (first, second) = names(config)?;
    let total = match_length(config);
    let games = play_rounds(config, (0..total).collect(), &[], &first, &second, |_| {
        Ok(())
    })?;
    Ok(MatchReport {
        first,
        second,
        games,
    })
}

/// The agents' names; building them up front makes a bad spec fail before any game.
pub(super) fn names<G: ArenaGame>(config: &MatchConfig<G>) -> Result<(String, String), AgentError> {
    Ok((
        config.first.build(0)?.name(),
        config.second.build(0)?.name(),
    ))
}

/// How many games the match has.
pub(super) fn match_length<G: ArenaGame>(config: &MatchConfig<G>) -> usize {
    let starts = G::starting_games(config.series.openings).len();
    config.series.games.unwrap_or(2 * starts)
}

/// The game of `round` from its start (opening `round / 2`), with the first agent's colour.
pub(super) fn round_start<G: ArenaGame>(
    starts: &[(String, Game<G>)],
    round: usize,
) -> (String, Color, Game<G>) {
    let (opening, start) = &starts[(round / 2) % starts.len()];
    let first_color = if round.is_multiple_of(2) {
        Color::Black
    } else {
        Color::White
    };
    (opening.clone(), first_color, start.clone())
}

/// Plays `rounds` of the match, as many games at a time as the current rayon pool has
/// threads, calling `done` with each game as it ends (from the thread that played it); the
/// games in round order. `earlier` are the match's games already played (by a journal's
/// earlier runs), counted in its progress.
///
/// Each game runs on a thread of its own with a one-thread pool for its agents' parallel
/// work (the CPU backend's kernels), so every search has exactly one core. In a shared
/// pool a thread out of games would help the other games' network with its kernels: at
/// equal time per move the network then had two cores against alpha-beta's one.
pub(super) fn play_rounds<G: ArenaGame>(
    config: &MatchConfig<G>,
    rounds: Vec<usize>,
    earlier: &[MatchGame<G>],
    first_name: &str,
    second_name: &str,
    done: impl Fn(&MatchGame<G>) -> Result<(), AgentError> + Sync,
) -> Result<Vec<MatchGame<G>>, AgentError> {
    let starts = G::starting_games(config.series.openings);
    let mut tally = Tally::default();
    for g in earlier {
        tally.add(g.first_score());
    }
    let progress = Progress::new(
        config.series.progress,
        earlier.len() + rounds.len(),
        tally,
        format!("{first_name} vs {second_name}"),
    );
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let games = Mutex::new(Vec::with_capacity(rounds.len()));
    let worker = |pool: &rayon::ThreadPool| -> Result<(), AgentError> {
        while !failed.load(Ordering::Relaxed) {
            let Some(&round) = rounds.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            let game = pool
                .install(|| play_round(config, &starts, round))
                .and_then(|g| done(&g).map(|()| g))
                .inspect_err(|_| failed.store(true, Ordering::Relaxed))?;
            progress.game_done(game.first_score());
            games.lock().unwrap_or_else(|e| e.into_inner()).push(game);
        }
        Ok(())
    };
    let result = on_one_core_each(rounds.len(), worker);
    progress.finish();
    result?;
    let mut games = games.into_inner().unwrap_or_else(|e| e.into_inner());
    games.sort_by_key(|g| g.round);
    Ok(games)
}

/// Runs `worker` on as many threads as the current rayon pool has (at most `tasks`), each
/// with a one-thread pool of its own for its agents' parallel work, so that every search
/// has exactly one core; the first error any of them returns.
pub(super) fn on_one_core_each(
    tasks: usize,
    worker: impl Fn(&rayon::ThreadPool) -> Result<(), AgentError> + Sync,
) -> Result<(), AgentError> {
    let run = || -> Result<(), AgentError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(|e| AgentError::Invalid(format!("cannot start a search's thread: {e}")))?;
        worker(&pool)
    };
    let threads = rayon::current_num_threads().clamp(1, tasks.max(1));
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(run)).collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    })
}

/// One game of the match: `round`'s opening, colours and seeds.
fn play_round<G: ArenaGame>(
    config: &MatchConfig<G>,
    starts: &[(String, Game<G>)],
    round: usize,
) -> Result<MatchGame<G>, AgentError> {
    let (opening, first_color, start) = round_start(starts, round);
    let mut first = config
        .first
        .build(game_seed(config.series.seed, round, 1))?;
    let mut second = config
        .second
        .build(game_seed(config.series.seed, round, 2))?;
    let (mut first, mut second) = (Timed::new(first.as_mut()), Timed::new(second.as_mut()));
    let game = match first_color {
        Color::Black => play_game(&mut first, &mut second, start, config.series.game),
        Color::White => play_game(&mut second, &mut first, start, config.series.game),
    };
    Ok(MatchGame {
        round,
        opening,
        first_color,
        game,
        thinking: Some([first.thinking(), second.thinking()]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::random::RandomAgent;
    use crate::agents::{AgentSource, Decision, Limits};
    use crate::arena::{GameConfig, OpeningSet};
    use std::sync::Arc;

    /// Random moves, noting the pool each move is chosen in and the games under way.
    #[derive(Debug, Default)]
    struct Watched {
        pool_sizes: Mutex<Vec<usize>>,
        under_way: AtomicUsize,
        most_under_way: AtomicUsize,
    }

    struct WatchedAgent(Arc<Watched>, RandomAgent);

    impl crate::agents::Agent for WatchedAgent {
        fn name(&self) -> String {
            "watched".into()
        }

        fn select_reporting(
            &mut self,
            game: &Game,
            limits: &Limits,
            listener: Option<crate::agents::Listener>,
        ) -> Decision {
            let sizes = &self.0.pool_sizes;
            sizes.lock().unwrap().push(rayon::current_num_threads());
            std::thread::sleep(std::time::Duration::from_millis(1));
            self.1.select_reporting(game, limits, listener)
        }
    }

    impl Drop for WatchedAgent {
        fn drop(&mut self) {
            self.0.under_way.fetch_sub(1, Ordering::SeqCst);
        }
    }

    impl AgentSource for Arc<Watched> {
        fn build(&self, seed: u64) -> Result<Box<dyn crate::agents::Agent>, AgentError> {
            let now = self.under_way.fetch_add(1, Ordering::SeqCst) + 1;
            self.most_under_way.fetch_max(now, Ordering::SeqCst);
            Ok(Box::new(WatchedAgent(self.clone(), RandomAgent::new(seed))))
        }
    }

    /// A pool of three plays three games at a time, each game's agents in a pool of one
    /// (no thread lends its core to another game's search), with the same results as one
    /// game at a time, and each side's thinking timed.
    #[test]
    fn games_run_side_by_side_each_with_one_core() {
        let watched = Arc::new(Watched::default());
        let config = MatchConfig {
            first: Arc::new(watched.clone()),
            second: "random".parse::<crate::agents::AgentSpec>().unwrap().into(),
            series: Series {
                games: Some(12),
                openings: OpeningSet::Standard,
                seed: 9,
                game: GameConfig {
                    max_plies: Some(60),
                    exact_endings: false,
                },
                progress: false,
            },
        };
        let in_pool = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| run_match(&config)).unwrap()
        };
        let three = in_pool(3);
        // One agent of each game is watched: three at a time at most, and three reached.
        assert_eq!(watched.most_under_way.load(Ordering::SeqCst), 3);
        let sizes = watched.pool_sizes.lock().unwrap().clone();
        assert!(
            !sizes.is_empty() && sizes.iter().all(|&n| n == 1),
            "{sizes:?}"
        );
        let one = in_pool(1);
        assert_eq!(three.pdn(), one.pdn());
        // Each side's thinking is timed: the sides move in turn, and the watched agent
        // sleeps a millisecond a move.
        for g in &three.games {
            let [first, second] = g.thinking.expect("every game is timed");
            assert!(first.moves > 0 && first.moves.abs_diff(second.moves) <= 1);
            assert!(first.ms >= u64::from(first.moves), "{first:?}");
        }
        assert!(
            three
                .summary()
                .contains("thinking per move (12 games timed)")
        );
    }
}
