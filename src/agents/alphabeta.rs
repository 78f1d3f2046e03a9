//! The alpha-beta agent: the fixed yardstick the learners are measured against.
//!
//! Negamax with iterative deepening, a transposition table, move ordering (table move,
//! longer captures, history heuristic) and a capture extension: at the horizon a position
//! whose side to move must capture is searched on until it is quiet. The leaf evaluation is
//! an [`Evaluator`]: [`Material`] (man 1, king `king_weight`) for the `alphabeta` agent, a
//! learned network for `td`, `ga` and `pso`. For given limits and seed the search is
//! deterministic: the seed only shuffles the root moves, which decides ties between moves
//! of equal score. A time limit (unlike depth and node limits) makes it timing-dependent.

use super::settings::{self, MAX_DEPTH};
use super::spec::setting_error;
use super::{Agent, AgentError, Analysis, Decision, Limits, MoveScore, ScoreKind, StopFlag};
use crate::games::checkers::moves::{generate, jumpers};
use crate::games::checkers::record::FORTY_MOVE_PLIES;
use crate::games::checkers::{Game, Move, Position, dedup_routes, move_to_pdn};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use std::time::Instant;

/// Scores are in hundredths of a man. A win at ply p scores `WIN - p`, so nearer wins are
/// preferred and farther losses resisted.
pub const MAN: i32 = 100;
const WIN: i32 = 1_000_000;
const INF: i32 = WIN + 1;
/// Scores beyond this are wins or losses at a known distance.
const WIN_BOUND: i32 = WIN - 10_000;

/// Scores a quiet position for the side to move, in hundredths of a man; magnitudes must stay
/// well below a win's (under 100 000 men is plenty).
pub trait Evaluator: Send {
    /// True for evaluators with a per-call cost (networks): the search then scores all quiet
    /// children of a node one ply above the horizon in one [`Evaluator::evaluate_many`] call.
    const BATCHED: bool = false;

    fn evaluate(&mut self, pos: &Position) -> i32;

    /// Scores each position, in order, into `out` (cleared first).
    fn evaluate_many(&mut self, positions: &[Position], out: &mut Vec<i32>) {
        out.clear();
        out.extend(positions.iter().map(|p| self.evaluate(p)));
    }
}

/// Material: man 100, king `king_value`, own minus the opponent's.
pub struct Material {
    king_value: i32,
}

impl Material {
    pub fn new(king_weight: f32) -> Material {
        Material {
            king_value: (king_weight * MAN as f32).round() as i32,
        }
    }
}

