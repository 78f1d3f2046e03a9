//! AlphaZero's tree search: priors and values from an [`Evaluator`], exact values where the
//! game is over, and batches of leaves gathered with virtual loss so one network call serves
//! several simulations. Selection is PUCT (with Dirichlet noise at the root and first-play
//! urgency), or Gumbel AlphaZero's rules (src/mcts/gumbel.rs) when the config has `gumbel`.

use super::evaluator::{EvalInput, Evaluation, Evaluator};
use super::gumbel::{Children, GumbelConfig, Search, argmax, gumbel_noise, halving_schedule};
use super::tree::{Node, NodeId, ROOT, Tree};
use crate::games::{Checkers, Game, Rules};
use rand::Rng;
use rand_distr::{Distribution, Gamma};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctConfig {
    /// Exploration constant (AlphaZero's c_init when `c_base` is set).
    pub c_puct: f32,
    /// AlphaZero's log growth: c = c_puct + ln((N + c_base + 1) / c_base).
    pub c_base: Option<f32>,
    /// First-play urgency: an unvisited child counts as the parent's mean value less this.
    pub fpu_reduction: f32,
    /// Dirichlet noise at the root: (alpha, epsilon); none in play.
    pub noise: Option<(f32, f32)>,
    /// Leaves gathered (with virtual loss) per evaluator call.
    pub batch: usize,
    /// KataGo's forced playouts: a root child with fewer than sqrt(k * prior * N) visits is
    /// chosen first; [`Puct::policy_target`] then prunes those visits again.
    pub forced_playouts: Option<f32>,
    /// PUCT, or Gumbel AlphaZero's selection, target and choice (then `c_puct`, `c_base`,
    /// `fpu_reduction`, `noise` and `forced_playouts` do not apply).
    pub search: Search,
    /// Forced moves played through before a leaf is evaluated: a leaf with one legal
    /// action (a capture or a hop that must be made) gets it as its only child, without
    /// the network, up to this many in a row, so that the network judges the position
    /// after an exchange rather than in the middle of one (0: every leaf is evaluated).
    pub forced_through: u32,
    /// lc0's policy softmax temperature: each leaf's priors raised to 1/T and normalised
    /// as it is expanded. Above 1 it flattens the network's policy, so the search tries
    /// moves the network rates low; 1 leaves the priors as they are.
    pub policy_temperature: f32,
}

/// The search of this layer's own tests. The defaults of play and self-play are not here:
/// they are the settings table's (`az`'s options and the trainer's keys).
#[cfg(test)]
pub(crate) const TEST_PUCT: PuctConfig = PuctConfig {
    c_puct: 1.25,
    c_base: None,
    fpu_reduction: 0.25,
    noise: None,
    batch: 8,
    forced_playouts: None,
    search: Search::Puct,
    forced_through: 0,
    policy_temperature: 1.0,
};

impl PuctConfig {
    fn c(&self, parent_visits: u32) -> f32 {
        match self.c_base {
            Some(base) => self.c_puct + ((parent_visits as f32 + base + 1.0) / base).ln(),
            None => self.c_puct,
        }
    }
}

/// The temperature for picking moves by visit count: `initial` for the first `plies` plies,
/// then 0 (greedy); with `linear_decay` it falls from `initial` to 0 over those plies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Temperature {
    pub initial: f32,
    pub plies: usize,
    pub linear_decay: bool,
}

impl Temperature {
    pub const GREEDY: Temperature = Temperature {
        initial: 0.0,
        plies: 0,
        linear_decay: false,
    };

    pub fn at(&self, ply: usize) -> f32 {
        if ply >= self.plies {
            0.0
        } else if self.linear_decay {
            self.initial * (1.0 - ply as f32 / self.plies as f32)
        } else {
            self.initial
        }
    }
}

/// KataGo's playout-cap randomisation: a move gets a full search with probability
/// `full_probability`, else a fast one (without noise); only full searches become training
/// targets, so more games fit in the same time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayoutCap {
    pub full: u32,
    pub fast: u32,
    pub full_probability: f32,
}

impl PlayoutCap {
    /// The simulations for the next move and whether it is a full search.
    pub fn draw(&self, rng: &mut impl Rng) -> (u32, bool) {
        if rng.random::<f32>() < self.full_probability {
            (self.full, true)
        } else {
            (self.fast, false)
        }
    }
}

