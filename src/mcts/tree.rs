//! The search tree: nodes in one `Vec`, linked by indices, one node per state of the game's
//! action view (`Rules::State`: for checkers every hop of a multi-jump is a node).
//!
//! Values are kept from the view of each node's own side to move; a parent reads a child's
//! value with its sign flipped only when the side to move changed between them (inside a
//! checkers multi-jump it does not). Draw rules are exact: a turn-start node knows its quiet
//! count and finds repetitions by walking its turn-start ancestors and then the game
//! positions before the root.

use super::evaluator::EvalInput;
use crate::endgame::{Oracle, Value};
use crate::games::{Checkers, Color, Game, Rules};

pub type NodeId = u32;
/// Every tree's root.
pub const ROOT: NodeId = 0;
const NONE: NodeId = u32::MAX;
/// Game positions kept before the root beyond the quiet-draw window: enough for any
/// history planes.
const EXTRA_CONTEXT: usize = 16;

#[derive(Clone, Debug)]
pub struct Node<G: Rules = Checkers> {
    pub state: G::State,
    /// The action from the parent (the default placeholder at the root).
    pub action: G::Action,
    pub parent: NodeId,
    first_child: NodeId,
    num_children: u16,
    /// The network's (or uniform) probability of `action` at the parent.
    pub prior: f32,
    pub visits: u32,
    /// Sum of backed-up values, from this node's side to move.
    pub value_sum: f32,
    /// The evaluator's value of this node, from its side to move (0 until evaluated).
    pub raw_value: f32,
    /// Simulations under way through this node (each counts as a loss for whoever chose it).
    pub virtual_loss: u32,
    /// The exact value for the side to move where the game is over here.
    pub terminal: Option<f32>,
    /// Waiting for its evaluation in the current batch.
    pub pending: bool,
    /// At a turn start: plies since the last irreversible action.
    pub quiet: u32,
    /// At a turn start: the position's hash (for repetitions).
    pub hash: u64,
}

impl<G: Rules> Node<G> {
    fn new(state: G::State, action: G::Action, parent: NodeId, prior: f32, quiet: u32) -> Self {
        Node {
            hash: G::position(&state).map_or(0, |p| G::hash(&p)),
            state,
            action,
            parent,
            first_child: NONE,
            num_children: 0,
            prior,
            visits: 0,
            value_sum: 0.0,
            raw_value: 0.0,
            virtual_loss: 0,
            terminal: None,
            pending: false,
            quiet,
        }
    }

    pub fn is_root(&self) -> bool {
        self.parent == NONE
    }

    pub fn is_expanded(&self) -> bool {
        self.num_children > 0
    }

    /// Whether the node is at a turn boundary (where the draw rules look).
    pub fn is_turn_start(&self) -> bool {
        G::position(&self.state).is_some()
    }

    /// Mean value from this node's side to move (0 before any visit).
    pub fn q(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }

    /// The state after `action` from this node, with its quiet count.
    fn child(&self, id: NodeId, action: G::Action, prior: f32) -> Self {
        let state = G::apply(&self.state, action);
        let quiet = if G::is_irreversible(&self.state, action) {
            0
        } else {
            self.quiet + 1
        };
        Node::new(state, action, id, prior, quiet)
    }
}

#[derive(Clone, Debug)]
pub struct Tree<G: Rules = Checkers> {
    nodes: Vec<Node<G>>,
    /// Turn-start positions of the game before the root's turn, oldest first.
    context: Vec<(u64, G::Position)>,
    /// Moves played in the game before the root's turn.
    game_ply: usize,
    /// Perfect endgames: positions it knows are solved leaves whose values are proven.
    oracle: Option<Oracle<G>>,
    /// Contempt: a draw is worth this much less than nothing to this side (the side the
    /// tree searches for), as much more to the other; `None`: nothing to either.
    contempt: Option<(Color, f32)>,
}

impl<G: Rules> Tree<G> {
    /// Game positions kept before the root.
    fn context_len() -> usize {
        G::QUIET_DRAW_PLIES.unwrap_or(0) as usize + EXTRA_CONTEXT
    }

