//! Gumbel AlphaZero's search rules (Danihelka, Guez, Schrittwieser, Silver, "Policy
//! improvement by planning with Gumbel", ICLR 2022), which [`Puct`](super::Puct) follows when
//! its config has `gumbel` set:
//!
//! - At the root, Gumbel-top-k: the m actions with the largest g(a) + logit(a) (g drawn from
//!   Gumbel(0, 1) once per decision; zero in play) are searched, and Sequential Halving
//!   splits the decision's simulations among them, keeping the better half by
//!   g + logit + sigma(q^) after each phase. The action played is the survivor with the best
//!   such score.
//! - The training target is the improved policy softmax(logit + sigma(completed Q)): Q where
//!   an action was visited, else the value mixing the network's value with the visited Qs.
//! - Below the root the selection is deterministic: argmax pi'(a) - N(a) / (1 + sum N), with
//!   pi' the improved policy at that node.
//!
//! sigma(q) = (c_visit + max_b N(b)) c_scale q, applied to Q rescaled to [0, 1] over the
//! node's children (values here are in [-1, 1]).

use super::tree::{Node, NodeId, Tree};
use crate::games::Rules;

crate::names::named_enum! {
    /// Which tree search: AlphaZero's PUCT or Gumbel AlphaZero's.
    #[derive(Default, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum SearchKind {
        /// AlphaZero's PUCT selection.
        Puct = "puct" (default),
        /// Gumbel AlphaZero's: Sequential Halving at the root, deterministic below.
        Gumbel = "gumbel",
    }
}

/// Which tree search runs, with the settings only it has: the one place the choice is held.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Search {
    /// AlphaZero's PUCT (its constants are [`PuctConfig`](super::PuctConfig)'s).
    #[default]
    Puct,
    /// Gumbel AlphaZero's root and selection.
    Gumbel(GumbelConfig),
}

impl Search {
    /// Its name.
    pub fn kind(self) -> SearchKind {
        match self {
            Search::Puct => SearchKind::Puct,
            Search::Gumbel(_) => SearchKind::Gumbel,
        }
    }

