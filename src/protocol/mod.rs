//! The event protocol: the one vocabulary every layer speaks.
//!
//! An [`AgentEvent`] is a closed, serde-tagged enum. Canonical events are
//! persisted in the session log; transient ones (`thought_delta`,
//! `output_delta`) exist only on the live stream. Deltas of one step
//! concatenate exactly to the full `thought` / `output` event of that step.
//!
//! Coordinates: a **turn** is one user prompt, from its `input` event until
//! its `agent_stop`; a **step** is one model call plus the tool calls it
//! produced. [`Meta`] carries both on every event.
//!
//! Architecture invariant: this module depends on serde only.

mod effort;
mod event;
mod job;
mod secret;
mod tool;

pub use effort::Effort;
pub use event::{AgentEvent, InputSource, Meta, StopCause, Usage};
pub use job::{JobId, JobKind, JobUpdate, WithdrawnPrompt};
pub use secret::{REDACTED, Redactor, Secret, redact_url};
pub use tool::{INTENT_FIELD, ToolCall, ToolOutcome, ToolSpec};

/// Current time as milliseconds since the Unix epoch (0 if the clock is
/// before the epoch).
pub fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