    /// A fresh tree at the current position of `game` (which must not be over).
    pub fn new(game: &Game<G>) -> Self {
        let positions = game.positions();
        let before = &positions[..positions.len() - 1];
        let context = before[before.len().saturating_sub(Self::context_len())..]
            .iter()
            .map(|p| (G::hash(p), *p))
            .collect();
        let root = Node::new(
            G::turn_start(game.position()),
            G::Action::default(),
            NONE,
            1.0,
            game.quiet_plies(),
        );
        Tree {
            nodes: vec![root],
            context,
            game_ply: game.ply(),
            oracle: None,
            contempt: None,
        }
    }

    /// Moves on to the current position of `game`, keeping the searched subtree if `game`
    /// continues the game this tree was built for; else starts afresh there.
    pub fn follow(&mut self, game: &Game<G>) {
        let root_pos = G::position(&self.nodes[0].state);
        let continues =
            game.ply() >= self.game_ply && root_pos == Some(game.positions()[self.game_ply]);
        // With contempt the tree's draws were valued for one side's search.
        let same_side = self.contempt.is_none_or(|(side, _)| side == game.turn());
        if continues && same_side {
            let positions = &game.positions()[self.game_ply..];
            let actions: Vec<G::Action> = game.moves()[self.game_ply..]
                .iter()
                .zip(positions)
                .flat_map(|(mv, pos)| G::actions_of(pos, mv))
                .collect();
            self.advance(&actions);
        } else {
            let (oracle, contempt) = (self.oracle.take(), self.contempt);
            *self = Tree::new(game);
            self.oracle = oracle;
            self.set_contempt(contempt.map_or(0.0, |c| c.1));
        }
    }

    /// Perfect endgames to consult below the root (the root itself is searched: an agent
    /// asks the oracle for its move before searching).
    pub fn set_oracle(&mut self, oracle: Option<Oracle<G>>) {
        self.oracle = oracle;
    }

    /// Values draws below nothing, by `contempt`, for the root's side to move (0: draws
    /// are worth nothing); set before searching, as the values of draws found are kept.
    pub fn set_contempt(&mut self, contempt: f32) {
        self.contempt = (contempt > 0.0).then(|| (G::turn(&self.root().state), contempt));
    }

    /// A draw's value for `turn`.
    fn draw_value(&self, turn: Color) -> f32 {
        match self.contempt {
            Some((side, c)) if side == turn => -c,
            Some((_, c)) => c,
            None => 0.0,
        }
    }

    pub fn node(&self, id: NodeId) -> &Node<G> {
        &self.nodes[id as usize]
    }

    pub fn root(&self) -> &Node<G> {
        &self.nodes[0]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The memory its nodes take.
    pub fn bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Node<G>>()
    }

    pub fn children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + use<G> {
        let n = &self.nodes[id as usize];
        let first = if n.is_expanded() { n.first_child } else { 0 };
        first..first + n.num_children as u32
    }

