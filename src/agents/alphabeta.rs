//! The alpha-beta agent: the fixed yardstick the learners are measured against, one search
//! for every game.
//!
//! Negamax over whole moves with iterative deepening, a transposition table, move ordering
//! (table move, the game's urgent moves, history heuristic) and an extension at the horizon:
//! a position the game says is unsettled (checkers: the side to move must capture) is
//! searched on until it is settled. The per-game parts are a [`SearchGame`] (those knobs)
//! and an [`StaticEval`] (the leaf score): checkers' material (checkers_eval.rs) or a learned
//! network (`td`, `ga`, `pso`), Othello's classic evaluation (othello_eval.rs). Both are
//! type parameters, so each game gets its own monomorphised search. For given limits and seed
//! the search is deterministic: the seed only shuffles the root moves, which decides ties
//! between moves of equal score. A time limit (unlike depth and node limits) makes it
//! timing-dependent.

use super::kinds::{self, AgentKind, LimitOptions, alphabeta, millis};
use super::settings::MAX_DEPTH;
use super::{
    Agent, AgentError, Analysis, Decision, Distance, Limits, Line, Listener, MoveScore, Proven,
    Reporter, ScoreKind, StopFlag, perfect_decision, pv_text,
};
use crate::endgame::{Exact, Oracle, Value};
use crate::games::{Color, Game, Outcome, Rules};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use std::time::Instant;

/// Scores are in hundredths of a unit (checkers: a man; Othello: a disc). A win at ply p
/// scores `WIN - p`, so nearer wins are preferred and farther losses resisted.
pub const MAN: i32 = 100;
const WIN: i32 = 1_000_000;
const INF: i32 = WIN + 1;
/// Scores beyond this are wins or losses at a known distance.
const WIN_BOUND: i32 = WIN - 10_000;
/// Wins the endgame databases prove score below the wins the search sees to the end, by the
/// plies to conversion: the fastest conversion first.
const PROVEN_WIN: i32 = WIN - 5_000;

/// What the search needs of a game beyond its [`Rules`]: the moves in an allocation-free
/// form, where the horizon may stop, and how moves are ordered. Implemented next to each
/// game's evaluation (checkers_eval.rs, othello_eval.rs).
pub trait SearchGame: Rules {
    /// Entries of the history heuristic's table (see [`SearchGame::history_slot`]).
    const HISTORY_SLOTS: usize;

    /// Sets `out` to `Rules::distinct_moves(pos)`, in the same order, reusing its memory
    /// (the search keeps one buffer per ply rather than allocating at every node).
    fn distinct_moves_into(pos: &Self::Position, out: &mut Vec<Self::Move>);

    /// True where the horizon must not stop because a static score would be misleading
    /// (checkers: the side to move must capture, so material is about to change); the
    /// search then goes on until it is false. `moves` are the position's distinct moves,
    /// never none (the search has them at hand, and they may answer more cheaply).
    fn unsettled(pos: &Self::Position, moves: &[Self::Move]) -> bool;

    /// How far ahead of history-ordered moves a move is searched: 0 for none, larger first
    /// (checkers: captures by pieces taken, then crowning).
    fn urgency(pos: &Self::Position, mv: &Self::Move) -> u32;

    /// The history table's entry (below `HISTORY_SLOTS`) that counts the cut-offs of a move,
    /// or `None` for moves the heuristic does not track (checkers' captures).
    fn history_slot(mv: &Self::Move) -> Option<usize>;
}

/// Scores a position with legal moves for the side to move, in [`MAN`] units; magnitudes
/// must stay well below a win's (under 100 000 units is plenty). Ended games never reach it:
/// the search scores them from the outcome.
pub trait StaticEval<G: SearchGame>: Send {
    /// True for evaluators with a per-call cost (networks): the search then scores all
    /// settled children of a node one ply above the horizon in one
    /// [`StaticEval::evaluate_many`] call.
    const BATCHED: bool = false;

    fn evaluate(&mut self, pos: &G::Position) -> i32;

    /// Scores each position, in order, into `out` (cleared first).
    fn evaluate_many(&mut self, positions: &[G::Position], out: &mut Vec<i32>) {
        out.clear();
        out.extend(positions.iter().map(|p| self.evaluate(p)));
    }
}