    /// Gumbel's settings, `None` for PUCT.
    pub fn gumbel(self) -> Option<GumbelConfig> {
        match self {
            Search::Puct => None,
            Search::Gumbel(g) => Some(g),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GumbelConfig {
    /// Root actions sampled for Sequential Halving (the paper's m).
    pub considered: usize,
    /// The paper's c_visit and c_scale (sigma's constants).
    pub c_visit: f32,
    pub c_scale: f32,
    /// Draw the root's Gumbel noise (self-play); without it the search is deterministic.
    pub noise: bool,
}

/// The paper's constants (m = 16, c_visit = 50, c_scale = 1) without noise, for this layer's
/// own tests; play's and self-play's are the settings table's.
#[cfg(test)]
pub(crate) const TEST_GUMBEL: GumbelConfig = GumbelConfig {
    considered: 16,
    c_visit: 50.0,
    c_scale: 1.0,
    noise: false,
};

/// Sequential Halving's schedule for `considered` actions and `budget` simulations: entry
/// s is the visit count (this decision's) an action must have to be chosen by simulation s.
/// Each phase gives every remaining action the same number of visits, at least one, and
/// halves the actions (to no fewer than two); phases number ceil(log2(considered)).
pub fn halving_schedule(considered: usize, budget: usize) -> Vec<u32> {
    if considered <= 1 {
        return (0..budget as u32).collect();
    }
    let phases = considered.next_power_of_two().trailing_zeros() as usize;
    let mut schedule = Vec::with_capacity(budget);
    let mut remaining = considered;
    let mut visits = 0u32;
    while schedule.len() < budget {
        let per_action = (budget / (phases * remaining)).max(1);
        for _ in 0..per_action {
            schedule.extend(std::iter::repeat_n(visits, remaining));
            visits += 1;
        }
        remaining = (remaining / 2).max(2);
    }
    schedule.truncate(budget);
    schedule
}

/// A node's children seen from the node: visits (with simulations under way), priors'
/// logits, and sigma of the completed, rescaled Q.
pub(super) struct Children {
    pub ids: Vec<NodeId>,
    pub visits: Vec<u32>,
    pub logits: Vec<f32>,
    pub sigma_q: Vec<f32>,
}

/// The smallest prior whose logarithm is taken (an exactly zero prior would give -inf).
const MIN_PRIOR: f32 = 1e-30;

impl Children {
    pub fn of<G: Rules>(tree: &Tree<G>, id: NodeId, config: &GumbelConfig) -> Children {
        let parent = tree.node(id);
        let ids: Vec<NodeId> = tree.children(id).collect();
        let kids: Vec<&Node<G>> = ids.iter().map(|&c| tree.node(c)).collect();
        let visits: Vec<u32> = kids.iter().map(|c| c.visits + c.virtual_loss).collect();
        let priors: Vec<f32> = kids.iter().map(|c| c.prior.max(MIN_PRIOR)).collect();
        let q: Vec<Option<f32>> = kids
            .iter()
            .map(|c| tree.value_for_parent(parent, c))
            .collect();
        let completed = completed_q(parent.raw_value, &q, &kids, &priors);
        let (lo, hi) = completed
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        let scale = (config.c_visit + visits.iter().copied().max().unwrap_or(0) as f32)
            * config.c_scale
            / (hi - lo).max(1e-8);
        Children {
            sigma_q: completed.iter().map(|&v| (v - lo) * scale).collect(),
            logits: priors.iter().map(|p| p.ln()).collect(),
            ids,
            visits,
        }
    }

    /// softmax(logit + sigma(q^)): the improved policy over the children.
    pub fn improved_policy(&self) -> Vec<f32> {
        let z: Vec<f32> = (self.logits.iter().zip(&self.sigma_q))
            .map(|(l, s)| l + s)
            .collect();
        let max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = z.iter().map(|v| (v - max).exp()).collect();
        let sum: f32 = e.iter().sum();
        e.iter().map(|v| v / sum).collect()
    }

    /// The deterministic selection below the root: argmax pi'(a) - N(a) / (1 + sum N).
    pub fn interior_choice(&self) -> NodeId {
        let total = 1 + self.visits.iter().sum::<u32>();
        let pi = self.improved_policy();
        let scores = pi
            .iter()
            .zip(&self.visits)
            .map(|(p, &n)| p - n as f32 / total as f32);
        self.ids[argmax(scores)]
    }
}

/// Completed Q: each visited child's Q; for the unvisited ones the mixed value
/// (v + sum N * (sum over visited of prior * q) / (sum over visited of prior)) / (1 + sum N),
/// where v is the network's value of the node itself.
fn completed_q<G: Rules>(
    raw_value: f32,
    q: &[Option<f32>],
    kids: &[&Node<G>],
    priors: &[f32],
) -> Vec<f32> {
    let total: u32 = kids.iter().map(|c| c.visits).sum();
    let (mass, weighted) = q
        .iter()
        .zip(priors)
        .filter_map(|(q, &p)| q.map(|q| (p, p * q)))
        .fold((0.0f32, 0.0f32), |(m, w), (p, pq)| (m + p, w + pq));
    let mixed = if mass > 0.0 {
        (raw_value + total as f32 * weighted / mass) / (1 + total) as f32
    } else {
        raw_value
    };
    q.iter().map(|q| q.unwrap_or(mixed)).collect()
}

/// The index of the largest score (the first of equals).
pub(super) fn argmax(scores: impl Iterator<Item = f32>) -> usize {
    let mut best = (0, f32::NEG_INFINITY);
    for (i, s) in scores.enumerate() {
        if s > best.1 {
            best = (i, s);
        }
    }
    best.0
}

/// Draws Gumbel(0, 1) noise: -ln(-ln(u)) for u uniform in (0, 1).
pub(super) fn gumbel_noise(n: usize, rng: &mut impl rand::Rng) -> Vec<f32> {
    (0..n)
        .map(|_| {
            let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
            -(-u.ln()).ln() as f32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_halves_the_actions_and_spends_the_budget() {
        // 4 actions, 16 simulations: two phases of 16 / (2 * 4) = 2 visits to each of 4,
        // then 16 / (2 * 2) = 4 visits to each of 2.
        let s = halving_schedule(4, 16);
        assert_eq!(s, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
        // A budget below the actions visits the best `budget` once each.
        assert_eq!(halving_schedule(16, 5), [0; 5]);
        assert_eq!(halving_schedule(1, 3), [0, 1, 2]);
        for (m, n) in [(16, 32), (16, 200), (3, 7), (8, 100)] {
            assert_eq!(halving_schedule(m, n).len(), n);
        }
    }
}
