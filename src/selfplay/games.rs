//! Self-play games: each worker thread keeps many games going at once, gathers leaves from
//! all of their searches, sends them to the evaluator in one call and applies the answers
//! (AlphaZero.jl's and KataGo's design), so a network on the other end sees large batches.
//!
//! A game searches again at every action of a turn (each hop of a checkers multi-jump); an
//! action that is the only legal one is played without a search and gives no training
//! sample. With playout-cap randomisation only
//! full searches (with root noise and forced playouts) become samples.

use super::replay::{AHEAD_PLIES, Sample};
use super::starts::Starts;
use crate::endgame::{EndgameGame, Oracle};
use crate::games::{Checkers, Game, Rules};
use crate::mcts::{
    Evaluator, Leaves, MaterialEvaluator, PlayoutCap, Puct, PuctConfig, ROOT, Temperature,
    pick_child,
};
use crate::seeds::derive_seed;
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::sync::atomic::{AtomicU64, Ordering};

/// How self-play games are played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlayConfig {
    /// The search; its noise and forced playouts apply to full searches only.
    pub puct: PuctConfig,
    pub playouts: PlayoutCap,
    pub temperature: Temperature,
    /// A game reaching this many plies is adjudicated (`Rules::adjudicate`: checkers' more
    /// pieces, then more kings).
    pub max_plies: usize,
    /// Games each worker keeps going at once.
    pub concurrent_games: usize,
    /// End games at positions the game's perfect endgames know (checkers' default
    /// databases, when present) with their exact result, and let the search treat such
    /// positions as solved.
    pub exact_endings: bool,
}

/// A finished self-play game and its training samples (results filled in).
#[derive(Clone, Debug)]
pub struct SelfPlayGame<G: Rules = Checkers> {
    /// Which game of the batch (its seed follows from it).
    pub index: u64,
    pub game: Game<G>,
    pub samples: Vec<Sample<G>>,
    /// Simulations searched in this game.
    pub simulations: u64,
}

/// One game in progress on a worker.
struct Slot<G: Rules> {
    index: u64,
    game: Game<G>,
    search: Puct<G>,
    rng: StdRng,
    /// Actions played so far in the current turn.
    turn: Vec<G::Action>,
    /// A buffer for the root's legal actions.
    actions: Vec<G::Action>,
    /// Simulations wanted and done for the current decision, and whether it is a full search.
    target: u32,
    done: u32,
    full: bool,
    samples: Vec<Sample<G>>,
    /// The game's ply at each sample, for its targets some plies ahead.
    plies: Vec<usize>,
    simulations: u64,
    oracle: Option<Oracle<G>>,
}

impl<G: EndgameGame> Slot<G> {
    fn new(index: u64, seed: u64, config: &SelfPlayConfig, starts: &Starts<G>) -> Self {
        let game = starts.game(seed, index);
        let oracle = config.exact_endings.then(G::default_oracle).flatten();
        let mut search = Puct::new(config.puct, &game);
        search.set_oracle(oracle.clone());
        Slot {
            index,
            search,
            oracle,
            game,
            rng: StdRng::seed_from_u64(derive_seed(seed, index, 0)),
            turn: Vec::new(),
            actions: Vec::new(),
            target: 0,
            done: 0,
            full: false,
            samples: Vec::new(),
            plies: Vec::new(),
            simulations: 0,
        }
    }

    /// Plays forced actions until a decision needs a search (then sets its budget and returns
    /// true) or the game is over (false).
    fn next_decision(&mut self, config: &SelfPlayConfig) -> bool {
        loop {
            if self.turn.is_empty() {
                if self.game.outcome().is_some() {
                    return false;
                }
                if let Some(proven) =
                    (self.oracle.as_ref()).and_then(|o| G::proven_outcome(o, &self.game))
                {
                    self.game.impose(proven);
                    return false;
                }
                if self.game.ply() >= config.max_plies {
                    self.game.impose(G::adjudicate(self.game.position()));
                    return false;
                }
            }
            self.actions.clear();
            G::legal_actions(&self.search.tree().root().state, &mut self.actions);
            if let [only] = self.actions[..] {
                self.play(only);
                continue;
            }
            let (target, full) = config.playouts.draw(&mut self.rng);
            self.search.config.noise = config.puct.noise.filter(|_| full);
            self.search.config.forced_playouts = config.puct.forced_playouts.filter(|_| full);
            (self.target, self.done, self.full) = (target.max(1), 0, full);
            self.search.start_decision(self.target);
            return true;
        }
    }

