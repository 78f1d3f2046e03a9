//! The search agents: `mcts` (UCT with random rollouts) and `az` (PUCT with a trained
//! policy-value network). Both keep their tree between moves of a game.

use super::book::Book;
use super::check::{Check, most_visited_allowed};
use super::clock::{GameClock, MoveClock, Standing};
use super::handoff::Handoff;
use super::kinds::{self, az, millis};
use super::settings::{CheckEval, TimeUse};
use super::{
    Agent, AgentError, AgentSource, Analysis, Decision, Limits, Line, Listener, MoveScore, Proven,
    Reporter, ScoreKind, perfect_decision, pv_text,
};
use crate::endgame::{Exact, Oracle, Value};
use crate::errors::Context;
use crate::games::{Checkers, Game, Rules};
use crate::mcts::{
    Blend, CachedEvaluator, EncodingMismatch, EvalSymmetry, Evaluator, Judge, MoveStats,
    NetEvaluator, NodeId, Puct, PuctConfig, ROOT, SymmetricEvaluator, ThreadedEvaluator, Tree, Uct,
    most_visited, pick_child,
};
use crate::net::{NetGame, load_model};
use crate::nn::PolicyValueNet;
use crate::tensor::{Device, DeviceChoice, Precision};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The most memory one `mcts` search tree's nodes grow to (their vector may reserve up to
/// twice that; `az`'s is its `tree` option). A search without a count of simulations (`go
/// infinite`, a long movetime) stops there instead of growing until memory runs out: 2 GiB
/// hold tens of millions of nodes, hours of search on a CPU.
const TREE_BYTES: usize = 2 << 30;

/// How much to search for one move: simulations, an optional deadline and the caller's
/// stop flag.
struct Budget {
    simulations: u64,
    deadline: Option<Instant>,
    limits: Limits,
    /// The tree's memory at which the search stops.
    tree_bytes: usize,
}

impl Budget {
    /// `limits` if they bound the search (nodes = simulations, movetime, infinite), else
    /// `searches`; never a tree past `tree_bytes`.
    fn new(limits: &Limits, searches: u32, tree_bytes: usize) -> Budget {
        let deadline = limits.deadline(Instant::now());
        let simulations = match limits.nodes {
            Some(n) => n,
            None if limits.infinite || limits.movetime.is_some() => u64::MAX,
            None => searches as u64,
        };
        Budget {
            simulations: simulations.max(1),
            deadline,
            limits: limits.clone(),
            tree_bytes,
        }
    }

    /// Whether to search on after `done` simulations that grew the tree to `tree_bytes`:
    /// always at least once, so there is a searched move to give (reading the clock and the
    /// flag costs far less than a simulation).
    fn more(&self, done: u64, tree_bytes: usize) -> bool {
        done == 0
            || (done < self.simulations
                && tree_bytes < self.tree_bytes
                && self.deadline.is_none_or(|d| Instant::now() < d)
                && !self.limits.stop_requested())
    }
}

/// One search of a tree for a move: when it began, how many visits the root's moves held
/// then (kept from the searches of earlier moves), and whether a network gave the priors
/// (not a uniform stand-in).
struct TreeSearch {
    start: Instant,
    kept: u64,
    priors: bool,
    /// How many of the most visited moves to report with their lines (MultiPV).
    lines: usize,
}

impl TreeSearch {
    fn begin<G: Rules>(tree: &Tree<G>, priors: bool, limits: &Limits) -> TreeSearch {
        TreeSearch {
            start: Instant::now(),
            kept: move_visits(&tree.move_stats()),
            priors,
            lines: limits.lines,
        }
    }

    /// The greedy move of the searched tree (its first action `root_choice` where the search
    /// chose one, as Gumbel's does) with the tree's analysis.
    fn decision<G: Rules>(
        &self,
        tree: &Tree<G>,
        root_choice: Option<NodeId>,
        simulations: u64,
    ) -> Decision<G> {
        let mv = tree.pick_move(|t, at| match root_choice {
            Some(c) if at == ROOT => t.keep_proven(ROOT, c),
            _ => most_visited(t, at),
        });
        Decision {
            mv,
            analysis: Some(self.analysis(tree, mv, simulations)),
        }
    }

