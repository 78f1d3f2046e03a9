//! The game-aware networks on top of the game-free `nn` library: the AlphaZero model file
//! (a policy-value network, its game's policy head and input encoding), the classic
//! learners' value networks (value_net.rs) and the Othello TD learner's tower network
//! (towers.rs, which takes its input as plain bitboards).

pub mod model;
pub mod towers;
pub mod value_model;
pub mod value_net;

pub use model::{AzModel, LoadedModel, NetGame, default_model, load_model, save_model};
pub use value_model::ValueModel;
