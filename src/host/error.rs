//! [`HostError`]: why an op (or the host's start) failed.

use crate::agent::AgentError;
use crate::session::SessionError;

/// Why an op failed; shown to the user as a notice.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The session store failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The agent refused (closed, or a job failed).
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// The model adaptor could not be built.
    #[error(transparent)]
    Adaptor(#[from] crate::ai::AiError),
    /// A file could not be written (an export).
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The failure.
        source: std::io::Error,
    },
    /// The settings describe something that cannot be built (a model
    /// adaptor, a tool); the text says what.
    #[error("{0}")]
    Setup(String),
}

impl HostError {
    /// A [`HostError::Setup`] with `text`.
    pub fn setup(text: impl Into<String>) -> Self {
        Self::Setup(text.into())
    }
}
