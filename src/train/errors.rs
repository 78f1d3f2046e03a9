//! The trainers' error.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("{0}")]
    Config(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Checkpoint(#[from] crate::nn::CheckpointError),
    #[error(transparent)]
    Agent(#[from] crate::agents::AgentError),
    /// The run folder belongs to another process.
    #[error("{0}")]
    InUse(String),
}
