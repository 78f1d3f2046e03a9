//! Why an agent could not be built or configured: one line, naming the agent and option.

use super::settings::Refusal;
use crate::errors::Caused;
use std::sync::Arc;

#[derive(Debug, Clone, thiserror::Error)]
pub enum AgentError {
    /// A spec or option that names no agent the program can build.
    #[error("{0}")]
    Invalid(String),
    /// A step of building it that failed for a cause of its own (a network file).
    #[error(transparent)]
    Caused(Arc<Caused>),
    /// A file it writes as it plays (a match's journal).
    #[error(transparent)]
    File(Arc<crate::files::FileError>),
}

impl From<crate::files::FileError> for AgentError {
    fn from(e: crate::files::FileError) -> Self {
        AgentError::File(Arc::new(e))
    }
}

impl From<Caused> for AgentError {
    fn from(e: Caused) -> Self {
        AgentError::Caused(Arc::new(e))
    }
}

/// `alphabeta option depth: expected ...`: the route-independent message of a setting,
/// named by agent and key.
pub fn setting_error(kind: &str, key: &str, refusal: Refusal) -> AgentError {
    AgentError::Invalid(format!("{kind} option {key}: {refusal}"))
}
