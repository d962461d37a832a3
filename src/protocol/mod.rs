//! The protocol: the one vocabulary every layer and every front end speaks.
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
//! The host's vocabulary lives here too: a front end submits
//! [`Submission`]s (an [`Op`] with a caller-chosen [`OpId`]) and receives
//! [`HostEvent`]s — agent events, job updates echoing the op id, approval
//! requests with a typed subject, notices, status snapshots and reports.
//!
//! Architecture invariant: this module depends on serde only.

mod approval;
mod content;
mod effort;
mod event;
mod files;
mod host;
mod job;
mod notice;
mod plan;
mod question;
mod report;
mod rewind;
mod secret;
mod status;
mod tool;

pub use approval::{ApprovalDecision, ApprovalDetail, ApprovalRequest, CommandSandbox};
pub use content::{ImageRef, ImageSource, PromptPart, parts_text, text_with_images};
pub use effort::Effort;
pub use event::{AgentEvent, InputSource, Meta, StopCause, Usage};
pub use files::{EntryKind, MentionCheck, MentionState, WorkspaceEntry};
pub use host::{HostEvent, Op, OpId, Submission};
pub use job::{JobId, JobKind, JobUpdate, WithdrawnPrompt};
pub use notice::{Notice, NoticeLevel};
pub use plan::{Plan, PlanStep, StepStatus, UPDATE_PLAN};
pub use question::{ASK_USER, MAX_OPTIONS, MAX_QUESTIONS, Question, check_questions};
pub use report::{
    McpServerRow, McpServerState, ModelChoice, Report, ReportKind, SessionRow, SessionsReport,
    SkillRow, SkillsReport, StatusReport, TokenTotals, ToolRow, TurnTokens,
};
pub use rewind::{PromptRow, RewindOutcome};
pub use secret::{REDACTED, Redactor, Secret, redact_url};
pub use status::{PermissionMode, SandboxState, SessionHeader, StatusSnapshot};
pub use tool::{INTENT_FIELD, ToolCall, ToolOutcome, ToolSpec};

/// Current time as milliseconds since the Unix epoch (0 if the clock is
/// before the epoch).
pub fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