    /// What the tree says after `simulations` of this search, `best` being the move chosen:
    /// each move's share of the visits of all the root's moves (the summary's `visits`, of
    /// which `kept` were there when this search began) and, with priors, its prior; the
    /// root's value, exact where the tree proves it; the most visited line.
    fn analysis<G: Rules>(&self, tree: &Tree<G>, best: G::Move, simulations: u64) -> Analysis<G> {
        let stats = tree.move_stats();
        let visits = move_visits(&stats);
        let proof = tree.root_proof();
        let pv = tree.principal_variation(best, most_visited, PV_MOVES);
        // The most visited moves' lines, where asked for: each visited move's mean value.
        let mut ranked: Vec<&MoveStats<G>> = stats.iter().filter(|s| s.q.is_some()).collect();
        ranked.sort_by_key(|s| std::cmp::Reverse(s.visits));
        let wanted = if self.lines > 1 { self.lines } else { 0 };
        let lines = ranked
            .iter()
            .take(wanted)
            .map(|s| Line {
                value: s.q.unwrap_or(0.0),
                proven: None,
                pv: tree.principal_variation(s.mv, most_visited, PV_MOVES),
            })
            .collect();
        let share = |v: u32| {
            if visits == 0 {
                0.0
            } else {
                (v as f64 / visits as f64) as f32
            }
        };
        Analysis {
            moves: stats
                .iter()
                .map(|s| MoveScore {
                    mv: s.mv,
                    score: share(s.visits),
                    prior: self.priors.then_some(s.prior),
                    upper_bound: false,
                    proven: None,
                })
                .collect(),
            score_kind: ScoreKind::VisitShare,
            value: proof.unwrap_or(tree.root().q()),
            // The tree's exact values are 1, 0 (or -0) and -1.
            proven: proof.map(|v| Proven {
                result: if v > 0.0 {
                    Value::Win
                } else if v < 0.0 {
                    Value::Loss
                } else {
                    Value::Draw
                },
                distance: None,
            }),
            summary: format!(
                "simulations {simulations} visits {visits} kept {} nodes {} sims/s {:.0} pv {}",
                self.kept,
                tree.len(),
                simulations as f64 / self.start.elapsed().as_secs_f64().max(1e-9),
                pv_text::<G>(&pv)
            ),
            pv,
            lines,
        }
    }

    /// A snapshot while the search runs: the analysis of its most visited move.
    fn snapshot<G: Rules>(&self, tree: &Tree<G>, simulations: u64) -> Analysis<G> {
        self.analysis(tree, tree.pick_move(most_visited), simulations)
    }
}

/// The visits of the root's two most visited moves, and `done` simulations this move.
fn standing<G: Rules>(tree: &Tree<G>, done: u64) -> Standing {
    let (mut best, mut second) = (0, 0);
    for s in tree.move_stats() {
        let v = u64::from(s.visits);
        if v > best {
            (best, second) = (v, best);
        } else if v > second {
            second = v;
        }
    }
    Standing { best, second, done }
}

/// The visits of all the root's moves.
fn move_visits<G: Rules>(stats: &[MoveStats<G>]) -> u64 {
    stats.iter().map(|s| u64::from(s.visits)).sum()
}

/// How many moves of the most-visited line an analysis shows.
const PV_MOVES: usize = 12;

/// `mcts`: UCT with random rollouts.
pub struct MctsAgent<G: Rules = Checkers> {
    searches: u32,
    c: f32,
    seed: u64,
    rng: StdRng,
    uct: Option<Uct<G>>,
}

impl<G: Rules> MctsAgent<G> {
    pub fn new(searches: u32, c: f32, seed: u64) -> Result<Self, AgentError> {
        kinds::mcts::SEARCHES.check(&kinds::MCTS, searches)?;
        kinds::mcts::C.check(&kinds::MCTS, c)?;
        Ok(MctsAgent {
            searches,
            c,
            seed,
            rng: StdRng::seed_from_u64(seed),
            uct: None,
        })
    }
}

impl<G: Rules> Agent<G> for MctsAgent<G> {
    fn name(&self) -> String {
        kinds::MCTS.name(&[
            kinds::mcts::SEARCHES.with(Some(self.searches)),
            kinds::mcts::C.with(Some(self.c)),
        ])
    }