    /// Records the finished search as a sample (if full) and plays an action chosen by
    /// visits (PUCT) or by Sequential Halving (Gumbel).
    fn decide(&mut self, config: &SelfPlayConfig, history: usize) {
        let tree = self.search.tree();
        if self.full {
            let root = tree.root();
            let policy = self
                .search
                .policy_target()
                .into_iter()
                .filter(|&(_, p)| p > 0.0)
                .map(|(a, p)| (G::policy_index(&root.state, a) as u16, p))
                .collect();
            let mut actions = Vec::new();
            G::legal_actions(&root.state, &mut actions);
            self.samples.push(Sample {
                input: tree.eval_input(ROOT, actions, history),
                policy,
                z: 0.0,
                q: root.q(),
                ahead: None,
            });
            self.plies.push(self.game.ply());
        }
        // Gumbel's noise already made its choice a sample; PUCT samples by visits.
        let child = match self.search.gumbel_choice() {
            Some(c) => tree.keep_proven(ROOT, c),
            None => pick_child(
                tree,
                ROOT,
                config.temperature.at(self.game.ply()),
                &mut self.rng,
            ),
        };
        let action = tree.node(child).action;
        self.play(action);
    }

    fn play(&mut self, action: G::Action) {
        self.search.advance_action(action);
        self.turn.push(action);
        if self.search.tree().root().is_turn_start() {
            let pos = self.game.position();
            let mv = G::legal_moves(pos)
                .into_iter()
                .find(|mv| G::actions_of(pos, mv) == self.turn)
                .expect("actions legal at each step make a legal move");
            self.game.play(mv);
            self.turn.clear();
        }
    }

    /// The finished game with each sample's result, and its material lead some plies on,
    /// from its side to move.
    fn finish(mut self) -> SelfPlayGame<G> {
        let outcome = self.game.outcome().expect("finished games have an outcome");
        let positions = self.game.positions();
        for (s, &ply) in self.samples.iter_mut().zip(&self.plies) {
            let side = G::turn(&s.input.state);
            s.z = outcome.value_for(side);
            s.ahead = Some(AHEAD_PLIES.map(|k| {
                let at = (ply + k).min(positions.len() - 1);
                G::material_lead(&positions[at], side)
            }));
        }
        SelfPlayGame {
            index: self.index,
            game: self.game,
            samples: self.samples,
            simulations: self.simulations,
        }
    }
}

/// Plays games until `next` (shared by all workers) reaches `total`, up to
/// `config.concurrent_games` at once, each from where `starts` says, handing each finished
/// game to `done`. Game `i` draws its randomness from `seed` and `i` alone.
pub fn play_games<G: EndgameGame>(
    config: &SelfPlayConfig,
    starts: &Starts<G>,
    eval: &mut dyn Evaluator<G>,
    next: &AtomicU64,
    total: u64,
    seed: u64,
    mut done: impl FnMut(SelfPlayGame<G>),
) {
    let history = eval.history();
    let mut slots: Vec<Slot<G>> = Vec::new();
    loop {
        while slots.len() < config.concurrent_games.max(1) {
            let index = next.fetch_add(1, Ordering::SeqCst);
            if index >= total {
                break;
            }
            slots.push(Slot::new(index, seed, config, starts));
        }
        let mut i = 0;
        while i < slots.len() {
            let slot = &mut slots[i];
            if slot.done >= slot.target {
                if slot.target > 0 {
                    slot.decide(config, history);
                }
                if !slot.next_decision(config) {
                    done(slots.swap_remove(i).finish());
                    continue;
                }
            }
            i += 1;
        }
        if slots.is_empty() {
            return;
        }
        let gathered: Vec<Leaves<G>> = slots
            .iter_mut()
            .map(|s| {
                let want = (s.target - s.done) as usize;
                s.search
                    .gather(config.puct.batch.min(want), history, &mut s.rng)
            })
            .collect();
        let inputs: Vec<_> = gathered.iter().flat_map(|l| l.inputs.clone()).collect();
        let mut evals = eval.evaluate(&inputs).into_iter();
        for (slot, leaves) in slots.iter_mut().zip(gathered) {
            let answers = evals.by_ref().take(leaves.inputs.len()).collect();
            let n = slot.search.apply(leaves, answers) as u32;
            slot.done += n;
            slot.simulations += n as u64;
        }
    }
}

