//! The game-aware networks on top of the game-free `nn` library: the AlphaZero model file
//! (a policy-value network, its game's policy head and input encoding) and the classic
//! learners' value networks (value_net.rs).

pub mod model;
pub mod value_net;

pub use model::{AzModel, LoadedModel, NetGame, default_model, load_model, save_model};