/// `priors` raised to `1 / temperature` and normalised (as they are at 1, or where they
/// sum to nothing).
fn tempered(mut priors: Vec<f32>, temperature: f32) -> Vec<f32> {
    if temperature == 1.0 {
        return priors;
    }
    priors
        .iter_mut()
        .for_each(|p| *p = p.powf(1.0 / temperature));
    let sum: f32 = priors.iter().sum();
    if sum > 0.0 {
        priors.iter_mut().for_each(|p| *p /= sum);
    }
    priors
}

/// The most visited child of `parent` (an expanded node), the higher prior among equals.
pub fn most_visited<G: Rules>(tree: &Tree<G>, parent: NodeId) -> NodeId {
    // A prior is at most 1, so half of it only breaks ties between equal counts.
    let chosen = tree
        .best_child(parent, |_, c, _| c.visits as f32 + c.prior * 0.5)
        .expect("an expanded node has children");
    tree.keep_proven(parent, chosen)
}

/// A child of `parent` by visit count: the most visited (then highest prior) at temperature 0,
/// else sampled in proportion to visits^(1/t) (priors where nothing was visited).
pub fn pick_child<G: Rules>(
    tree: &Tree<G>,
    parent: NodeId,
    temperature: f32,
    rng: &mut impl Rng,
) -> NodeId {
    if temperature <= 0.0 {
        return most_visited(tree, parent);
    }
    let kids: Vec<NodeId> = tree.children(parent).collect();
    let any_visits = kids.iter().any(|&c| tree.node(c).visits > 0);
    let weights: Vec<f64> = kids
        .iter()
        .map(|&c| {
            let n = tree.node(c);
            if any_visits {
                (n.visits as f64).powf(1.0 / temperature as f64)
            } else {
                n.prior as f64
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    if !(total.is_finite() && total > 0.0) {
        return most_visited(tree, parent);
    }
    let mut x = rng.random::<f64>() * total;
    let mut chosen = *kids.last().expect("an expanded node has children");
    for (&c, w) in kids.iter().zip(&weights) {
        x -= w;
        if x < 0.0 {
            chosen = c;
            break;
        }
    }
    tree.keep_proven(parent, chosen)
}

/// Leaves gathered for one evaluator call ([`Puct::gather`]).
pub struct Leaves<G: Rules = Checkers> {
    ids: Vec<NodeId>,
    /// What to evaluate, one per leaf.
    pub inputs: Vec<EvalInput<G>>,
    /// Simulations that ended on an exact value (already backed up).
    exact: usize,
}

impl<G: Rules> Leaves<G> {
    /// The simulations these leaves complete once applied.
    fn simulations(&self) -> usize {
        self.ids.len() + self.exact
    }
}

/// A search over one game's tree.
pub struct Puct<G: Rules = Checkers> {
    pub config: PuctConfig,
    tree: Tree<G>,
    /// Dirichlet (PUCT) or Gumbel noise for the root's children (empty until drawn for this
    /// root).
    root_noise: Vec<f32>,
    /// A distribution over the root's actions that makes `guide_share` of their priors, this
    /// decision's ([`Puct::guide_root`]), and its weights by the root children's order
    /// (empty until placed on an expanded root).
    root_guide: Vec<(G::Action, f32)>,
    guide_share: f32,
    guide_by_child: Vec<f32>,
    /// Gumbel: the simulations of the current decision, and its root children's visits
    /// before it (empty: none) and Sequential Halving's schedule (empty until the root is
    /// expanded).
    budget: usize,
    base_visits: Vec<u32>,
    schedule: Vec<u32>,
}

impl<G: Rules> Puct<G> {
    pub fn new(config: PuctConfig, game: &Game<G>) -> Self {
        Puct {
            config,
            tree: Tree::new(game),
            root_noise: Vec::new(),
            root_guide: Vec::new(),
            guide_share: 0.0,
            guide_by_child: Vec::new(),
            budget: 0,
            base_visits: Vec::new(),
            schedule: Vec::new(),
        }
    }

    pub fn tree(&self) -> &Tree<G> {
        &self.tree
    }

    /// Perfect endgames for the tree's leaves (see [`Tree::set_oracle`]).
    pub fn set_oracle(&mut self, oracle: Option<crate::endgame::Oracle<G>>) {
        self.tree.set_oracle(oracle);
    }

    /// Draws below nothing for the root's side (see [`Tree::set_contempt`]).
    pub fn set_contempt(&mut self, contempt: f32) {
        self.tree.set_contempt(contempt);
    }

    /// Moves on to the current position of `game`, keeping what was searched below it if
    /// `game` continues the searched game.
    pub fn follow(&mut self, game: &Game<G>) {
        self.tree.follow(game);
        self.start_decision(self.budget as u32);
    }

    /// Moves the root along one action (legal at the root), keeping its subtree: self-play
    /// searches again at every action of a turn (each hop of a checkers multi-jump).
    pub fn advance_action(&mut self, action: G::Action) {
        self.tree.advance(&[action]);
        self.start_decision(self.budget as u32);
    }

    /// Starts a decision of `simulations` simulations at the current root, with fresh root
    /// noise: Gumbel's Sequential Halving splits them among the sampled root actions (PUCT
    /// needs only the noise).
    pub fn start_decision(&mut self, simulations: u32) {
        self.root_noise.clear();
        self.root_guide.clear();
        self.guide_share = 0.0;
        self.guide_by_child.clear();
        self.budget = simulations as usize;
        self.base_visits = self
            .tree
            .children(ROOT)
            .map(|c| self.tree.node(c).visits)
            .collect();
        self.schedule.clear();
    }

    /// For this decision, each root action's prior becomes `(1 - share)` of the network's
    /// plus `share` of `guide`'s weight for it (0 where `guide` leaves it out): another
    /// judge's view of the root's moves steering where the search looks (`az:check_prior`).
    /// PUCT only; a new decision drops it.
    pub fn guide_root(&mut self, share: f32, guide: Vec<(G::Action, f32)>) {
        (self.root_guide, self.guide_share) = (guide, share);
        self.guide_by_child.clear();
    }

    /// Runs `simulations` more simulations, in batches of up to `config.batch` leaves.
    pub fn run(&mut self, eval: &mut dyn Evaluator<G>, simulations: u32, rng: &mut impl Rng) {
        self.run_while(eval, simulations.into(), rng, |_, _| true);
    }

    /// Runs up to `simulations` more simulations while `more(tree, done)` holds (asked before
    /// the first batch and after each batch is applied, with the simulations done so far);
    /// returns the simulations done. With an evaluator that takes several batches at once (a
    /// GPU, or threads of its own), up to its [`in_flight`](Evaluator::in_flight) batches
    /// are begun before the oldest is applied, the later ones gathered under the earlier
    /// ones' virtual loss, and the next is begun as soon as one is applied, so the
    /// evaluator is never left waiting on the tree; once `more` fails, the batches still in
    /// flight are applied and no more begun.
    pub fn run_while(
        &mut self,
        eval: &mut dyn Evaluator<G>,
        simulations: u64,
        rng: &mut impl Rng,
        mut more: impl FnMut(&Tree<G>, u64) -> bool,
    ) -> u64 {
        let most = eval.in_flight().max(1);
        let mut flying = std::collections::VecDeque::with_capacity(most);
        let (mut begun, mut done) = (0, 0);
        let mut open = more(&self.tree, done);
        loop {
            while open && flying.len() < most && begun < simulations {
                let batch = (self.config.batch.max(1) as u64).min(simulations - begun);
                let leaves = self.gather(batch as usize, eval.history(), rng);
                if leaves.inputs.is_empty() {
                    // Only exact values, or a descent into a leaf still being evaluated.
                    let exact = self.apply(leaves, Vec::new()) as u64;
                    (begun, done) = (begun + exact, done + exact);
                    if exact == 0 {
                        break;
                    }
                    open = more(&self.tree, done);
                    continue;
                }
                begun += leaves.simulations() as u64;
                let evaluations = eval.begin(&leaves.inputs);
                flying.push_back((leaves, evaluations));
            }
            let Some((leaves, evaluations)) = flying.pop_front() else {
                return done;
            };
            done += self.apply(leaves, evaluations.finish()) as u64;
            open = open && more(&self.tree, done);
        }
    }

    /// Gathers up to `batch` leaves (each under virtual loss, so the next descent looks
    /// elsewhere) for one evaluator call; leaves whose value is exact are backed up at once.
    /// A descent that ends on a leaf already gathered ends the gathering. A self-play worker
    /// gathers from many games, evaluates all their leaves together and applies the answers
    /// to each game with [`apply`](Self::apply).
    pub fn gather(&mut self, batch: usize, history: usize, rng: &mut impl Rng) -> Leaves<G> {
        self.draw_root_noise(rng);
        self.place_root_guide();
        let mut leaves = Vec::with_capacity(batch);
        let mut inputs = Vec::with_capacity(batch);
        let mut exact = 0;
        while leaves.len() + exact < batch.max(1) {
            let leaf = self.descend();
            if self.tree.node(leaf).pending {
                break;
            }
            let mut actions = Vec::new();
            let mut status = self.tree.status(leaf, &mut actions);
            let mut leaf = leaf;
            for _ in 0..self.config.forced_through {
                if status.is_some() || actions.len() != 1 {
                    break;
                }
                // Its one child, with all the prior. No network value of its own (0 where
                // one is read: with a single child no choice depends on it); the backup
                // brings its child's values up through it.
                self.tree.expand(leaf, &actions, &[1.0], 0.0);
                leaf = self.tree.children(leaf).next().expect("one child");
                status = self.tree.status(leaf, &mut actions);
            }
            if let Some(value) = status {
                self.tree.backup(leaf, value);
                exact += 1;
                continue;
            }
            self.tree.set_pending(leaf, true);
            self.tree.virtual_loss(leaf, 1);
            inputs.push(self.tree.eval_input(leaf, actions, history));
            leaves.push(leaf);
        }
        Leaves {
            ids: leaves,
            inputs,
            exact,
        }
    }

    /// Expands the gathered leaves with their evaluations (one per input, in order) and backs
    /// the values up. Returns the simulations completed.
    pub fn apply(&mut self, leaves: Leaves<G>, evals: Vec<Evaluation>) -> usize {
        assert_eq!(evals.len(), leaves.ids.len(), "one evaluation per input");
        for ((&leaf, input), e) in leaves.ids.iter().zip(&leaves.inputs).zip(evals) {
            self.tree.virtual_loss(leaf, -1);
            self.tree.set_pending(leaf, false);
            let priors = tempered(e.priors, self.config.policy_temperature);
            self.tree.expand(leaf, &input.actions, &priors, e.value);
            self.tree.backup(leaf, e.value);
        }
        leaves.simulations()
    }

    /// Draws the root's Dirichlet noise (Gamma samples, normalised) once the root is
    /// expanded: a fresh root's first round only evaluates the root itself.
    fn draw_root_noise(&mut self, rng: &mut impl Rng) {
        let n = self.tree.children(ROOT).count();
        if n == 0 || !self.root_noise.is_empty() {
            return;
        }
        if let Search::Gumbel(g) = self.config.search {
            // Without noise the ranking reads no noise at all (`gumbel_scores`).
            if g.noise {
                self.root_noise = gumbel_noise(n, rng);
            }
            return;
        }
        let Some((alpha, _)) = self.config.noise else {
            return;
        };
        let Ok(gamma) = Gamma::new(alpha, 1.0) else {
            return;
        };
        let mut noise: Vec<f32> = (0..n).map(|_| gamma.sample(rng)).collect();
        let sum: f32 = noise.iter().sum();
        if sum > 0.0 {
            noise.iter_mut().for_each(|x| *x /= sum);
            self.root_noise = noise;
        }
    }

    /// Lays the root guide's weights out by the root children's order once the root is
    /// expanded (a fresh root's first round only evaluates the root itself).
    fn place_root_guide(&mut self) {
        if self.guide_share <= 0.0 || !self.guide_by_child.is_empty() {
            return;
        }
        let guide = &self.root_guide;
        let weight = |action| guide.iter().find(|g| g.0 == action).map_or(0.0, |g| g.1);
        self.guide_by_child = (self.tree.children(ROOT))
            .map(|c| weight(self.tree.node(c).action))
            .collect();
    }

    /// Follows the best PUCT score down to a leaf or a terminal node; forced playouts come
    /// first at the root. With Gumbel, its rules choose instead.
    fn descend(&mut self) -> NodeId {
        if let Search::Gumbel(g) = self.config.search {
            self.prepare_schedule(&g);
            return self.tree.descend_by(|id| {
                if !self.tree.node(id).is_expanded() {
                    None
                } else if id == ROOT {
                    Some(self.gumbel_root_child(&g))
                } else {
                    Some(Children::of(&self.tree, id, &g).interior_choice())
                }
            });
        }
        self.tree
            .descend(|parent: &Node<G>, child: &Node<G>, i: usize| {
                let visits = child.visits + child.virtual_loss;
                if parent.is_root()
                    && let Some(k) = self.config.forced_playouts
                    && (visits as f32) < forced(k, self.prior(parent, child, i), parent.visits)
                {
                    return f32::INFINITY;
                }
                self.score(parent, child, i, visits)
            })
    }

    /// Builds Sequential Halving's schedule once the root is expanded (the number of root
    /// actions decides how many are sampled).
    fn prepare_schedule(&mut self, g: &GumbelConfig) {
        let n = self.tree.children(ROOT).count();
        if self.schedule.is_empty() && n > 0 {
            self.schedule = halving_schedule(g.considered.min(n), self.budget);
        }
    }

    /// The root children's visits in this decision (simulations under way included).
    fn decision_visits(&self, kids: &Children) -> Vec<u32> {
        let base = |i: usize| self.base_visits.get(i).copied().unwrap_or(0);
        (kids.visits.iter().enumerate())
            .map(|(i, &v)| v.saturating_sub(base(i)))
            .collect()
    }

    /// g + logit + sigma(q^) of each root child: Gumbel's ranking of root actions.
    fn gumbel_scores(&self, kids: &Children) -> Vec<f32> {
        (kids.logits.iter().zip(&kids.sigma_q).enumerate())
            .map(|(i, (l, s))| self.root_noise.get(i).copied().unwrap_or(0.0) + l + s)
            .collect()
    }

    /// Sequential Halving at the root: the best-ranked child among those with the visit
    /// count the schedule asks for at this simulation (the fewest-visited if none has it);
    /// past the decision's budget, the rule used below the root.
    fn gumbel_root_child(&self, g: &GumbelConfig) -> NodeId {
        let kids = Children::of(&self.tree, ROOT, g);
        let visits = self.decision_visits(&kids);
        let sim: u32 = visits.iter().sum();
        let Some(&want) = self.schedule.get(sim as usize) else {
            return kids.interior_choice();
        };
        let want = if visits.contains(&want) {
            want
        } else {
            *visits.iter().min().expect("an expanded root has children")
        };
        self.best_ranked_with(&kids, &visits, want)
    }

    /// The best-ranked root child among those with `count` visits in this decision.
    fn best_ranked_with(&self, kids: &Children, visits: &[u32], count: u32) -> NodeId {
        let scores = self.gumbel_scores(kids);
        let masked = (scores.iter().zip(visits))
            .map(|(&s, &n)| if n == count { s } else { f32::NEG_INFINITY });
        kids.ids[argmax(masked)]
    }

    /// Gumbel's move: the best-ranked of the root children the decision visited most (the
    /// survivors of Sequential Halving). `None` for PUCT or an unexpanded root.
    pub fn gumbel_choice(&self) -> Option<NodeId> {
        let g = self.config.search.gumbel()?;
        if !self.tree.root().is_expanded() {
            return None;
        }
        let kids = Children::of(&self.tree, ROOT, &g);
        let visits = self.decision_visits(&kids);
        let most = visits.iter().copied().max()?;
        Some(self.best_ranked_with(&kids, &visits, most))
    }

    /// A child's prior, mixed at the root with the root guide's and then the root noise.
    fn prior(&self, parent: &Node<G>, child: &Node<G>, i: usize) -> f32 {
        if !parent.is_root() {
            return child.prior;
        }
        let share = self.guide_share;
        let prior = match self.guide_by_child.get(i) {
            Some(guide) => (1.0 - share) * child.prior + share * guide,
            None => child.prior,
        };
        let eps = self.config.noise.map_or(0.0, |(_, e)| e);
        match self.root_noise.get(i) {
            Some(noise) => (1.0 - eps) * prior + eps * noise,
            None => prior,
        }
    }

    /// The PUCT score of `child` as if it had `visits` visits: Q (or first-play urgency)
    /// plus the exploration term.
    fn score(&self, parent: &Node<G>, child: &Node<G>, i: usize, visits: u32) -> f32 {
        let n_parent = parent.visits + parent.virtual_loss;
        let q = self
            .tree
            .q_for_parent(parent, child)
            .unwrap_or(parent.q() - self.config.fpu_reduction);
        let u = self.config.c(n_parent) * self.prior(parent, child, i) * (n_parent as f32).sqrt();
        q + u / (1 + visits) as f32
    }

    /// The training target at the root: each child's share of the visits, indexed like the
    /// root's children. With forced playouts, KataGo's pruning first takes back from every
    /// child but the most visited as many forced visits as keep its PUCT score below the
    /// best child's, and drops children left with a single visit.
    /// With Gumbel the target is the improved policy softmax(logit + sigma(completed Q)).
    pub fn policy_target(&self) -> Vec<(G::Action, f32)> {
        let tree = &self.tree;
        if let Search::Gumbel(g) = self.config.search {
            let kids = Children::of(tree, ROOT, &g);
            let actions = kids.ids.iter().map(|&c| tree.node(c).action);
            return actions.zip(kids.improved_policy()).collect();
        }
        let root = tree.root();
        let kids: Vec<NodeId> = tree.children(ROOT).collect();
        let mut visits: Vec<f32> = kids.iter().map(|&c| tree.node(c).visits as f32).collect();
        let best = tree.best_child(ROOT, |_, c, _| c.visits as f32);
        if let (Some(k), Some(best)) = (self.config.forced_playouts, best) {
            let b = tree.node(best);
            let bi = kids.iter().position(|&c| c == best).unwrap_or(0);
            let best_score = self.score(root, b, bi, b.visits);
            for (i, (&c, v)) in kids.iter().zip(visits.iter_mut()).enumerate() {
                let child = tree.node(c);
                if c == best || child.visits == 0 {
                    continue;
                }
                let most = forced(k, self.prior(root, child, i), root.visits).floor() as u32;
                let mut n = child.visits;
                while n > 0
                    && child.visits - n < most
                    && self.score(root, child, i, n - 1) < best_score
                {
                    n -= 1;
                }
                *v = if n <= 1 { 0.0 } else { n as f32 };
            }
        }
        let total: f32 = visits.iter().sum();
        kids.iter()
            .zip(visits)
            .map(|(&c, v)| {
                (
                    tree.node(c).action,
                    if total > 0.0 { v / total } else { 0.0 },
                )
            })
            .collect()
    }
}

/// Visits KataGo forces on a root child: sqrt(k * prior * parent visits).
fn forced(k: f32, prior: f32, parent_visits: u32) -> f32 {
    (k * prior * parent_visits as f32).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Rules;
    use crate::mcts::evaluator::MaterialEvaluator;
    use crate::mcts::gumbel::TEST_GUMBEL;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn temperature_is_one_then_greedy_or_decays_linearly() {
        let t = Temperature {
            initial: 1.0,
            plies: 10,
            linear_decay: false,
        };
        assert_eq!((t.at(0), t.at(9), t.at(10)), (1.0, 1.0, 0.0));
        let d = Temperature {
            linear_decay: true,
            ..t
        };
        assert_eq!((d.at(0), d.at(5), d.at(10)), (1.0, 0.5, 0.0));
        assert_eq!(Temperature::GREEDY.at(0), 0.0);
    }

    #[test]
    fn self_play_search_noises_the_root_forces_playouts_and_prunes_them_from_the_target() {
        let mut rng = StdRng::seed_from_u64(3);
        // Self-play's: log-growth c_puct, root noise, forced playouts.
        let config = PuctConfig {
            c_base: Some(19652.0),
            noise: Some((1.0, 0.25)),
            forced_playouts: Some(2.0),
            ..TEST_PUCT
        };
        let mut search = Puct::new(config, &Game::new());
        let n = 400;
        search.run(&mut MaterialEvaluator::default(), n, &mut rng);
        let tree = search.tree();
        let kids: Vec<NodeId> = tree.children(ROOT).collect();
        assert_eq!(search.root_noise.len(), kids.len());
        assert!((search.root_noise.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        // Every child got (about) its forced visits, counted against the final total.
        for (i, &c) in kids.iter().enumerate() {
            let p = search.prior(tree.root(), tree.node(c), i);
            let want = forced(2.0, p, n).floor() as u32;
            assert!(tree.node(c).visits + 2 >= want, "child {i}: {want} forced");
        }
        let target = search.policy_target();
        assert!((target.iter().map(|t| t.1).sum::<f32>() - 1.0).abs() < 1e-5);
        let best = tree.best_child(ROOT, |_, c, _| c.visits as f32).unwrap();
        let bi = kids.iter().position(|&c| c == best).unwrap();
        let raw = tree.node(best).visits as f32
            / kids.iter().map(|&c| tree.node(c).visits).sum::<u32>() as f32;
        assert!(
            target[bi].1 >= raw,
            "pruning only moves weight to the best child"
        );
    }

    /// The policy temperature flattens priors above 1 and sharpens them below, keeping
    /// their order and their sum; at 1, or on priors that sum to nothing, they stay.
    #[test]
    fn the_policy_temperature_flattens_priors() {
        let close = |a: Vec<f32>, b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(close(
            tempered(vec![0.8, 0.2], 2.0),
            &[2.0 / 3.0, 1.0 / 3.0]
        ));
        assert!(close(
            tempered(vec![2.0 / 3.0, 1.0 / 3.0], 0.5),
            &[0.8, 0.2]
        ));
        assert_eq!(tempered(vec![0.7, 0.3], 1.0), vec![0.7, 0.3]);
        assert_eq!(tempered(vec![0.0, 0.0], 2.0), vec![0.0, 0.0]);
    }

    /// A root guide makes its share of the root's priors for one decision: with all of it
    /// on the least visited of the unguided search's moves, that move is searched most;
    /// the next decision drops the guide.
    #[test]
    fn a_root_guide_steers_one_decision() {
        let game = Game::new();
        let visits = |guide: Option<usize>| {
            let mut search = Puct::new(TEST_PUCT, &game);
            search.run(
                &mut MaterialEvaluator::default(),
                1,
                &mut StdRng::seed_from_u64(1),
            );
            let actions: Vec<_> = (search.tree().children(ROOT))
                .map(|c| search.tree().node(c).action)
                .collect();
            if let Some(i) = guide {
                search.guide_root(1.0, vec![(actions[i], 1.0)]);
            }
            search.run(
                &mut MaterialEvaluator::default(),
                200,
                &mut StdRng::seed_from_u64(1),
            );
            let priors = |search: &Puct| -> Vec<f32> {
                let tree = search.tree();
                (tree.children(ROOT).enumerate())
                    .map(|(i, c)| search.prior(tree.root(), tree.node(c), i))
                    .collect()
            };
            let tree = search.tree();
            let v: Vec<u32> = tree.children(ROOT).map(|c| tree.node(c).visits).collect();
            let guided = priors(&search);
            search.start_decision(0);
            let tree = search.tree();
            let network: Vec<f32> = tree.children(ROOT).map(|c| tree.node(c).prior).collect();
            (v, guided, priors(&search) == network)
        };
        let (plain, _, _) = visits(None);
        let least = (0..plain.len()).min_by_key(|&i| plain[i]).unwrap();
        let (guided, priors, dropped) = visits(Some(least));
        let most = (0..guided.len()).max_by_key(|&i| guided[i]).unwrap();
        assert_eq!(most, least, "{plain:?} then {guided:?}");
        assert_eq!(priors[least], 1.0);
        assert!(dropped, "a new decision plays the network's priors again");
    }

    /// With `forced_through`, the network never judges a leaf with one legal action
    /// (checkers' captures that must be made): it judges the position after them, and the
    /// search's visits still add up; without it, such leaves are evaluated.
    #[test]
    fn forced_moves_are_played_through_before_a_leaf_is_evaluated() {
        /// Counts the inputs that had one legal action, evaluating as material does.
        struct Counting(MaterialEvaluator, usize);
        impl Evaluator for Counting {
            fn evaluate(&mut self, inputs: &[EvalInput]) -> Vec<Evaluation> {
                self.1 += inputs.iter().filter(|i| i.actions.len() == 1).count();
                self.0.evaluate(inputs)
            }
        }
        // Black's 15 faces White's 19 and 18 beside it: exchanges are everywhere.
        let game =
            Game::from_position(Checkers::parse_position("B:W18,19,22,23,26:B9,10,11,15").unwrap());
        let singles = |forced_through| {
            let config = PuctConfig {
                forced_through,
                ..TEST_PUCT
            };
            let mut search = Puct::new(config, &game);
            let mut eval = Counting(MaterialEvaluator::default(), 0);
            search.run(&mut eval, 300, &mut StdRng::seed_from_u64(1));
            assert_eq!(search.tree().root().visits, 300);
            eval.1
        };
        assert!(singles(0) > 0, "the position has forced leaves to evaluate");
        assert_eq!(singles(64), 0);
    }

    /// Uniform priors and a value fixed by the position: a deterministic stand-in whose
    /// root actions differ in value.
    struct HashedValues;

    impl Evaluator for HashedValues {
        fn evaluate(&mut self, inputs: &[EvalInput]) -> Vec<Evaluation> {
            let value = |inp: &EvalInput| {
                let h = Checkers::hash(inp.state.position());
                (h % 2001) as f32 / 1000.0 - 1.0
            };
            (inputs.iter())
                .map(|inp| Evaluation {
                    priors: vec![1.0 / inp.actions.len() as f32; inp.actions.len()],
                    value: value(inp) * 0.9,
                })
                .collect()
        }
    }

    fn gumbel_search() -> Puct {
        let config = PuctConfig {
            batch: 1,
            search: Search::Gumbel(TEST_GUMBEL),
            ..TEST_PUCT
        };
        Puct::new(config, &Game::new())
    }

    #[test]
    fn sequential_halving_spends_the_budget_and_keeps_the_best_root_actions() {
        // The start has 7 moves, all sampled (m = 16); 3 phases over 42 simulations after the
        // one that expands the root: 2 visits each, then 4 each to the best 3, then the best 2.
        let (mut search, mut rng) = (gumbel_search(), StdRng::seed_from_u64(1));
        let schedule = halving_schedule(7, 43);
        search.start_decision(43);
        search.run(&mut HashedValues, 1 + 14, &mut rng);
        let visits = |s: &Puct| -> Vec<u32> {
            let t = s.tree();
            t.children(ROOT).map(|c| t.node(c).visits).collect()
        };
        assert_eq!(visits(&search), [2; 7], "phase one visits all seven twice");
        let g = TEST_GUMBEL;
        let kids = Children::of(search.tree(), ROOT, &g);
        let scores = search.gumbel_scores(&kids);
        let mut ranked: Vec<usize> = (0..7).collect();
        ranked.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        search.run(&mut HashedValues, 43 - 15, &mut rng);
        let v = visits(&search);
        assert_eq!(
            v.iter().sum::<u32>(),
            42,
            "the budget, less the root's expansion"
        );
        let mut promoted: Vec<usize> = (0..7).filter(|&i| v[i] > 2).collect();
        promoted.sort();
        let mut best3 = ranked[..3].to_vec();
        best3.sort();
        assert_eq!(
            promoted, best3,
            "the best three by g + logit + sigma(q) go on"
        );
        // As many actions reach k visits as the schedule has entries k - 1.
        for k in 1..=*v.iter().max().unwrap() {
            let reached = v.iter().filter(|&&n| n >= k).count();
            let asked = schedule[..42].iter().filter(|&&s| s == k - 1).count();
            assert_eq!(reached, asked, "actions with at least {k} visits");
        }
        let chosen = search.gumbel_choice().unwrap();
        assert_eq!(search.tree().node(chosen).visits, *v.iter().max().unwrap());
    }

    #[test]
    fn the_improved_policy_is_a_distribution_that_favours_higher_q() {
        let (mut search, mut rng) = (gumbel_search(), StdRng::seed_from_u64(2));
        search.start_decision(30);
        search.run(&mut HashedValues, 30, &mut rng);
        let target = search.policy_target();
        let total: f32 = target.iter().map(|t| t.1).sum();
        assert!((total - 1.0).abs() < 1e-5 && target.iter().all(|t| t.1 > 0.0));
        let tree = search.tree();
        let q: Vec<Option<f32>> = (tree.children(ROOT))
            .map(|c| tree.value_for_parent(tree.root(), tree.node(c)))
            .collect();
        // Equal priors: among visited actions the target orders as Q does.
        for i in 0..q.len() {
            for j in 0..q.len() {
                if let (Some(a), Some(b)) = (q[i], q[j])
                    && a > b + 1e-6
                {
                    assert!(target[i].1 > target[j].1, "{i} (q {a}) over {j} (q {b})");
                }
            }
        }
    }

    #[test]
    fn playout_cap_draws_full_searches_at_the_asked_rate() {
        let cap = PlayoutCap {
            full: 600,
            fast: 100,
            full_probability: 0.25,
        };
        let mut rng = StdRng::seed_from_u64(0);
        let full = (0..4000).filter(|_| cap.draw(&mut rng).1).count();
        // 4000 draws: standard deviation ~27 around 1000; 150 is over 5 of them.
        assert!((850..1150).contains(&full), "{full}");
    }
}