/// The evaluator of an `alphabeta` agent: it names its options, so the agent can print the
/// spec that rebuilds it (the learned agents wrap the search and name themselves).
pub trait AgentEval<G: SearchGame>: StaticEval<G> {
    /// The agent kind that searches with it.
    const KIND: &'static AgentKind;

    /// That kind's limits.
    const LIMITS: &'static LimitOptions;

    /// Its options and their values.
    fn options(&self) -> Vec<(&'static str, Option<String>)>;
}

#[derive(Clone, Debug, PartialEq)]
pub struct AlphaBetaConfig {
    pub limits: Limits,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Men a draw scores below nothing for the side searching (0: nothing).
    pub contempt: f32,
}

impl AlphaBetaConfig {
    /// Checks each setting as a spec would (configs may come from code).
    pub fn validate(&self) -> Result<(), AgentError> {
        // Both games' limits take the same values (only the default depth differs), so
        // checkers' declarations check them for either.
        let (kind, options) = (&kinds::CHECKERS_ALPHABETA, &alphabeta::CHECKERS_LIMITS);
        let l = &self.limits;
        l.depth.map(|d| options.depth.check(kind, d)).transpose()?;
        let time = l.movetime.map(millis);
        time.map(|t| options.time.check(kind, t)).transpose()?;
        l.nodes.map(|n| options.nodes.check(kind, n)).transpose()?;
        alphabeta::HASH.check(kind, self.hash_mb)?;
        alphabeta::CONTEMPT.check(kind, self.contempt)?;
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// One table slot: 16 bytes. `best` indexes the position's move list in generation order
/// (deterministic), or is `u8::MAX` for none.
#[derive(Clone, Copy)]
struct TtEntry {
    key: u64,
    score: i32,
    depth: i8,
    bound: Bound,
    best: u8,
}

const EMPTY_ENTRY: TtEntry = TtEntry {
    key: 0,
    score: 0,
    depth: -1,
    bound: Bound::Exact,
    best: u8::MAX,
};

/// History scores are capped here, and urgent moves are keyed above it.
const HISTORY_CAP: u32 = 800_000;

/// The search for game `G` with leaf evaluation `E`.
pub struct AlphaBeta<G: SearchGame, E: StaticEval<G>> {
    config: AlphaBetaConfig,
    seed: u64,
    rng: StdRng,
    evaluator: E,
    /// Batched evaluators: the scores of the settled children of the last node searched one
    /// ply above the horizon (see [`StaticEval::BATCHED`]).
    prefetched: Vec<(G::Position, i32)>,
    tt: Vec<TtEntry>,
    /// History heuristic: how often a move (by [`SearchGame::history_slot`]) caused a
    /// cut-off, weighted by depth.
    history: Box<[u32]>,
    /// Hashes of the positions before the current node (game history, then search path).
    path: Vec<u64>,
    /// One move buffer per ply, reused.
    buffers: Vec<Vec<G::Move>>,
    /// Per ply, the leaf of the best line found below the current node: the settled position
    /// whose evaluation gave its score, or `None` for an end, a draw or a table score.
    leaves: Vec<Option<G::Position>>,
    /// The leaf of the best root move's line after the last completed iteration.
    root_leaf: Option<G::Position>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    /// The caller's stop flag for the current search.
    stop: Option<StopFlag>,
    /// How many of the best moves the current search scores exactly (MultiPV).
    lines: usize,
    stopped: bool,
    /// Perfect endgames: their positions are scored exactly, not searched.
    oracle: Option<Oracle<G>>,
    /// A draw's score for the side to move at the root of the current search (less than 0
    /// with contempt); the other side's is its negation.
    draw: i32,
    /// The side the table's scores were found for with contempt, if any: a draw's score
    /// depends on whose search it is, so the table is cleared when that side changes.
    contempt_for: Option<Color>,
}

/// A table of `hash_mb` MiB (rounded down to a power of two entries), or an error if the
/// memory cannot be had: a size within range must not abort the process.
fn transposition_table(hash_mb: usize) -> Result<Vec<TtEntry>, AgentError> {
    let entries = hash_mb.saturating_mul(1 << 20) / std::mem::size_of::<TtEntry>();
    let entries = (entries.next_power_of_two() / 2).max(1024);
    let mut tt = Vec::new();
    tt.try_reserve_exact(entries).map_err(|_| {
        AgentError::Invalid(format!(
            "alphabeta hash={hash_mb}: could not allocate {hash_mb} MiB for the transposition table"
        ))
    })?;
    tt.resize(entries, EMPTY_ENTRY);
    Ok(tt)
}

impl<G: SearchGame, E: StaticEval<G>> AlphaBeta<G, E> {
    pub fn new(config: AlphaBetaConfig, seed: u64, evaluator: E) -> Result<Self, AgentError> {
        config.validate()?;
        let tt = transposition_table(config.hash_mb)?;
        Ok(AlphaBeta {
            config,
            seed,
            rng: StdRng::seed_from_u64(seed),
            evaluator,
            prefetched: Vec::new(),
            tt,
            history: vec![0; G::HISTORY_SLOTS].into_boxed_slice(),
            path: Vec::new(),
            buffers: Vec::new(),
            leaves: Vec::new(),
            root_leaf: None,
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stop: None,
            lines: 1,
            stopped: false,
            oracle: None,
            draw: 0,
            contempt_for: None,
        })
    }

    pub fn evaluator_mut(&mut self) -> &mut E {
        &mut self.evaluator
    }

    fn evaluate(&mut self, pos: &G::Position) -> i32 {
        if E::BATCHED
            && let Some(&(_, score)) = self.prefetched.iter().find(|(p, _)| p == pos)
        {
            return score;
        }
        self.evaluator.evaluate(pos)
    }

    /// For a batched evaluator, scores in one call every child of `pos` that the search will
    /// evaluate statically at the horizon (the settled ones); children that turn out to be
    /// repetitions or ended cost a wasted score, nothing more.
    fn prefetch_leaves(&mut self, pos: &G::Position, moves: &[G::Move]) {
        if !E::BATCHED {
            return;
        }
        let mut replies = Vec::new();
        let leaves: Vec<G::Position> = moves
            .iter()
            .map(|m| G::apply_move(pos, m))
            .filter(|c| {
                G::distinct_moves_into(c, &mut replies);
                // Ended children too: `unsettled` needs a move, and one wasted score is
                // cheaper than a second pass.
                replies.is_empty() || !G::unsettled(c, &replies)
            })
            .collect();
        let mut scores = Vec::with_capacity(leaves.len());
        self.evaluator.evaluate_many(&leaves, &mut scores);
        self.prefetched.clear();
        self.prefetched.extend(leaves.into_iter().zip(scores));
    }

    fn tt_index(&self, key: u64) -> usize {
        (key as usize) & (self.tt.len() - 1)
    }

    fn moves_at(&mut self, ply: usize, pos: &G::Position) -> Vec<G::Move> {
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, || Vec::with_capacity(32));
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        G::distinct_moves_into(pos, &mut moves);
        moves
    }

    fn set_leaf(&mut self, ply: usize, leaf: Option<G::Position>) {
        if self.leaves.len() <= ply {
            self.leaves.resize(ply + 1, None);
        }
        self.leaves[ply] = leaf;
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.node_limit {
            self.stopped = true;
        } else if self.nodes.is_multiple_of(1024) {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            self.stopped = late || self.stop.as_ref().is_some_and(StopFlag::is_set);
        }
        self.stopped
    }

    /// True if the position `hash` occurred earlier with the same side to move since the last
    /// irreversible move (`quiet` plies ago at most): the search scores it as a draw.
    fn repeats(&self, hash: u64, quiet: u32) -> bool {
        let n = self.path.len();
        (2..=quiet as usize)
            .step_by(2)
            .take_while(|&k| k <= n)
            .any(|k| self.path[n - k] == hash)
    }

    /// Orders `moves` best-first for search: the table move, then the game's urgent moves by
    /// urgency, then the others by history score. Returns the moves' generation indices.
    fn order(&self, pos: &G::Position, moves: &mut [G::Move], tt_best: u8) -> Vec<u8> {
        let mut keyed: Vec<(u32, u8, G::Move)> = moves
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let key = if i as u8 == tt_best {
                    u32::MAX
                } else {
                    match G::urgency(pos, m) {
                        0 => G::history_slot(m).map_or(0, |s| self.history[s].min(HISTORY_CAP)),
                        urgent => HISTORY_CAP + urgent,
                    }
                };
                (key, i as u8, *m)
            })
            .collect();
        // Stable: equal keys keep generation order, so the order is deterministic.
        keyed.sort_by_key(|k| std::cmp::Reverse(k.0));
        for (slot, k) in moves.iter_mut().zip(&keyed) {
            *slot = k.2;
        }
        keyed.iter().map(|k| k.1).collect()
    }

