//! [`AiError`]: every way a model call can fail, classified by what the
//! caller should do about it.

use std::time::Duration;

/// The class of a model-call failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AiErrorKind {
    /// Connection, timeout or read failure.
    Transport,
    /// The provider failed (5xx, 429, overload) or sent an error object.
    Provider,
    /// The request was refused (4xx); fix it before retrying.
    Request,
    /// The prompt no longer fits the model's context window.
    ContextLength,
    /// Cancelled by the caller.
    Aborted,
    /// The response could not be decoded.
    Decode,
}

/// A failed model call.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct AiError {
    /// Failure class.
    pub kind: AiErrorKind,
    /// Whether the same request may succeed if sent again.
    pub retryable: bool,
    /// HTTP status, when one was received.
    pub status: Option<u16>,
    /// Server-requested wait before retrying (`Retry-After`).
    pub retry_after: Option<Duration>,
    /// Human-readable description; never contains credentials.
    pub message: String,
}

impl AiError {
    /// An error of `kind` with the retry flag its kind implies by default.
    pub fn new(kind: AiErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            retryable: matches!(kind, AiErrorKind::Transport | AiErrorKind::Provider),
            status: None,
            retry_after: None,
            message: message.into(),
        }
    }

    /// The caller cancelled the call.
    pub fn aborted() -> Self {
        Self::new(AiErrorKind::Aborted, "request cancelled")
    }
}

impl AiError {
    /// Sets whether the same request may succeed if sent again.
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// Records the HTTP status the error came with.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// Records the server-requested wait before retrying.
    pub fn with_retry_after(mut self, retry_after: Option<Duration>) -> Self {
        self.retry_after = retry_after;
        self
    }

    /// Whether this error ended the call because the caller cancelled it.
    pub fn is_aborted(&self) -> bool {
        self.kind == AiErrorKind::Aborted
    }
}
