//! The trainers' error.

use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error(transparent)]
    Checkpoint(#[from] crate::nn::CheckpointError),
    #[error(transparent)]
    Agent(#[from] crate::agents::AgentError),
    #[error(transparent)]
    Keys(#[from] super::alphazero::ConfigError),
    /// A step that failed for a cause of its own (a network file that does not load).
    #[error(transparent)]
    Caused(#[from] crate::errors::Caused),
    /// The device failed (a GPU lost or out of memory); the last checkpoint stands.
    #[error(
        "{0}; the run stopped at its last finished iteration (run the same command again to resume it)"
    )]
    Device(#[from] crate::tensor::DeviceError),
    /// The run folder belongs to another process.
    #[error("{0}")]
    InUse(String),
}

/// Maps an I/O error on `path` to the trainers' error, naming the file (the one shape of
/// an I/O error on a path: [`FileError`](crate::files::FileError)).
pub fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |e| TrainError::File(crate::files::file_error("access", path)(e))
}