    /// A draw's score at `ply` for its side to move: the root's side moves at even plies.
    fn draw_score(&self, ply: usize) -> i32 {
        if ply.is_multiple_of(2) {
            self.draw
        } else {
            -self.draw
        }
    }

    /// Scores draws for `side` (contempt) or for nobody (`None`: a draw scores 0), clearing
    /// the table's scores where they were found for another.
    fn score_draws_for(&mut self, side: Option<Color>) {
        let side = side.filter(|_| self.config.contempt > 0.0);
        self.draw = side.map_or(0, |_| -(self.config.contempt * MAN as f32).round() as i32);
        if side != self.contempt_for && (side.is_some() || self.contempt_for.is_some()) {
            self.tt.fill(EMPTY_ENTRY);
        }
        self.contempt_for = side;
    }

    /// The score of an ended game at `ply` for its side to move (no legal move: the rules
    /// decide, `Rules::outcome`).
    fn end_score(&self, pos: &G::Position, ply: usize) -> i32 {
        match G::outcome(&G::turn_start(pos)) {
            Some(Outcome::Win(winner, _)) if winner == G::side_to_move(pos) => WIN - ply as i32,
            Some(Outcome::Win(..)) => -(WIN - ply as i32),
            Some(Outcome::Draw(_)) => self.draw_score(ply),
            None => unreachable!("no legal move in a position the rules say goes on"),
        }
    }