    /// The child of `parent` with the best `score(parent, child, index among siblings)`
    /// (the first of equals), if it has any.
    pub fn best_child(
        &self,
        parent: NodeId,
        mut score: impl FnMut(&Node<G>, &Node<G>, usize) -> f32,
    ) -> Option<NodeId> {
        let p = self.node(parent);
        let mut best: Option<(NodeId, f32)> = None;
        for (i, c) in self.children(parent).enumerate() {
            let s = score(p, self.node(c), i);
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((c, s));
            }
        }
        best.map(|(c, _)| c)
    }

    /// +1 where `child`'s side to move is `parent`'s (inside a checkers multi-jump), else -1:
    /// what turns the child's values into its parent's view.
    fn parent_sign(parent: &Node<G>, child: &Node<G>) -> f32 {
        if G::turn(&child.state) == G::turn(&parent.state) {
            1.0
        } else {
            -1.0
        }
    }

    /// The mean value of `child` for the side choosing it at its parent, counting each
    /// simulation under way as a loss; `None` before any visit.
    pub fn q_for_parent(&self, parent: &Node<G>, child: &Node<G>) -> Option<f32> {
        let n = child.visits + child.virtual_loss;
        if n == 0 {
            return None;
        }
        let sign = Self::parent_sign(parent, child);
        Some((sign * child.value_sum - child.virtual_loss as f32) / n as f32)
    }

    /// The mean value of `child`'s finished simulations for the side choosing it at its
    /// parent; `None` before any.
    pub fn value_for_parent(&self, parent: &Node<G>, child: &Node<G>) -> Option<f32> {
        (child.visits > 0).then(|| Self::parent_sign(parent, child) * child.q())
    }

    /// Descends from the root by `score` to a node that is unexpanded or terminal.
    pub fn descend(&self, mut score: impl FnMut(&Node<G>, &Node<G>, usize) -> f32) -> NodeId {
        self.descend_by(|id| self.best_child(id, &mut score))
    }

    /// Descends from the root, `choose` giving the child to take at each expanded node, to
    /// a node that is unexpanded or terminal.
    pub fn descend_by(&self, mut choose: impl FnMut(NodeId) -> Option<NodeId>) -> NodeId {
        let mut id = ROOT;
        while self.node(id).terminal.is_none() {
            match choose(id) {
                Some(c) => id = c,
                None => break,
            }
        }
        id
    }

    /// The legal actions at `id` (into `actions`) and, where the game is over there, its
    /// exact value for the side to move: the board's result where there is no legal action;
    /// repetition and the quiet-ply rule draw (checked in that order, as `Game::outcome`
    /// does). The result is cached.
    pub fn status(&mut self, id: NodeId, actions: &mut Vec<G::Action>) -> Option<f32> {
        actions.clear();
        let node = &self.nodes[id as usize];
        if node.terminal.is_some() {
            return node.terminal;
        }
        G::legal_actions(&node.state, actions);
        let turn = G::turn(&node.state);
        let value = if actions.is_empty() {
            Some(match G::outcome(&node.state) {
                Some(o) if o.winner().is_some() => o.value_for(turn),
                _ => self.draw_value(turn),
            })
        } else if node.is_turn_start()
            && (G::REPETITION_DRAW.is_some_and(|n| self.repetitions(id) >= n)
                || G::QUIET_DRAW_PLIES.is_some_and(|n| node.quiet >= n))
        {
            Some(self.draw_value(turn))
        } else if let Some(oracle) = &self.oracle
            && id != ROOT
            && let Some(pos) = G::position(&node.state)
        {
            (oracle.exact(&pos, node.quiet)).map(|e| match e.value {
                Value::Draw => self.draw_value(turn),
                _ => e.unit(),
            })
        } else {
            None
        };
        self.nodes[id as usize].terminal = value;
        if value.is_some() && self.oracle.is_some() {
            self.prove_ancestors(id);
        }
        value
    }

    /// The child of `parent` a proof decides on, where one does: a proven win for the side
    /// choosing, else, when every child is proven, the best of them. Otherwise the children
    /// proven worse than the best proven one, and proven losses, are `excluded` (they would
    /// throw a value away that another child keeps or may keep).
    pub fn proven_choice(&self, parent: NodeId, excluded: &mut Vec<NodeId>) -> Option<NodeId> {
        excluded.clear();
        let p = self.node(parent);
        let proofs: Vec<(NodeId, Option<f32>)> = self
            .children(parent)
            .map(|c| (c, self.proven_for_parent(p, self.node(c))))
            .collect();
        let best = proofs.iter().filter_map(|&(c, v)| Some((c, v?))).fold(
            None,
            |acc: Option<(NodeId, f32)>, (c, v)| match acc {
                Some((_, b)) if b >= v => acc,
                _ => Some((c, v)),
            },
        )?;
        if best.1 >= 1.0 || proofs.iter().all(|(_, v)| v.is_some()) {
            return Some(best.0);
        }
        // An unproven child may still hold anything but is never worse than a proven loss.
        excluded.extend(
            proofs
                .iter()
                .filter(|(_, v)| v.is_some_and(|v| v < best.1 || v <= -1.0))
                .map(|&(c, _)| c),
        );
        None
    }

    /// The root's exact value for its side to move, where its children's proofs decide it
    /// (a child won for it, or every child proven: see [`Tree::proven_choice`]).
    pub fn root_proof(&self) -> Option<f32> {
        let choice = self.proven_choice(ROOT, &mut Vec::new())?;
        self.proven_for_parent(self.root(), self.node(choice))
    }

    /// `chosen` (a child of `parent`), unless a proof overrules it: the proof's choice, or,
    /// where `chosen` is proven worse than another child, the most visited of the others.
    pub fn keep_proven(&self, parent: NodeId, chosen: NodeId) -> NodeId {
        let mut excluded = Vec::new();
        if let Some(c) = self.proven_choice(parent, &mut excluded) {
            return c;
        }
        if !excluded.contains(&chosen) {
            return chosen;
        }
        self.children(parent)
            .filter(|c| !excluded.contains(c))
            .max_by_key(|&c| self.node(c).visits)
            .unwrap_or(chosen)
    }

    /// The exact value of `child` for the side choosing it at `parent`, where proven.
    pub fn proven_for_parent(&self, parent: &Node<G>, child: &Node<G>) -> Option<f32> {
        child.terminal.map(|v| v * Self::parent_sign(parent, child))
    }

    /// The MCTS-solver's rule, from a newly proven node upwards: a node is won when a child
    /// is won for it, and proven (at its best child's value) when every child is. A proven
    /// node is a terminal: searches stop there and back its exact value up. The root is
    /// never proven: its choice reads its children's proofs ([`Tree::proven_choice`]).
    fn prove_ancestors(&mut self, mut id: NodeId) {
        loop {
            let parent = self.node(id).parent;
            // The root stays searchable; its choice reads its children's proofs.
            if parent == ROOT || parent == NONE {
                return;
            }
            let p = self.node(parent);
            if p.terminal.is_some() || !p.is_expanded() {
                return;
            }
            let mut best = f32::NEG_INFINITY;
            let mut all = true;
            for c in self.children(parent) {
                match self.proven_for_parent(p, self.node(c)) {
                    Some(v) => best = best.max(v),
                    None => all = false,
                }
            }
            if !(best >= 1.0 || all) {
                return;
            }
            self.nodes[parent as usize].terminal = Some(best);
            id = parent;
        }
    }

    /// Earlier turn-start positions before `id`, most recent first: tree ancestors, then the
    /// game before the root.
    fn earlier_turn_starts(&self, id: NodeId) -> impl Iterator<Item = (u64, G::Position)> {
        let mut at = self.node(id).parent;
        std::iter::from_fn(move || {
            while at != NONE {
                let n = self.node(at);
                at = n.parent;
                if let Some(p) = G::position(&n.state) {
                    return Some((n.hash, p));
                }
            }
            None
        })
        .chain(self.context.iter().rev().copied())
    }

    /// How often the position at turn-start `id` has occurred with the same side to move.
    fn repetitions(&self, id: NodeId) -> usize {
        let node = self.node(id);
        let pos = G::position(&node.state);
        1 + self
            .earlier_turn_starts(id)
            .take(node.quiet as usize)
            .skip(1)
            .step_by(2)
            .filter(|(h, p)| *h == node.hash && Some(*p) == pos)
            .count()
    }

    /// What an evaluator needs of node `id`, whose legal actions are `actions`.
    pub fn eval_input(&self, id: NodeId, actions: Vec<G::Action>, history: usize) -> EvalInput<G> {
        let node = self.node(id);
        EvalInput {
            state: node.state,
            quiet: node.quiet,
            history: self
                .earlier_turn_starts(id)
                .take(history)
                .map(|(_, p)| p)
                .collect(),
            actions,
        }
    }

    /// Creates the children of `id`, one per action, with the given priors; `value` is the
    /// evaluator's value of `id` itself.
    pub fn expand(&mut self, id: NodeId, actions: &[G::Action], priors: &[f32], value: f32) {
        debug_assert_eq!(actions.len(), priors.len());
        let first = self.nodes.len() as NodeId;
        for (&action, &prior) in actions.iter().zip(priors) {
            let child = self.nodes[id as usize].child(id, action, prior);
            self.nodes.push(child);
        }
        let node = &mut self.nodes[id as usize];
        node.raw_value = value;
        node.first_child = first;
        node.num_children = actions.len() as u16;
    }

    /// Adds `value` (from the side to move at `leaf`) to `leaf` and its ancestors.
    pub fn backup(&mut self, leaf: NodeId, value: f32) {
        let turn = G::turn(&self.node(leaf).state);
        let mut at = leaf;
        while at != NONE {
            let n = &mut self.nodes[at as usize];
            n.visits += 1;
            n.value_sum += if G::turn(&n.state) == turn {
                value
            } else {
                -value
            };
            at = n.parent;
        }
    }

    /// Adds (`delta` 1) or removes (-1) a virtual loss on `leaf` and its ancestors.
    pub fn virtual_loss(&mut self, leaf: NodeId, delta: i32) {
        let mut at = leaf;
        while at != NONE {
            let n = &mut self.nodes[at as usize];
            n.virtual_loss = n.virtual_loss.wrapping_add_signed(delta);
            at = n.parent;
        }
    }

    pub fn set_pending(&mut self, id: NodeId, pending: bool) {
        self.nodes[id as usize].pending = pending;
    }

    /// Moves the root along `actions` (legal from the root), keeping the subtree below;
    /// nodes not searched yet are created on the way. Each finished turn is one more game
    /// ply.
    pub fn advance(&mut self, actions: &[G::Action]) {
        let mut at = ROOT;
        for &action in actions {
            let node = self.node(at);
            if let Some(p) = G::position(&node.state) {
                self.context.push((node.hash, p));
            }
            at = match self.children(at).find(|&c| self.node(c).action == action) {
                Some(c) => c,
                None => {
                    let child = self.node(at).child(at, action, 1.0);
                    self.nodes.push(child);
                    (self.nodes.len() - 1) as NodeId
                }
            };
            self.game_ply += self.node(at).is_turn_start() as usize;
        }
        let excess = self.context.len().saturating_sub(Self::context_len());
        self.context.drain(..excess);
        self.reroot(at);
    }

    /// Keeps only the subtree under `id`, compacted with `id` as the root (breadth first, so
    /// each node's children stay contiguous).
    fn reroot(&mut self, id: NodeId) {
        if id == ROOT {
            return;
        }
        let old = std::mem::take(&mut self.nodes);
        let mut root = old[id as usize].clone();
        root.parent = NONE;
        root.prior = 1.0;
        // A root is searched, never a leaf: what made it terminal (a proof, the oracle) is
        // asked again, as a root, by `status`.
        root.terminal = None;
        self.nodes.push(root);
        let mut i = 0;
        while i < self.nodes.len() {
            let (first, count) = (self.nodes[i].first_child, self.nodes[i].num_children);
            if count > 0 {
                self.nodes[i].first_child = self.nodes.len() as NodeId;
                for c in first..first + count as NodeId {
                    let mut child = old[c as usize].clone();
                    child.parent = i as NodeId;
                    self.nodes.push(child);
                }
            }
            i += 1;
        }
    }

    /// The root's position, for choosing a whole move: agents search from turn starts
    /// (self-play's roots inside a turn never ask for moves).
    fn root_position(&self) -> G::Position {
        G::position(&self.root().state).expect("the root is at a turn start")
    }

    /// The move whose actions lead from the root through the tree, each chosen by `pick`
    /// among the visited node's children; where the tree ends before the turn does, the
    /// first legal action finishes it. The root must be a turn start.
    pub fn pick_move(&self, mut pick: impl FnMut(&Tree<G>, NodeId) -> NodeId) -> G::Move {
        let pos = self.root_position();
        let mut path = Vec::new();
        let mut at = ROOT;
        let mut state = self.root().state;
        let mut buf = Vec::new();
        loop {
            let action = if at != NONE && self.node(at).is_expanded() {
                at = pick(self, at);
                self.node(at).action
            } else {
                at = NONE;
                buf.clear();
                G::legal_actions(&state, &mut buf);
                buf[0]
            };
            path.push(action);
            state = G::apply(&state, action);
            if G::position(&state).is_some() {
                break;
            }
        }
        G::legal_moves(&pos)
            .into_iter()
            .find(|mv| G::actions_of(&pos, mv) == path)
            .expect("actions from a turn start make a move")
    }

    /// The line search expects: `first` (the move chosen at the root), then from each turn
    /// the move whose actions `pick` chooses, while the tree holds the whole turn and its
    /// nodes were visited; at most `max_moves` moves.
    pub fn principal_variation(
        &self,
        first: G::Move,
        mut pick: impl FnMut(&Tree<G>, NodeId) -> NodeId,
        max_moves: usize,
    ) -> Vec<G::Move> {
        let mut pos = self.root_position();
        let mut line = Vec::new();
        let mut at = ROOT;
        let mut path = Vec::new();
        let mut next = Some(first);
        while line.len() < max_moves && self.node(at).is_expanded() {
            let child = match next {
                // The chosen move's actions, not `pick`'s, for the first turn.
                Some(mv) => {
                    let action = G::actions_of(&pos, &mv)[path.len()];
                    self.children(at).find(|&c| self.node(c).action == action)
                }
                None => Some(pick(self, at)),
            };
            let Some(child) = child.filter(|&c| self.node(c).visits > 0) else {
                break;
            };
            at = child;
            path.push(self.node(at).action);
            let Some(reached) = G::position(&self.node(at).state) else {
                continue;
            };
            let Some(mv) = G::legal_moves(&pos)
                .into_iter()
                .find(|mv| G::actions_of(&pos, mv) == path)
            else {
                break;
            };
            line.push(mv);
            pos = reached;
            path.clear();
            next = None;
        }
        if line.is_empty() {
            line.push(first);
        }
        line
    }

    /// Visit counts of the moves from the root (the node their last action reaches; 0 where
    /// the search never got there) and their priors, best first. A move's prior is the
    /// product of its actions' priors; where the tree stops inside a turn (a middle node
    /// never expanded, so its actions' priors are unknown), the product so far is shared
    /// evenly by the moves that go on from there. The priors of all legal moves thus sum
    /// to 1.
    pub fn move_stats(&self) -> Vec<MoveStats<G>> {
        self.move_stats_at(ROOT)
    }

    /// [`Tree::move_stats`] at any turn-start node `from` (an opening book reads every
    /// well-searched position of a tree); `q` is for the side to move there.
    pub fn move_stats_at(&self, from: NodeId) -> Vec<MoveStats<G>> {
        let pos = G::position(&self.node(from).state).expect("moves start at a turn start");
        let moves = G::legal_moves(&pos);
        let paths: Vec<Vec<G::Action>> = moves.iter().map(|m| G::actions_of(&pos, m)).collect();
        let root_turn = G::turn(&self.node(from).state);
        let mut stats: Vec<MoveStats<G>> = moves
            .into_iter()
            .zip(&paths)
            .map(|(mv, actions)| {
                let mut at = Some(from);
                let mut prior = 1.0;
                for (k, action) in actions.iter().enumerate() {
                    let Some(a) = at.filter(|&a| self.node(a).is_expanded()) else {
                        let prefix = &actions[..k];
                        let sharing = paths.iter().filter(|p| p.starts_with(prefix)).count();
                        prior /= sharing as f32;
                        at = None;
                        break;
                    };
                    // An expanded node has a child for every legal action.
                    at = self.children(a).find(|&c| self.node(c).action == *action);
                    prior *= at.map_or(0.0, |c| self.node(c).prior);
                }
                let node = at.map(|c| self.node(c));
                MoveStats {
                    mv,
                    node: at,
                    prior,
                    visits: node.map_or(0, |n| n.visits),
                    q: node.map(|n| {
                        let q = n.q();
                        if G::turn(&n.state) == root_turn {
                            q
                        } else {
                            -q
                        }
                    }),
                }
            })
            .collect();
        stats.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
        stats
    }
}