    fn select_reporting(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        listener: Option<Listener<'_, G>>,
    ) -> Decision<G> {
        let uct = match &mut self.uct {
            Some(u) => {
                u.follow(game);
                u
            }
            None => self.uct.insert(Uct::new(self.c, game)),
        };
        let budget = Budget::new(limits, self.searches, TREE_BYTES);
        let mut reporter = Reporter::new(listener, None, game);
        let search = TreeSearch::begin(uct.tree(), false, limits);
        let mut actions = Vec::new();
        let mut done = 0;
        while budget.more(done, uct.tree().bytes()) {
            uct.simulate(&mut self.rng, &mut actions);
            done += 1;
            if reporter.due() {
                reporter.send(search.snapshot(uct.tree(), done));
            }
        }
        reporter.finish(search.decision(uct.tree(), None, done))
    }

    fn analyse(&mut self, game: &Game<G>, limits: &Limits) -> Option<Analysis<G>> {
        self.select(game, limits).analysis
    }

    fn new_game(&mut self) {
        self.uct = None;
        self.rng = StdRng::seed_from_u64(self.seed);
    }
}

/// Options of the `az` agent (their declaration: [`kinds::AZ`]).
#[derive(Clone, Debug, PartialEq)]
pub struct AzConfig {
    /// A model file; `None` plays the network built into the program.
    pub model: Option<PathBuf>,
    pub searches: u32,
    /// Time per move, where the caller gives no limits of its own (then `searches` only
    /// sizes Gumbel's Sequential Halving).
    pub movetime: Option<Duration>,
    /// Whether that time is every move's or a game's mean (PUCT only).
    pub spend: TimeUse,
    pub device: DeviceChoice,
    pub precision: Precision,
    /// The depth of the tactical check before each search (0: none; [`Check`]; unset: the
    /// game's, [`Aids`](super::spec::Aids)).
    pub check: Option<u32>,
    /// What the check's alpha-beta evaluates with (unset: the game's).
    pub check_eval: Option<CheckEval>,
    /// How far below the best checked move the chosen one may score.
    pub check_margin: f32,
    /// The share of the root's priors drawn from the check's scores (0: none).
    pub check_prior: f32,
    /// The policy temperature as the spec gives it (unset: the game's, which `az`'s
    /// builder puts into `puct`).
    pub policy_temperature: Option<f32>,
    /// Pieces left (Othello: empty squares) from which alpha-beta moves instead (0: never;
    /// [`Handoff`]; unset: the game's).
    pub endgame: Option<u32>,
    /// An opening book whose moves are played without a search ([`Book`]).
    pub book: Option<PathBuf>,
    /// The weight of alpha-beta's judgement in leaf values (0: none; [`Blend`]).
    pub mix: f32,
    /// How deep that alpha-beta searches each leaf.
    pub mix_depth: u32,
    /// How much less than nothing a draw is worth to the side searching (0: nothing).
    pub contempt: f32,
    /// How the network sees positions: as they are or through the board's symmetries.
    pub symmetries: EvalSymmetry,
    /// Threads evaluating batches of leaves (more than one: that many batches in flight).
    pub threads: usize,
    /// Network evaluations kept for positions met again (0: none).
    pub cache: usize,
    /// The most memory the search tree may hold, in MiB.
    pub tree_mb: usize,
    /// The move choice's temperature over root visits (0: the most visited).
    pub temperature: f32,
    pub puct: PuctConfig,
}

