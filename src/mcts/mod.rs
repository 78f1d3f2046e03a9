//! Monte Carlo tree search in the hop-level view of the game (docs/ARCHITECTURE.md, "The network
//! acts in hops"): every hop of a multi-jump is one action, and values keep the sign of the side to
//! move.
//!
//! - [`hops`]: the hop-level game (a turn as a sequence of hops).
//! - [`encoding`]: the network's input planes and the 128 hop policy indices.
//! - [`tree`]: the arena tree, exact terminal values (draw rules too), tree reuse.
//! - [`uct`]: UCT with random rollouts; [`puct`]: PUCT with priors, noise, batching.
//! - [`evaluator`]: what PUCT asks of a network, a material stand-in and a cache.
//! - [`agents`]: the `mcts` and `az` agents.

pub mod agents;

pub mod evaluator;

pub mod model;
pub mod puct;
pub mod tree;
pub mod uct;

pub use crate::games::checkers::encoding::{Encoding, EvalInput, hop_at, legal_mask, policy_index};
pub use crate::games::checkers::hops::{Hop, HopState, hops_of};
pub use agents::{AzAgent, AzConfig, AzNetwork, MctsAgent};
pub use evaluator::{CachedEvaluator, Evaluation, Evaluator, MaterialEvaluator, NetEvaluator};
pub use model::{AzModel, LoadedModel, default_model, load_model, save_model};
pub use puct::{Leaves, PlayoutCap, Puct, PuctConfig, Temperature, most_visited, pick_child};
pub use tree::{MoveStats, Node, NodeId, Tree};
pub use uct::Uct;
