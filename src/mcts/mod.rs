//! Monte Carlo tree search, generic over the game ([`Rules`](crate::games::Rules)): it
//! searches the game's action view (for checkers every hop of a multi-jump is one action;
//! docs/ARCHITECTURE.md, "The network acts in hops"), and values keep the sign of the side
//! to move.
//!
//! - [`tree`]: the arena tree, exact terminal values (draw rules too), tree reuse.
//! - [`uct`]: UCT with random rollouts; [`puct`]: AlphaZero's search (priors, noise,
//!   batching), with PUCT's or [`gumbel`]'s selection.
//! - [`evaluator`]: what PUCT asks of a network, a material stand-in and a cache;
//!   [`blend`]: its values mixed with a shallow alpha-beta's (`az:mix`);
//!   [`symmetric`]: the network asked through the board's symmetries; [`threaded`]:
//!   evaluators on threads of their own, for one search on several cores.
//!
//! The `mcts` and `az` agents built on these live in `agents::search`.

pub mod blend;
pub mod evaluator;
pub mod gumbel;

pub mod puct;
pub mod symmetric;
pub mod threaded;
pub mod tree;
pub mod uct;

pub use crate::games::checkers::encoding::{Encoding, hop_at, legal_mask, policy_index};
pub use crate::games::checkers::hops::{Hop, HopState, hops_of};
pub use blend::{Blend, Judge};
pub use evaluator::{
    Begun, CachedEvaluator, EncodingMismatch, EvalInput, Evaluation, Evaluator, MaterialEvaluator,
    NetEvaluator,
};
pub use gumbel::{GumbelConfig, Search, SearchKind};
pub use puct::{Leaves, PlayoutCap, Puct, PuctConfig, Temperature, most_visited, pick_child};
pub use symmetric::{EvalSymmetry, SymmetricEvaluator};
pub use threaded::ThreadedEvaluator;
pub use tree::{MoveStats, Node, NodeId, ROOT, Tree};
pub use uct::Uct;