impl AzConfig {
    /// Every option's value, as a spec writes it.
    pub fn values(&self) -> Vec<(&'static str, Option<String>)> {
        let g = self.puct.search.gumbel();
        let search = self.puct.search.kind();
        vec![
            az::MODEL.with(self.model.as_ref().map(|p| p.display().to_string())),
            az::SEARCHES.with(Some(self.searches)),
            az::TIME.with(self.movetime.map(millis)),
            az::SPEND.with(Some(self.spend)),
            az::LEAF_BATCH.with(Some(self.puct.batch)),
            az::FORCED.with(Some(self.puct.forced_through)),
            az::CHECK.with(self.check),
            az::CHECK_EVAL.with(self.check_eval),
            az::CHECK_MARGIN.with(Some(self.check_margin)),
            az::CHECK_PRIOR.with(Some(self.check_prior)),
            az::ENDGAME.with(self.endgame),
            az::BOOK.with(self.book.as_ref().map(|p| p.display().to_string())),
            az::MIX.with(Some(self.mix)),
            az::MIX_DEPTH.with(Some(self.mix_depth)),
            az::CONTEMPT.with(Some(self.contempt)),
            az::SYMMETRIES.with(Some(self.symmetries)),
            az::THREADS.with(Some(self.threads)),
            az::CACHE.with(Some(self.cache)),
            az::TREE.with(Some(self.tree_mb)),
            az::DEVICE.with(Some(self.device)),
            az::PRECISION.with(Some(self.precision)),
            az::C_PUCT.with(Some(self.puct.c_puct)),
            az::FPU_REDUCTION.with(Some(self.puct.fpu_reduction)),
            az::POLICY_TEMPERATURE.with(self.policy_temperature),
            az::TEMPERATURE.with(Some(self.temperature)),
            az::SEARCH.with(Some(search)),
            az::GUMBEL_CONSIDERED.with(g.map(|g| g.considered)),
            az::GUMBEL_C_VISIT.with(g.map(|g| g.c_visit)),
            az::GUMBEL_C_SCALE.with(g.map(|g| g.c_scale)),
        ]
    }

    /// The agent's name: the spec that plays it.
    pub fn name(&self) -> String {
        kinds::AZ.name(&self.values())
    }
}

/// `az`: PUCT or Gumbel search guided by a policy-value network, greedy (temperature 0), no
/// noise.
pub struct AzAgent<G: Rules = Checkers> {
    name: String,
    searches: u32,
    movetime: Option<Duration>,
    /// The game's time with `spend=managed` (and a time of its own); `None` otherwise.
    clock: Option<GameClock>,
    temperature: f32,
    puct: PuctConfig,
    /// A draw's worth below nothing to the side searching.
    contempt: f32,
    /// The tree's memory at which a search chooses its move (`tree`).
    tree_bytes: usize,
    evaluator: CachedEvaluator<Box<dyn Evaluator<G> + Send>, G>,
    rng: StdRng,
    seed: u64,
    search: Option<Puct<G>>,
    /// Perfect endgames: the root's perfect move where there is one, solved leaves below.
    oracle: Option<Oracle<G>>,
    /// The tactical check the search's choice must pass, if any.
    check: Option<Check<G>>,
    /// The share of the root's priors the check's scores make.
    check_prior: f32,
    /// The alpha-beta that moves in endings, if any.
    handoff: Option<Handoff<G>>,
    /// The opening book, if any (shared by the agents of a match's games).
    book: Option<Arc<Book<G>>>,
}