/// `n` games of self-play with the material evaluator, in the order they end: games of a
/// real run's shape (positions, search targets, results) without a network, for tests and
/// benchmarks of what carries games.
pub fn material_games(config: &SelfPlayConfig, n: u64, seed: u64) -> Vec<SelfPlayGame<Checkers>> {
    let next = AtomicU64::new(0);
    let mut out = Vec::new();
    let mut eval = MaterialEvaluator::default();
    play_games(config, &Starts::default(), &mut eval, &next, n, seed, |g| {
        out.push(g)
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::Outcome;
    use crate::mcts::Search;

    fn config() -> SelfPlayConfig {
        SelfPlayConfig {
            // Self-play's search: log-growth c_puct, root noise, forced playouts.
            puct: PuctConfig {
                c_puct: 1.25,
                c_base: Some(19652.0),
                fpu_reduction: 0.25,
                noise: Some((1.0, 0.25)),
                batch: 8,
                forced_playouts: Some(2.0),
                search: Search::Puct,
                forced_through: 0,
                policy_temperature: 1.0,
            },
            playouts: PlayoutCap {
                full: 24,
                fast: 8,
                full_probability: 0.5,
            },
            temperature: Temperature {
                initial: 1.0,
                plies: 8,
                linear_decay: false,
            },
            max_plies: 60,
            concurrent_games: 3,
            exact_endings: false,
        }
    }

    #[test]
    fn self_play_starts_no_games_once_told_to_stop() {
        use crate::selfplay::{SelfPlayRun, self_play_each};
        let c = config();
        let run = SelfPlayRun {
            games: 200,
            workers: 2,
            max_batch: 16,
            wait: std::time::Duration::from_millis(1),
            seed: 3,
        };
        let handed = AtomicU64::new(0);
        // The fourth game ends it: the games under way still finish, no new one starts.
        self_play_each(
            &mut MaterialEvaluator::default(),
            &c,
            &Starts::default(),
            &run,
            &|_| handed.fetch_add(1, Ordering::SeqCst) + 1 < 4,
        );
        let n = handed.into_inner();
        let under_way = (run.workers * c.concurrent_games) as u64;
        assert!((4..4 + under_way).contains(&n), "{n} games");
    }

    #[test]
    fn games_finish_with_legal_moves_and_samples_carry_their_results() {
        let next = AtomicU64::new(0);
        let mut games = Vec::new();
        play_games(
            &config(),
            &Starts::default(),
            &mut MaterialEvaluator::default(),
            &next,
            5,
            7,
            |g| games.push(g),
        );
        assert_eq!(games.len(), 5);
        games.sort_by_key(|g| g.index);
        for g in &games {
            let outcome = g.game.outcome().unwrap();
            assert!(g.game.ply() <= 60);
            // Replaying the moves from the start gives the same game (every move legal).
            let mut replay: Game = Game::new();
            for mv in g.game.moves() {
                assert!(replay.legal_moves().contains(mv));
                replay.play(*mv);
            }
            assert!(!g.samples.is_empty() && g.simulations > 0);
            // Each sample at the start of a turn is at the first ply after the last one's
            // with its position; its targets are the material lead 4 and 8 plies on.
            let positions = g.game.positions();
            let mut next = 0;
            for s in &g.samples {
                let Some(pos) = Checkers::position(&s.input.state) else {
                    continue;
                };
                let ply = next + positions[next..].iter().position(|p| *p == pos).unwrap();
                next = ply + 1;
                let side = s.input.state.turn();
                let lead = |k: usize| {
                    Checkers::material_lead(&positions[(ply + k).min(positions.len() - 1)], side)
                };
                assert_eq!(s.ahead, Some([lead(4), lead(8)]), "ply {ply}");
            }
            for s in &g.samples {
                let want = 2.0 * outcome.score_for(s.input.state.turn()) as f32 - 1.0;
                assert_eq!(s.z, want);
                let total: f32 = s.policy.iter().map(|p| p.1).sum();
                assert!((total - 1.0).abs() < 1e-4, "policy sums to {total}");
                assert!(s.input.actions.len() > 1, "forced hops are not samples");
            }
            if g.game.ply() >= 60 {
                assert!(!matches!(
                    outcome,
                    Outcome::Win(_, crate::games::checkers::WinReason::NoMoves)
                ));
            }
        }
        // The same seed plays the same games, however many run at once.
        let again = AtomicU64::new(0);
        let mut one_at_a_time = Vec::new();
        let c = SelfPlayConfig {
            concurrent_games: 1,
            exact_endings: false,
            ..config()
        };
        play_games(
            &c,
            &Starts::default(),
            &mut MaterialEvaluator::default(),
            &again,
            5,
            7,
            |g| one_at_a_time.push(g),
        );
        for (a, b) in games.iter().zip(&one_at_a_time) {
            assert_eq!(a.game.moves(), b.game.moves());
        }
    }
}