impl Evaluator for Material {
    fn evaluate(&mut self, pos: &Position) -> i32 {
        let me = pos.turn();
        let material = |c| {
            pos.men(c).count_ones() as i32 * MAN
                + pos.kings_of(c).count_ones() as i32 * self.king_value
        };
        material(me) - material(me.opposite())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AlphaBetaConfig {
    pub limits: Limits,
    /// A king's value in men (for the material evaluation).
    pub king_weight: f32,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig {
            limits: Limits {
                depth: Some(6),
                ..Limits::default()
            },
            king_weight: 1.5,
            hash_mb: 16,
        }
    }
}

impl AlphaBetaConfig {
    /// Checks each setting as a spec would (configs may come from code).
    pub fn validate(&self) -> Result<(), AgentError> {
        let err = |key| move |e| setting_error("alphabeta", key, e);
        let l = &self.limits;
        l.depth
            .map(|d| settings::DEPTH.check(d))
            .transpose()
            .map_err(err("depth"))?;
        l.movetime
            .map(|t| settings::MOVETIME_MS.check(t.as_millis().try_into().unwrap_or(u64::MAX)))
            .transpose()
            .map_err(err("time"))?;
        l.nodes
            .map(|n| settings::NODES.check(n))
            .transpose()
            .map_err(err("nodes"))?;
        settings::KING
            .check(self.king_weight)
            .map_err(err("king"))?;
        settings::HASH_MB.check(self.hash_mb).map_err(err("hash"))?;
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

pub struct AlphaBeta<E: Evaluator = Material> {
    config: AlphaBetaConfig,
    seed: u64,
    rng: StdRng,
    evaluator: E,
    /// Batched evaluators: the scores of the quiet children of the last node searched one ply
    /// above the horizon (see [`Evaluator::BATCHED`]).
    prefetched: Vec<(Position, i32)>,
    tt: Vec<TtEntry>,
    /// History heuristic: how often a quiet move from->to caused a cut-off, weighted by depth.
    history: Box<[[u32; 32]; 32]>,
    /// Hashes of the positions before the current node (game history, then search path).
    path: Vec<u64>,
    /// One move buffer per ply, reused.
    buffers: Vec<Vec<Move>>,
    /// Per ply, the leaf of the best line found below the current node: the quiet position
    /// whose evaluation gave its score, or `None` for an end, a draw or a table score.
    leaves: Vec<Option<Position>>,
    /// The leaf of the best root move's line after the last completed iteration.
    root_leaf: Option<Position>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    /// The caller's stop flag for the current search.
    stop: Option<StopFlag>,
    stopped: bool,
}

impl AlphaBeta {
    /// The material-evaluation agent.
    pub fn new(config: AlphaBetaConfig, seed: u64) -> Result<Self, AgentError> {
        let material = Material::new(config.king_weight);
        AlphaBeta::with_evaluator(config, seed, material)
    }
}

/// A table of `hash_mb` MiB (rounded down to a power of two entries), or an error if the
/// memory cannot be had: a size within range must not abort the process.
fn transposition_table(hash_mb: usize) -> Result<Vec<TtEntry>, AgentError> {
    let entries = hash_mb.saturating_mul(1 << 20) / std::mem::size_of::<TtEntry>();
    let entries = (entries.next_power_of_two() / 2).max(1024);
    let mut tt = Vec::new();
    tt.try_reserve_exact(entries).map_err(|_| {
        AgentError(format!(
            "alphabeta hash={hash_mb}: could not allocate {hash_mb} MiB for the transposition table"
        ))
    })?;
    tt.resize(entries, EMPTY_ENTRY);
    Ok(tt)
}

impl<E: Evaluator> AlphaBeta<E> {
    pub fn with_evaluator(
        config: AlphaBetaConfig,
        seed: u64,
        evaluator: E,
    ) -> Result<Self, AgentError> {
        config.validate()?;
        let tt = transposition_table(config.hash_mb)?;
        Ok(AlphaBeta {
            config,
            seed,
            rng: StdRng::seed_from_u64(seed),
            evaluator,
            prefetched: Vec::new(),
            tt,
            history: Box::new([[0; 32]; 32]),
            path: Vec::new(),
            buffers: Vec::new(),
            leaves: Vec::new(),
            root_leaf: None,
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stop: None,
            stopped: false,
        })
    }

    pub fn evaluator_mut(&mut self) -> &mut E {
        &mut self.evaluator
    }

    fn evaluate(&mut self, pos: &Position) -> i32 {
        if E::BATCHED
            && let Some(&(_, score)) = self.prefetched.iter().find(|(p, _)| p == pos)
        {
            return score;
        }
        self.evaluator.evaluate(pos)
    }

    /// For a batched evaluator, scores in one call every child of `pos` that the search will
    /// evaluate statically at the horizon (those whose side to move need not capture); children
    /// that turn out to be repetitions or lost cost a wasted score, nothing more.
    fn prefetch_leaves(&mut self, pos: &Position, moves: &[Move]) {
        if !E::BATCHED {
            return;
        }
        let leaves: Vec<Position> = moves
            .iter()
            .map(|m| pos.apply(m))
            .filter(|c| jumpers(c) == 0)
            .collect();
        let mut scores = Vec::with_capacity(leaves.len());
        self.evaluator.evaluate_many(&leaves, &mut scores);
        self.prefetched.clear();
        self.prefetched.extend(leaves.into_iter().zip(scores));
    }

    fn tt_index(&self, key: u64) -> usize {
        (key as usize) & (self.tt.len() - 1)
    }

    fn moves_at(&mut self, ply: usize, pos: &Position) -> Vec<Move> {
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, || Vec::with_capacity(32));
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        moves.clear();
        generate(pos, &mut moves);
        dedup_routes(&mut moves);
        moves
    }

    fn set_leaf(&mut self, ply: usize, leaf: Option<Position>) {
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

    /// Orders `moves` best-first for search: the table move, then longer captures, crowning
    /// moves, then quiet moves by history score. Returns the moves' generation indices.
    fn order(&self, pos: &Position, moves: &mut [Move], tt_best: u8) -> Vec<u8> {
        let mut keyed: Vec<(u32, u8, Move)> = moves
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let key = if i as u8 == tt_best {
                    u32::MAX
                } else if m.is_capture() {
                    1_000_000 + m.captured().count_ones() * 1000
                } else if pos.kings() & (1 << m.from()) == 0
                    && (1 << m.to()) & pos.turn().crown_row() != 0
                {
                    900_000
                } else {
                    self.history[m.from() as usize][m.to() as usize].min(800_000)
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

    fn negamax(
        &mut self,
        pos: &Position,
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
        let hash = pos.hash();
        if self.repeats(hash, quiet) || quiet >= FORTY_MOVE_PLIES {
            return 0;
        }
        let mut moves = self.moves_at(ply, pos);
        if moves.is_empty() {
            self.buffers[ply] = moves;
            return -(WIN - ply as i32);
        }
        // Capture extension: at the horizon only quiet positions are evaluated.
        if depth <= 0 && !moves[0].is_capture() {
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
            let child = pos.apply(mv);
            let child_quiet = if pos.is_irreversible(mv) {
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
                if !mv.is_capture() {
                    let h = &mut self.history[mv.from() as usize][mv.to() as usize];
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

    /// Iterative deepening at the root; returns the root moves (after route de-duplication)
    /// with their scores from the last completed iteration, best first, and the depth reached.
    /// With `exact`, every root move gets a full-window search (all scores exact); without,
    /// a move that cannot beat the best so far is only bounded from above.
    fn search(&mut self, game: &Game, limits: &Limits, exact: bool) -> (Vec<RootMove>, u32) {
        let limits = limits.or(&self.config.limits);
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        self.nodes = 0;
        self.stopped = false;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.deadline = limits.deadline(Instant::now());
        self.stop = limits.stop;
        let pos = *game.position();
        let quiet = game.quiet_plies();
        let history = game.reversible_hashes();
        self.path.clear();
        self.path.extend_from_slice(&history[..history.len() - 1]);
        let mut root = self.moves_at(0, &pos);
        root.shuffle(&mut self.rng);
        let mut scored: Vec<RootMove> = root
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
            let mut alpha = -INF;
            // The first move to reach the best score is the one the stable sort puts first.
            let mut best_leaf = (-INF, None);
            let mut this_iter: Vec<RootMove> = Vec::with_capacity(scored.len());
            if depth == 1 {
                let moves: Vec<Move> = scored.iter().map(|s| s.mv).collect();
                self.prefetch_leaves(&pos, &moves);
            }
            self.path.push(pos.hash());
            for &RootMove { mv, .. } in &scored {
                let child = pos.apply(&mv);
                let child_quiet = if pos.is_irreversible(&mv) {
                    0
                } else {
                    quiet + 1
                };
                let window_alpha = if exact { -INF } else { alpha };
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
                alpha = alpha.max(score);
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
    fn principal_variation(&mut self, game: &Game, first: Move, max_len: usize) -> String {
        let mut line = vec![move_to_pdn(&first)];
        let mut pos = game.position().apply(&first);
        let mut seen = vec![game.hash(), pos.hash()];
        while line.len() < max_len {
            let entry = self.tt[self.tt_index(pos.hash())];
            if entry.key != pos.hash() || entry.best == u8::MAX {
                break;
            }
            let mut moves = Vec::new();
            generate(&pos, &mut moves);
            dedup_routes(&mut moves);
            let Some(mv) = moves.get(entry.best as usize).copied() else {
                break;
            };
            line.push(move_to_pdn(&mv));
            pos = pos.apply(&mv);
            if seen.contains(&pos.hash()) {
                break;
            }
            seen.push(pos.hash());
        }
        line.join(" ")
    }

    fn analysis(&mut self, game: &Game, scored: &[RootMove], depth: u32) -> Analysis {
        let RootMove {
            mv: best, score, ..
        } = scored[0];
        let pv = self.principal_variation(game, best, depth.max(1) as usize);
        Analysis {
            moves: scored
                .iter()
                .map(|m| MoveScore {
                    mv: m.mv,
                    score: score_in_men(m.score),
                    prior: None,
                    upper_bound: m.upper_bound,
                })
                .collect(),
            score_kind: ScoreKind::Value,
            value: score_in_men(score),
            summary: format!(
                "depth {depth} score {} nodes {} pv {pv}",
                describe(score),
                self.nodes
            ),
        }
    }
}

/// A root move's score from the last completed iteration.
#[derive(Clone, Copy)]
struct RootMove {
    mv: Move,
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

/// A score in men; wins and losses map to +-1000 minus the distance.
fn score_in_men(score: i32) -> f32 {
    if score.abs() >= WIN_BOUND {
        score.signum() as f32 * (1000.0 - (WIN - score.abs()) as f32)
    } else {
        score as f32 / MAN as f32
    }
}

fn describe(score: i32) -> String {
    if score >= WIN_BOUND {
        format!("win-in-{}", WIN - score)
    } else if score <= -WIN_BOUND {
        format!("loss-in-{}", WIN + score)
    } else {
        format!("{:+.2}", score as f32 / MAN as f32)
    }
}

impl<E: Evaluator> AlphaBeta<E> {
    /// [`Agent::select`] for any evaluator.
    pub fn decide(&mut self, game: &Game, limits: &Limits) -> Decision {
        let (scored, depth) = self.search(game, limits, false);
        let analysis = self.analysis(game, &scored, depth);
        Decision {
            mv: scored[0].mv,
            analysis: Some(analysis),
        }
    }

    /// The chosen move with its score and the leaf of its principal variation: the quiet
    /// position whose evaluation is the root score (negated when the opponent is to move
    /// there), or `None` when the score is an end, a draw or a table hit (TD-Leaf trains on it).
    pub fn decide_with_leaf(
        &mut self,
        game: &Game,
        limits: &Limits,
    ) -> (Move, i32, Option<Position>) {
        let (scored, _) = self.search(game, limits, false);
        (scored[0].mv, scored[0].score, self.root_leaf)
    }

    /// [`Agent::analyse`] for any evaluator.
    pub fn analyse_all(&mut self, game: &Game, limits: &Limits) -> Analysis {
        let (scored, depth) = self.search(game, limits, true);
        self.analysis(game, &scored, depth)
    }

    /// [`Agent::new_game`] for any evaluator.
    pub fn reset(&mut self) {
        self.tt.fill(EMPTY_ENTRY);
        *self.history = [[0; 32]; 32];
        self.rng = StdRng::seed_from_u64(self.seed);
    }
}

impl Agent for AlphaBeta {
    fn name(&self) -> String {
        let c = &self.config;
        let mut s = String::from("alphabeta");
        let mut opts = Vec::new();
        if let Some(d) = c.limits.depth {
            opts.push(format!("depth={d}"));
        }
        if let Some(t) = c.limits.movetime {
            opts.push(format!("time={}", t.as_millis()));
        }
        if let Some(n) = c.limits.nodes {
            opts.push(format!("nodes={n}"));
        }
        if c.king_weight != 1.5 {
            opts.push(format!("king={}", c.king_weight));
        }
        if !opts.is_empty() {
            s.push(':');
            s.push_str(&opts.join(","));
        }
        s
    }

    fn select(&mut self, game: &Game, limits: &Limits) -> Decision {
        self.decide(game, limits)
    }

    fn analyse(&mut self, game: &Game, limits: &Limits) -> Option<Analysis> {
        Some(self.analyse_all(game, limits))
    }

    fn new_game(&mut self) {
        self.reset();
    }
}