/// Why a network's search could not start.
#[derive(Debug, thiserror::Error)]
enum StartError {
    #[error(transparent)]
    Encoding(#[from] EncodingMismatch),
    #[error("cannot start the search's threads: {0}")]
    Threads(#[from] std::io::Error),
}

impl<G: NetGame> AzAgent<G> {
    /// Loads the network; a missing or unreadable model file is a clear error.
    pub fn new(config: AzConfig, seed: u64) -> Result<Self, AgentError> {
        az::SEARCHES.check(&kinds::AZ, config.searches)?;
        let batch = u32::try_from(config.puct.batch).unwrap_or(u32::MAX);
        az::LEAF_BATCH.check(&kinds::AZ, batch)?;
        az::FPU_REDUCTION.check(&kinds::AZ, config.puct.fpu_reduction)?;
        az::THREADS.check(&kinds::AZ, config.threads)?;
        if let Some(path) = config.model.as_ref().filter(|p| !p.is_file()) {
            return Err(AgentError::Invalid(format!(
                "az: no model file at {} (train one with `checkers-zero train`, or leave out \
                 model= to play the built-in network)",
                path.display()
            )));
        }
        let device = (config.device.open())
            .context(|| format!("{} option {}", kinds::AZ.kind, az::DEVICE.key()))?;
        (device.set_precision(config.precision))
            .context(|| format!("{} option {}", kinds::AZ.kind, az::PRECISION.key()))?;
        let what = config
            .model
            .as_ref()
            .map_or("the built-in network".to_string(), |p| {
                p.display().to_string()
            });
        // A model file's errors name the file already.
        let (net, encoding, _) = match &config.model {
            Some(path) => load_model::<G>(path, &device),
            None => G::default_model(&device),
        }
        .context(|| "az".into())?;
        let book = match &config.book {
            Some(path) => Some(Arc::new(Book::load(path)?)),
            None => None,
        };
        let mut agent = AzAgent::of_network(net, encoding, device, &config, config.name(), seed)
            .context(|| format!("az: {what}"))?;
        agent.book = book;
        Ok(agent)
    }

    /// The agent of `net`, evaluating on `config.threads` threads (each with its own copy)
    /// when that is more than one.
    fn of_network(
        net: PolicyValueNet,
        encoding: G::Encoding,
        device: Device,
        config: &AzConfig,
        name: String,
        seed: u64,
    ) -> Result<Self, StartError> {
        let on_device =
            |net| NetEvaluator::new(net, encoding, device.clone()).map(|e| e.at(config.precision));
        let evaluator: Box<dyn Evaluator<G> + Send> = if config.threads > 1 {
            let copies = (0..config.threads).map(|_| on_device(net.clone()));
            let copies = copies.collect::<Result<Vec<_>, _>>()?;
            Box::new(ThreadedEvaluator::new(copies)?)
        } else {
            Box::new(on_device(net)?)
        };
        let evaluator = match config.symmetries {
            EvalSymmetry::Off => evaluator,
            mode => Box::new(SymmetricEvaluator::new(evaluator, mode, seed)),
        };
        Ok(AzAgent::with_evaluator(evaluator, config, name, seed))
    }

    fn with_evaluator(
        evaluator: Box<dyn Evaluator<G> + Send>,
        config: &AzConfig,
        name: String,
        seed: u64,
    ) -> Self {
        AzAgent {
            name,
            searches: config.searches,
            movetime: config.movetime,
            clock: match (config.spend, config.movetime) {
                (TimeUse::Managed, Some(t)) => Some(GameClock::new(t)),
                _ => None,
            },
            temperature: config.temperature,
            puct: config.puct,
            contempt: config.contempt,
            tree_bytes: config.tree_mb << 20,
            evaluator: CachedEvaluator::new(evaluator, config.cache),
            rng: StdRng::seed_from_u64(seed),
            seed,
            search: None,
            oracle: None,
            check: None,
            check_prior: config.check_prior,
            handoff: None,
            book: None,
        }
    }
}

/// The `az` agent of a network held in memory, for each game of a match: the trainer's
/// gating and gauntlet play the networks they hold instead of reloading them from files.
#[derive(Clone)]
pub struct AzNetwork<G: Rules = Checkers> {
    pub net: PolicyValueNet,
    pub encoding: G::Encoding,
    pub device: Device,
    /// `searches` and `puct` are used; `model` and `device` are not, nor the check and the
    /// hand-off: it plays the network's search alone, so `name` says `check=0,endgame=0`.
    pub config: AzConfig,
    /// The agent's name: the spec that plays the same network from its file.
    pub name: String,
}

impl<G: Rules> std::fmt::Debug for AzNetwork<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

impl<G: NetGame> AgentSource<G> for AzNetwork<G> {
    fn build(&self, seed: u64) -> Result<Box<dyn Agent<G>>, AgentError> {
        let agent = AzAgent::of_network(
            self.net.clone(),
            self.encoding,
            self.device.clone(),
            &self.config,
            self.name.clone(),
            seed,
        );
        Ok(Box::new(agent.context(|| self.name.clone())?))
    }
}

impl<G: Rules> Agent<G> for AzAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select_reporting(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        listener: Option<Listener<'_, G>>,
    ) -> Decision<G> {
        // The network's kernels run on a rayon pool; searching from a thread outside any
        // (the engine's, the GUI's, the terminal's) would hand every kernel call over to
        // the pool and wait. Such a search gets a pool of its own, as many threads as the
        // global one, and runs on it: its own, so that concurrent searches (the GUI's)
        // cannot end up nested in one another's waits on a shared pool.
        if rayon::current_thread_index().is_none()
            && let Ok(pool) = rayon::ThreadPoolBuilder::new()
                .num_threads(rayon::current_num_threads())
                .build()
        {
            return pool.install(|| self.search_move(game, limits, listener));
        }
        self.search_move(game, limits, listener)
    }

    fn analyse(&mut self, game: &Game<G>, limits: &Limits) -> Option<Analysis<G>> {
        self.select(game, limits).analysis
    }

    fn new_game(&mut self) {
        self.search = None;
        self.rng = StdRng::seed_from_u64(self.seed);
        if let Some(clock) = &mut self.clock {
            clock.new_game();
        }
        if let Some(check) = &mut self.check {
            check.new_game();
        }
        if let Some(handoff) = &mut self.handoff {
            handoff.new_game();
        }
    }
}

impl<G: Rules> AzAgent<G> {
    /// Perfect endgames to consult (none: the network judges every position).
    pub fn set_oracle(&mut self, oracle: Option<Oracle<G>>) {
        self.oracle = oracle;
        self.search = None;
    }

