//! Why an agent could not be built or configured: one line, naming the agent and option.

use super::settings::Refusal;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AgentError(pub String);

/// `alphabeta option depth: expected ...`: the route-independent message of a setting,
/// named by agent and key.
pub fn setting_error(kind: &str, key: &str, refusal: Refusal) -> AgentError {
    AgentError(format!("{kind} option {key}: {refusal}"))
}