    fn negamax(
        &mut self,
        pos: &G::Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        quiet: u32,
    ) -> i32 {
        self.nodes += 1;
        self.set_leaf(ply, None);
        if self.out_of_budget() {
            return 0;
        }
        let hash = G::hash(pos);
        // Draws by history, in a form the constants fold away for games without them.
        let repeated = G::REPETITION_DRAW.is_some() && self.repeats(hash, quiet);
        if repeated || G::QUIET_DRAW_PLIES.is_some_and(|limit| quiet >= limit) {
            return self.draw_score(ply);
        }
        if let Some(exact) = self.oracle.as_ref().and_then(|o| o.exact(pos, quiet)) {
            let win = PROVEN_WIN - ply as i32 - exact.distance as i32;
            return match exact.value {
                Value::Win => win,
                Value::Loss => -win,
                Value::Draw => self.draw_score(ply),
            };
        }
        let mut moves = self.moves_at(ply, pos);
        if moves.is_empty() {
            self.buffers[ply] = moves;
            return self.end_score(pos, ply);
        }
        // The horizon extension: only settled positions are evaluated.
        if depth <= 0 && !G::unsettled(pos, &moves) {
            self.buffers[ply] = moves;
            self.set_leaf(ply, Some(*pos));
            return self.evaluate(pos);
        }
        let slot = self.tt_index(hash);
        let mut tt_best = u8::MAX;
        let entry = self.tt[slot];
        if entry.key == hash && entry.depth >= 0 {
            tt_best = entry.best;
            if entry.depth as i32 >= depth {
                let score = from_tt(entry.score, ply);
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    self.buffers[ply] = moves;
                    return score;
                }
            }
        }
        let original_alpha = alpha;
        let indices = self.order(pos, &mut moves, tt_best);
        if depth == 1 {
            self.prefetch_leaves(pos, &moves);
        }
        let mut best = -INF;
        let mut best_index = u8::MAX;
        self.path.push(hash);
        for (mv, &index) in moves.iter().zip(&indices) {
            let child = G::apply_move(pos, mv);
            let child_quiet = if G::move_is_irreversible(pos, mv) {
                0
            } else {
                quiet + 1
            };
            let score = -self.negamax(
                &child,
                (depth - 1).max(0),
                -beta,
                -alpha,
                ply + 1,
                child_quiet,
            );
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                best_index = index;
                self.leaves[ply] = self.leaves[ply + 1];
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if let Some(slot) = G::history_slot(mv) {
                    let h = &mut self.history[slot];
                    *h = h.saturating_add((depth * depth).max(1) as u32);
                }
                break;
            }
        }
        self.path.pop();
        self.buffers[ply] = moves;
        if !self.stopped && depth > 0 {
            let bound = if best <= original_alpha {
                Bound::Upper
            } else if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.tt[slot] = TtEntry {
                key: hash,
                score: to_tt(best, ply),
                depth: depth as i8,
                bound,
                best: best_index,
            };
        }
        best
    }

    /// Iterative deepening at the root; returns the distinct root moves with their scores
    /// from the last completed iteration, best first, and the depth reached. Each completed
    /// iteration's analysis goes to `reporter` where someone listens.
    /// With `exact`, every root move gets a full-window search (all scores exact); without,
    /// a move that cannot beat the best so far is only bounded from above.
    fn search(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        exact: bool,
        reporter: &mut Reporter<G>,
    ) -> (Vec<RootMove<G>>, u32) {
        let limits = limits.or(&self.config.limits);
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        self.nodes = 0;
        self.stopped = false;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.deadline = limits.deadline(Instant::now());
        self.stop = limits.stop;
        self.lines = limits.lines.max(1);
        let pos = *game.position();
        self.score_draws_for(Some(G::side_to_move(&pos)));
        let quiet = game.quiet_plies();
        let history = game.reversible_hashes();
        self.path.clear();
        self.path.extend_from_slice(&history[..history.len() - 1]);
        let mut root = self.moves_at(0, &pos);
        root.shuffle(&mut self.rng);
        let mut scored: Vec<RootMove<G>> = root
            .iter()
            .map(|&mv| RootMove {
                mv,
                score: 0,
                upper_bound: false,
            })
            .collect();
        let mut reached = 0;
        self.root_leaf = None;
        for depth in 1..=max_depth {
            // The window's floor: the worst of the best `lines` scores so far, so that each
            // of the best moves gets an exact score (MultiPV); with one line, the best.
            let mut best_scores: Vec<i32> = Vec::with_capacity(self.lines + 1);
            // The first move to reach the best score is the one the stable sort puts first.
            let mut best_leaf = (-INF, None);
            let mut this_iter: Vec<RootMove<G>> = Vec::with_capacity(scored.len());
            if depth == 1 {
                let moves: Vec<G::Move> = scored.iter().map(|s| s.mv).collect();
                self.prefetch_leaves(&pos, &moves);
            }
            self.path.push(G::hash(&pos));
            for &RootMove { mv, .. } in &scored {
                let child = G::apply_move(&pos, &mv);
                let child_quiet = if G::move_is_irreversible(&pos, &mv) {
                    0
                } else {
                    quiet + 1
                };
                let floor = match best_scores.len() == self.lines {
                    true => best_scores[self.lines - 1],
                    false => -INF,
                };
                let window_alpha = if exact { -INF } else { floor };
                let score = -self.negamax(
                    &child,
                    depth as i32 - 1,
                    -INF,
                    -window_alpha,
                    1,
                    child_quiet,
                );
                if self.stopped && depth > 1 {
                    break;
                }
                // Fail-soft: a score at or below the window's alpha is an upper bound.
                let upper_bound = score <= window_alpha;
                let at = best_scores.partition_point(|&s| s >= score);
                if at < self.lines {
                    best_scores.insert(at, score);
                    best_scores.truncate(self.lines);
                }
                if score > best_leaf.0 {
                    best_leaf = (score, self.leaves[1]);
                }
                this_iter.push(RootMove {
                    mv,
                    score,
                    upper_bound,
                });
            }
            self.path.pop();
            if self.stopped && depth > 1 {
                break;
            }
            // Stable sort: among equal scores the earlier (seed-shuffled) move stays first.
            this_iter.sort_by_key(|m| std::cmp::Reverse(m.score));
            scored = this_iter;
            self.root_leaf = best_leaf.1;
            reached = depth;
            if reporter.listening() {
                let analysis = self.analysis(game, &scored, depth);
                reporter.send(analysis);
            }
            // A forced move needs no more thought when a clock is running; at a fixed depth
            // the search goes on so the reported value is as deep as asked.
            let forced = scored.len() == 1 && self.deadline.is_some();
            let decided = forced || scored[0].score.abs() >= WIN_BOUND;
            if self.stopped || (decided && !exact) {
                break;
            }
        }
        (scored, reached)
    }

    /// Follows table moves from the root to show the expected line.
    fn principal_variation(
        &mut self,
        game: &Game<G>,
        first: G::Move,
        max_len: usize,
    ) -> Vec<G::Move> {
        let mut line = vec![first];
        let mut pos = G::apply_move(game.position(), &first);
        let mut seen = vec![game.hash(), G::hash(&pos)];
        while line.len() < max_len {
            let hash = G::hash(&pos);
            let entry = self.tt[self.tt_index(hash)];
            if entry.key != hash || entry.best == u8::MAX {
                break;
            }
            let moves = G::distinct_moves(&pos);
            let Some(mv) = moves.get(entry.best as usize).copied() else {
                break;
            };
            line.push(mv);
            pos = G::apply_move(&pos, &mv);
            let hash = G::hash(&pos);
            if seen.contains(&hash) {
                break;
            }
            seen.push(hash);
        }
        line
    }

    fn analysis(&mut self, game: &Game<G>, scored: &[RootMove<G>], depth: u32) -> Analysis<G> {
        let RootMove {
            mv: best, score, ..
        } = scored[0];
        let pv = self.principal_variation(game, best, depth.max(1) as usize);
        // The best moves' lines, where asked for: those scored exactly.
        let wanted = if self.lines > 1 { self.lines } else { 0 };
        let lines = scored
            .iter()
            .filter(|m| !m.upper_bound)
            .take(wanted)
            .map(|m| Line {
                value: score_in_men(m.score),
                proven: proven(m.score),
                pv: self.principal_variation(game, m.mv, depth.max(1) as usize),
            })
            .collect();
        Analysis {
            moves: scored
                .iter()
                .map(|m| MoveScore {
                    mv: m.mv,
                    score: score_in_men(m.score),
                    prior: None,
                    upper_bound: m.upper_bound,
                    // A bound's win or loss is not proven for the move.
                    proven: proven(m.score).filter(|_| !m.upper_bound),
                })
                .collect(),
            score_kind: ScoreKind::Value,
            value: score_in_men(score),
            proven: proven(score),
            summary: format!(
                "depth {depth} nodes {} pv {}",
                self.nodes,
                pv_text::<G>(&pv)
            ),
            pv,
            lines,
        }
    }
}