    /// A tactical check its choices must pass (without one, the search's choice is played).
    pub fn set_check(&mut self, check: Check<G>) {
        self.check = Some(check);
    }

    /// Leaf values mixed with `judge`'s, `weight` of each being the judge's.
    pub fn with_mix(mut self, weight: f32, judge: Judge<G>) -> Self {
        self.evaluator = (self.evaluator).map(|inner| -> Box<dyn Evaluator<G> + Send> {
            Box::new(Blend::new(inner, weight, judge))
        });
        self
    }

    /// An alpha-beta to move in endings (without one, the search moves throughout).
    pub fn set_handoff(&mut self, handoff: Handoff<G>) {
        self.handoff = Some(handoff);
    }

    /// [`Agent::select_reporting`], on whatever thread it is called.
    fn search_move(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        listener: Option<Listener<'_, G>>,
    ) -> Decision<G> {
        if let Some(d) = perfect_decision(
            self.oracle.as_ref(),
            game,
            limits,
            ScoreKind::Value,
            Exact::unit,
        ) {
            return Reporter::new(listener, self.oracle.as_ref(), game).finish(d);
        }
        if let Some(mv) = self.book_move(game) {
            // The tree searched no position after it: the next search starts afresh.
            self.search = None;
            return Decision { mv, analysis: None };
        }
        let own = Limits {
            movetime: self.movetime,
            ..Limits::default()
        };
        // A forced move needs no thought when a clock is running (as alpha-beta's search).
        if limits.or(&own).movetime.is_some()
            && let [only] = G::distinct_moves(game.position())[..]
        {
            return Decision {
                mv: only,
                analysis: None,
            };
        }
        // A managed clock where the caller leaves the time to the agent and the search is
        // PUCT's (whose choice is the most visited move). Only searched moves draw on it and
        // are booked: moves answered at once above cost a fixed clock nothing either.
        let managed = limits.is_empty() && self.puct.search.gumbel().is_none();
        let Some(clock) = self.clock.filter(|_| managed) else {
            return self.think(game, &limits.or(&own), listener, None);
        };
        // This side's searched moves left: its moves until the oracle answers.
        let searched_left = (self.oracle.as_ref())
            .and_then(|o| o.plies_until_perfect(game.position()))
            .map(|plies| plies.div_ceil(2));
        let move_clock = clock.next_move(searched_left);
        let start = Instant::now();
        let limits = Limits {
            movetime: Some(move_clock.most),
            ..limits.clone()
        };
        let decision = self.think(game, &limits, listener, Some(move_clock));
        if let Some(c) = &mut self.clock {
            c.settle(start.elapsed());
        }
        decision
    }

    /// The book's move in `game`'s position, where it has one, play is greedy and the
    /// tactical check (if any) lets the move through.
    fn book_move(&mut self, game: &Game<G>) -> Option<G::Move> {
        if self.temperature > 0.0 {
            return None;
        }
        let mv = self.book.as_ref()?.get(game.position())?.mv;
        let verdict = self.check.as_mut().and_then(|c| c.verdict(game));
        verdict
            .is_none_or(|v| v.allowed().contains(&mv))
            .then_some(mv)
    }

    /// A fresh search of `game`'s position within `limits`, as a move's tree search runs
    /// (no book or hand-off; a check, if set, vets only the choice, not the tree), and the
    /// tree it leaves: a book's positions come from it.
    pub fn fresh_tree(&mut self, game: &Game<G>, limits: &Limits) -> &Tree<G> {
        self.search = None;
        let reporter = Reporter::new(None, self.oracle.as_ref(), game);
        self.search_tree(game, limits, reporter, None);
        (self.search.as_ref())
            .expect("search_tree leaves its search")
            .tree()
    }