/// What the search found for one whole move at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveStats<G: Rules = Checkers> {
    pub mv: G::Move,
    /// The node its last action reaches, where the tree holds it.
    pub node: Option<NodeId>,
    /// The product of the priors of its actions, shared out where the tree ends mid-move
    /// (see [`Tree::move_stats`]).
    pub prior: f32,
    pub visits: u32,
    /// Its mean value for the side to move at the root, if visited.
    pub q: Option<f32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers;
    use crate::games::checkers::hops::{Hop, hops_of};
    use crate::games::checkers::parse_fen;
    use crate::games::checkers::record::FORTY_MOVE_PLIES;

    fn uniform_expand(tree: &mut Tree, id: NodeId) -> Vec<Hop> {
        let mut hops = Vec::new();
        assert!(tree.status(id, &mut hops).is_none());
        let priors = vec![1.0 / hops.len() as f32; hops.len()];
        tree.expand(id, &hops, &priors, 0.0);
        hops
    }

    /// An oracle that knows the positions it is given.
    #[derive(Debug)]
    struct Known(std::collections::HashMap<checkers::Position, crate::endgame::Exact>);

    impl crate::endgame::Perfect<Checkers> for Known {
        fn exact(&self, pos: &checkers::Position, _: u32) -> Option<crate::endgame::Exact> {
            self.0.get(pos).copied()
        }
        fn perfect_move(
            &self,
            _: &checkers::Position,
            _: u32,
            _: Option<&std::sync::atomic::AtomicBool>,
        ) -> Option<(checkers::Move, crate::endgame::Exact)> {
            None
        }
        fn describe(&self, _: &checkers::Position, _: u32) -> Option<String> {
            None
        }
    }

    fn known(value: crate::endgame::Value) -> crate::endgame::Exact {
        crate::endgame::Exact { value, distance: 3 }
    }

    #[test]
    fn proofs_overrule_visits_and_climb_the_tree() {
        use crate::endgame::Value;
        // Black (kings on 1 and 2) has four steps; the oracle knows two of the results:
        // after 1-5 White (to move) is lost, after 2-6 White has won.
        let game: Game = Game::from_position(parse_fen("B:WK32:BK1,K2").unwrap());
        let pos = *game.position();
        let after = |m: &str| pos.apply(&checkers::parse_move(&pos, m).unwrap());
        let oracle = Known(
            [
                (after("1-5"), known(Value::Loss)),
                (after("2-6"), known(Value::Win)),
            ]
            .into(),
        );
        let mut tree = Tree::new(&game);
        tree.set_oracle(Some(std::sync::Arc::new(oracle)));
        uniform_expand(&mut tree, ROOT);
        let kids: Vec<NodeId> = tree.children(ROOT).collect();
        let by_move = |t: &Tree, m: &str| {
            let hop = hops_of(&checkers::parse_move(&pos, m).unwrap())[0];
            *kids.iter().find(|&&c| t.node(c).action == hop).unwrap()
        };
        let (win, loss) = (by_move(&tree, "1-5"), by_move(&tree, "2-6"));
        let mut hops = Vec::new();
        for &c in &kids {
            tree.status(c, &mut hops);
        }
        assert_eq!(tree.node(win).terminal, Some(-1.0));
        assert_eq!(tree.node(loss).terminal, Some(1.0));
        // Visits favour the lost move; the proven win is chosen all the same.
        for _ in 0..50 {
            tree.backup(loss, -0.5);
        }
        let mut excluded = Vec::new();
        assert_eq!(tree.proven_choice(ROOT, &mut excluded), Some(win));
        assert_eq!(crate::mcts::most_visited(&tree, ROOT), win);
        // Without the win, the loss is excluded and an unproven move is chosen instead.
        tree.nodes[win as usize].terminal = None;
        assert_eq!(tree.proven_choice(ROOT, &mut excluded), None);
        assert_eq!(excluded, vec![loss]);
        assert_ne!(crate::mcts::most_visited(&tree, ROOT), loss);
        // A proof climbs: a White reply tree whose every reply is won for Black makes the
        // move before it lost for White, so proven won for Black.
        let other = by_move(&tree, "1-6");
        let replies = uniform_expand(&mut tree, other);
        let next = tree.node(other).state;
        let mut table = std::collections::HashMap::new();
        for h in &replies {
            let p = *Checkers::apply(&next, *h).position();
            table.insert(p, known(Value::Win));
        }
        tree.set_oracle(Some(std::sync::Arc::new(Known(table))));
        for c in tree.children(other).collect::<Vec<_>>() {
            tree.status(c, &mut hops);
        }
        assert_eq!(
            tree.node(other).terminal,
            Some(-1.0),
            "lost for White to move"
        );
        assert_eq!(tree.proven_choice(ROOT, &mut excluded), Some(other));
        assert_eq!(tree.root().terminal, None, "the root is never proven");
    }

    #[test]
    fn the_forty_move_rule_draws_after_a_king_move_not_after_a_man_move() {
        // Black: a king on 1 and a man on 12; the root has 79 quiet plies behind it.
        let game = Game::from_position(parse_fen("B:W32:BK1,12").unwrap());
        let mut tree = Tree::new(&game);
        tree.nodes[0].quiet = FORTY_MOVE_PLIES - 1;
        uniform_expand(&mut tree, ROOT);
        let mut hops = Vec::new();
        for c in tree.children(ROOT).collect::<Vec<_>>() {
            let king_moved = tree.node(c).action.from == 0;
            let want = if king_moved { Some(0.0) } else { None };
            assert_eq!(tree.status(c, &mut hops), want, "{:?}", tree.node(c).action);
            assert_eq!(
                tree.node(c).quiet,
                if king_moved { FORTY_MOVE_PLIES } else { 0 }
            );
        }
    }

    #[test]
    fn contempt_values_draws_below_nothing_for_the_side_searching() {
        // Either side to move: each king move reaches the forty-move rule, a draw worth 0.25
        // more to the opponent, so 0.25 less than nothing to the side choosing it.
        for fen in ["B:WK32:BK1", "W:WK32:BK1"] {
            let mut game = Game::from_position(parse_fen(fen).unwrap());
            let mut tree = Tree::new(&game);
            tree.set_contempt(0.25);
            tree.nodes[0].quiet = FORTY_MOVE_PLIES - 1;
            uniform_expand(&mut tree, ROOT);
            let mut hops = Vec::new();
            for c in tree.children(ROOT).collect::<Vec<_>>() {
                assert_eq!(tree.status(c, &mut hops), Some(0.25), "{fen}");
                let chosen = tree.proven_for_parent(tree.root(), tree.node(c));
                assert_eq!(chosen, Some(-0.25), "{fen}");
            }
            // The other side to move: its search starts afresh, its draws valued for it.
            let mv = game.legal_moves()[0];
            game.play(mv);
            tree.follow(&game);
            assert_eq!(tree.len(), 1, "{fen}");
            assert_eq!(tree.contempt, Some((game.turn(), 0.25)), "{fen}");
        }
    }

    #[test]
    fn repetition_draws_are_exact_in_the_tree() {
        // Two kings each: shuffle back and forth; the third occurrence is a draw.
        let mut game = Game::from_position(parse_fen("B:WK32:BK1").unwrap());
        for m in ["1-6", "32-27"] {
            game.play_text(m).unwrap();
        }
        let mut tree = Tree::new(&game);
        // The start position (in the game's history before the root) comes back after 2
        // and 6 more plies: the third occurrence draws.
        let path = ["6-1", "27-32", "1-6", "32-27", "6-1", "27-32"];
        let mut at = ROOT;
        let mut g = game.clone();
        for (i, m) in path.iter().enumerate() {
            uniform_expand(&mut tree, at);
            let mv = g.play_text(m).unwrap();
            let hop = hops_of(&mv)[0];
            at = tree
                .children(at)
                .find(|&c| tree.node(c).action == hop)
                .unwrap();
            let mut hops = Vec::new();
            let status = tree.status(at, &mut hops);
            assert_eq!(status, g.outcome().map(|_| 0.0), "after {} plies", i + 1);
        }
        assert_eq!(tree.node(at).terminal, Some(0.0));
    }

    #[test]
    fn advancing_keeps_the_subtree_and_its_counts() {
        let game = Game::new();
        let mut tree = Tree::new(&game);
        let hops = uniform_expand(&mut tree, ROOT);
        let child = tree.children(ROOT).nth(2).unwrap();
        uniform_expand(&mut tree, child);
        let grandchild = tree.children(child).next().unwrap();
        tree.backup(grandchild, 0.5);
        tree.backup(child, -0.25);
        let (visits, sum) = (tree.node(child).visits, tree.node(child).value_sum);
        let kids = tree.children(child).count();
        tree.advance(&[hops[2]]);
        assert_eq!(tree.root().visits, visits);
        assert_eq!(tree.root().value_sum, sum);
        assert_eq!(tree.children(ROOT).count(), kids);
        assert_eq!(tree.len(), 1 + kids);
        let g = tree.children(ROOT).next().unwrap();
        assert_eq!(tree.node(g).visits, 1);
        assert_eq!(tree.node(g).parent, ROOT);
    }
}