/// A root move's score from the last completed iteration.
#[derive(Clone, Copy)]
struct RootMove<G: Rules> {
    mv: G::Move,
    score: i32,
    /// The move was only shown to score at most `score` (it could not beat an earlier move).
    upper_bound: bool,
}

/// Win scores are stored relative to the node so they stay right when found at another ply.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score + ply as i32
    } else if score <= -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score - ply as i32
    } else if score <= -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// A score in men; wins and losses map to +-1000 minus the distance (to the end, or for
/// proven wins to conversion).
fn score_in_men(score: i32) -> f32 {
    if score.abs() >= WIN_BOUND {
        // Proven (database) wins count plies to conversion where search wins count plies to
        // the end.
        let plies = (WIN - score.abs()) % (WIN - PROVEN_WIN);
        score.signum() as f32 * (1000.0 - plies as f32)
    } else {
        score as f32 / MAN as f32
    }
}

/// What a score proves: a win or loss the search saw to the end, with its plies, or one it
/// reached through the oracle, without (those plies add the line's to the distance to
/// conversion below it, which measures nothing).
fn proven(score: i32) -> Option<Proven> {
    (score.abs() >= WIN_BOUND).then(|| Proven {
        result: if score > 0 { Value::Win } else { Value::Loss },
        distance: (score.abs() > PROVEN_WIN).then(|| Distance::End((WIN - score.abs()) as u32)),
    })
}

