//! The game-aware networks on top of the game-free `nn` library: the AlphaZero model file
//! (a policy-value network, its game's policy head and input encoding) and its export as
//! ONNX (onnx.rs) and the mean of several (average.rs), the classic learners' value networks: checkers' (value_net.rs) and
//! Othello's (othello_value.rs: the TD learner's tower network of towers.rs, which takes its
//! input as plain bitboards, or a plain one).

pub mod average;
pub mod model;
pub mod onnx;
pub mod othello_value;
pub mod towers;
pub mod value_model;
pub mod value_net;

pub use average::{AveragedModel, average_model_files};
pub use model::{
    AzModel, Lineage, LoadedModel, ModelFile, NetGame, load_model, model_from_bytes, model_game,
    read_model_file, save_model,
};
pub use onnx::model_file_to_onnx;
pub use value_model::ValueModel;