    /// A searched move: the hand-off's in an ending it takes (with a managed clock, in the
    /// move's own time: alpha-beta cannot judge when its choice is settled), else the tree's.
    fn think(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        listener: Option<Listener<'_, G>>,
        move_clock: Option<MoveClock>,
    ) -> Decision<G> {
        if let Some(agent) = (self.handoff.as_mut()).and_then(|h| h.takes(game.position())) {
            // No position after it is the tree's again: pieces and empty squares only go.
            self.search = None;
            let limits = Limits {
                movetime: move_clock.map_or(limits.movetime, |c| Some(c.own)),
                ..limits.clone()
            };
            return agent.select_reporting(game, &limits, listener);
        }
        let reporter = Reporter::new(listener, self.oracle.as_ref(), game);
        self.search_tree(game, limits, reporter, move_clock)
    }

    /// One move's search of the tree, within `limits` and, with a managed clock,
    /// `move_clock`'s stops.
    fn search_tree(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        mut reporter: Reporter<'_, G>,
        move_clock: Option<MoveClock>,
    ) -> Decision<G> {
        let search = match &mut self.search {
            Some(s) => {
                s.follow(game);
                s
            }
            None => {
                let mut s = Puct::new(self.puct, game);
                s.set_oracle(self.oracle.clone());
                s.set_contempt(self.contempt);
                self.search.insert(s)
            }
        };
        let budget = Budget::new(limits, self.searches, self.tree_bytes);
        // The check's time is the move's: its deadline is set already. It vets the greedy
        // choice of PUCT only (Gumbel's and a sampled move are chosen otherwise).
        let greedy = self.temperature <= 0.0 && self.puct.search.gumbel().is_none();
        let verdict = (self.check.as_mut())
            .filter(|_| greedy)
            .and_then(|c| c.verdict(game));
        // Gumbel splits a known number of simulations; under a time limit, `searches` of
        // them, after which the root chooses as the nodes below it do.
        let planned = budget.simulations.min(match limits.nodes {
            Some(_) => u64::MAX,
            None => self.searches as u64,
        });
        search.start_decision(planned.min(u32::MAX as u64) as u32);
        if let Some(v) = verdict.as_ref().filter(|_| self.check_prior > 0.0) {
            search.guide_root(self.check_prior, v.guide(game.position()));
        }
        let tree_search = TreeSearch::begin(search.tree(), true, limits);
        let done = search.run_while(
            &mut self.evaluator,
            budget.simulations,
            &mut self.rng,
            |tree, done| {
                if done > 0 && reporter.due() {
                    reporter.send(tree_search.snapshot(tree, done));
                }
                budget.more(done, tree.bytes())
                    && !move_clock
                        .is_some_and(|c| c.stop(tree_search.start.elapsed(), standing(tree, done)))
            },
        );
        let root_choice = match search.gumbel_choice() {
            Some(c) => Some(c),
            None if self.temperature > 0.0 && search.tree().root().is_expanded() => Some(
                pick_child(search.tree(), ROOT, self.temperature, &mut self.rng),
            ),
            None => None,
        };
        let mut decision = tree_search.decision(search.tree(), root_choice, done);
        if let Some(allowed) = verdict.map(|v| v.allowed())
            && !allowed.contains(&decision.mv)
            && let Some(mv) = most_visited_allowed(&search.tree().move_stats(), &allowed)
        {
            let mut analysis = tree_search.analysis(search.tree(), mv, done);
            analysis.summary += &format!(" check passed over {}", G::format_move(&decision.mv));
            decision = Decision {
                mv,
                analysis: Some(analysis),
            };
        }
        reporter.finish(decision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search with no bound but `stop` ends once its tree holds its budget's bytes, and
    /// gives a searched move even with a tree already that large (kept from earlier moves).
    #[test]
    fn an_infinite_search_stops_at_the_tree_cap() {
        let limits = Limits {
            infinite: true,
            ..Limits::default()
        };
        let budget = Budget::new(&limits, 200, TREE_BYTES);
        assert!(budget.more(1_000_000, TREE_BYTES - 1));
        assert!(!budget.more(1_000_000, TREE_BYTES));
        assert!(budget.more(0, TREE_BYTES));
    }
}