impl<G: SearchGame, E: StaticEval<G>> AlphaBeta<G, E> {
    /// [`Agent::select_reporting`] for any evaluator.
    pub fn decide(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        listener: Option<Listener<'_, G>>,
    ) -> Decision<G> {
        let mut reporter = Reporter::new(listener, self.oracle.as_ref(), game);
        let value = |e: Exact| score_in_men(e.unit() as i32 * (PROVEN_WIN - e.distance as i32));
        if let Some(d) =
            perfect_decision(self.oracle.as_ref(), game, limits, ScoreKind::Value, value)
        {
            return reporter.finish(d);
        }
        let (scored, depth) = self.search(game, limits, false, &mut reporter);
        let analysis = self.analysis(game, &scored, depth);
        reporter.finish(Decision {
            mv: scored[0].mv,
            analysis: Some(analysis),
        })
    }

    /// The chosen move with its score and the leaf of its principal variation: the quiet
    /// position whose evaluation is the root score (negated when the opponent is to move
    /// there), or `None` when the score is an end, a draw or a table hit (TD-Leaf trains on it).
    pub fn decide_with_leaf(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
    ) -> (G::Move, i32, Option<G::Position>) {
        let (scored, _) = self.search(game, limits, false, &mut Reporter::new(None, None, game));
        (scored[0].mv, scored[0].score, self.root_leaf)
    }

    /// [`Agent::analyse`] for any evaluator.
    pub fn analyse_all(&mut self, game: &Game<G>, limits: &Limits) -> Analysis<G> {
        let mut reporter = Reporter::new(None, self.oracle.as_ref(), game);
        let (scored, depth) = self.search(game, limits, true, &mut reporter);
        let mut analysis = self.analysis(game, &scored, depth);
        reporter.annotate(&mut analysis);
        analysis
    }

    /// `pos`'s score for its side to move in men (wins and losses as 1000 less their
    /// distance), searched `depth` plies ahead with captures resolved past them: `az:mix`'s
    /// judgement of a leaf. No game history comes with it, so repetitions before `pos` are
    /// not seen; the table carries over from one call to the next, as the leaves of one tree
    /// share most of their lines.
    pub fn judge_position(&mut self, pos: &G::Position, depth: u32) -> f32 {
        self.nodes = 0;
        self.stopped = false;
        self.node_limit = u64::MAX;
        self.deadline = None;
        self.stop = None;
        self.path.clear();
        // A leaf's judgement is nobody's search: a draw is worth nothing.
        self.score_draws_for(None);
        let depth = depth.min(MAX_DEPTH) as i32;
        score_in_men(self.negamax(pos, depth, -INF, INF, 0, 0))
    }

    /// Perfect endgames to consult (none: search every position).
    pub fn set_oracle(&mut self, oracle: Option<Oracle<G>>) {
        self.oracle = oracle;
    }

    /// [`Agent::new_game`] for any evaluator.
    pub fn reset(&mut self) {
        self.tt.fill(EMPTY_ENTRY);
        self.history.fill(0);
        self.rng = StdRng::seed_from_u64(self.seed);
    }
}

impl<G: SearchGame, E: AgentEval<G>> Agent<G> for AlphaBeta<G, E> {
    fn name(&self) -> String {
        let c = &self.config;
        let mut values = vec![
            E::LIMITS.depth.with(c.limits.depth),
            E::LIMITS.time.with(c.limits.movetime.map(millis)),
            E::LIMITS.nodes.with(c.limits.nodes),
            alphabeta::HASH.with(Some(c.hash_mb)),
            alphabeta::CONTEMPT.with(Some(c.contempt)),
        ];
        values.extend(self.evaluator.options());
        E::KIND.name(&values)
    }

    fn select_reporting(
        &mut self,
        game: &Game<G>,
        limits: &Limits,
        listener: Option<Listener<'_, G>>,
    ) -> Decision<G> {
        self.decide(game, limits, listener)
    }

    fn analyse(&mut self, game: &Game<G>, limits: &Limits) -> Option<Analysis<G>> {
        Some(self.analyse_all(game, limits))
    }

    fn judge(&mut self, pos: &G::Position, depth: u32) -> Option<f32> {
        Some(self.judge_position(pos, depth))
    }

    fn new_game(&mut self) {
        self.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Checkers, Othello};
    use rand::Rng;

    /// The search's buffered moves are `Rules::distinct_moves`, in order (the table stores
    /// moves by index), whatever the buffer held before.
    fn buffered_moves_are_the_distinct_moves<G: SearchGame>() {
        let mut rng = StdRng::seed_from_u64(5);
        let mut buffer = Vec::new();
        for _ in 0..50 {
            let mut pos = G::start();
            for _ in 0..rng.random_range(0..80) {
                let moves = G::distinct_moves(&pos);
                G::distinct_moves_into(&pos, &mut buffer);
                assert_eq!(buffer, moves, "{pos:?}");
                if moves.is_empty() {
                    break;
                }
                pos = G::apply_move(&pos, &moves[rng.random_range(0..moves.len())]);
            }
        }
    }

    /// A judged position's captures are resolved before it is scored, whatever the depth:
    /// here Black must take a man, and is a man up once it has.
    #[test]
    fn a_judged_position_is_scored_after_its_captures() {
        use crate::agents::checkers_eval::CheckersEval;
        use crate::agents::settings::CheckersEvalKind;
        let eval = CheckersEval::new(CheckersEvalKind::Material, 1.5).unwrap();
        let config = AlphaBetaConfig {
            limits: Limits::default(),
            hash_mb: 1,
            contempt: 0.0,
        };
        let mut search = AlphaBeta::<Checkers, _>::new(config, 0, eval).unwrap();
        let taking = crate::games::checkers::parse_fen("B:W18,29:B14,1").unwrap();
        assert_eq!(search.evaluate(&taking), 0);
        assert_eq!(search.judge_position(&taking, 0), 1.0);
        let quiet = crate::games::checkers::parse_fen("W:W22,29:B14,1,2").unwrap();
        assert_eq!(search.judge_position(&quiet, 0), -1.0);
    }

    /// With contempt, a draw scores below nothing for whichever side searches: here the
    /// king's move back repeats the position (a draw), its other move does not (level
    /// material).
    #[test]
    fn contempt_scores_a_draw_below_nothing_for_the_side_searching() {
        use crate::agents::checkers_eval::CheckersEval;
        use crate::agents::settings::CheckersEvalKind;
        use crate::games::checkers::parse_fen;
        for (fen, shuffle, back, away) in [
            ("B:WK32:BK1", ["1-6", "32-27", "6-1", "27-32"], "1-6", "1-5"),
            (
                "W:WK32:BK1",
                ["32-27", "1-6", "27-32", "6-1"],
                "32-27",
                "32-28",
            ),
        ] {
            for contempt in [0.0, 0.25] {
                let eval = CheckersEval::new(CheckersEvalKind::Material, 1.5).unwrap();
                let limits = Limits {
                    depth: Some(1),
                    ..Limits::default()
                };
                let config = AlphaBetaConfig {
                    limits,
                    hash_mb: 1,
                    contempt,
                };
                let mut search = AlphaBeta::<Checkers, _>::new(config, 0, eval).unwrap();
                let mut game = Game::from_position(parse_fen(fen).unwrap());
                for m in shuffle {
                    game.play_text(m).unwrap();
                }
                let score = |text: &str, scored: &[RootMove<Checkers>]| {
                    let mv = game.clone().play_text(text).unwrap();
                    scored.iter().find(|s| s.mv == mv).unwrap().score
                };
                let mut reporter = Reporter::new(None, None, &game);
                let (scored, _) = search.search(&game, &Limits::default(), true, &mut reporter);
                let draw = -(contempt * MAN as f32) as i32;
                assert_eq!(score(back, &scored), draw, "{fen} contempt {contempt}");
                assert_eq!(score(away, &scored), 0, "{fen} contempt {contempt}");
            }
        }
    }

    #[test]
    fn buffered_moves_are_the_distinct_moves_in_both_games() {
        buffered_moves_are_the_distinct_moves::<Checkers>();
        buffered_moves_are_the_distinct_moves::<Othello>();
    }
}
