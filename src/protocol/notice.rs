//! [`Notice`]: what a host shows that is not part of the session log.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::AgentEvent;

/// Something to show that is not part of the session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "notice", rename_all = "snake_case")]
pub enum Notice {
    /// A model call failed and will be retried after `delay`.
    Retrying {
        /// Retry number, from 1.
        attempt: u32,
        /// Wait before the retry.
        delay: Duration,
        /// Why the call failed.
        message: String,
    },
    /// The stream broke after part of an answer was shown: front ends drop
    /// what they showed of this step's answer. A [`Notice::Retrying`] follows.
    PartialDropped,
    /// A line for the user: a warning that did not stop the turn, an error,
    /// "exported to …".
    Message {
        /// How it is shown.
        level: NoticeLevel,
        /// The text (may span lines).
        text: String,
    },
    /// A running tool call's (or user command's) live output, its last
    /// lines; each replaces the one before. Never logged, never sent to the
    /// model.
    ToolOutput {
        /// The call.
        call_id: String,
        /// What to show now.
        text: String,
    },
    /// A canonical event (no deltas) of the subagent that the `task` call
    /// `call_id` runs, for front ends to show under that call. Never logged
    /// in the parent's session (the child's session holds it), never sent
    /// to the model.
    Subagent {
        /// The parent's `task` call.
        call_id: String,
        /// The child's session id (empty when it has none).
        session_id: String,
        /// The agent definition it runs.
        agent: String,
        /// What happened in the child.
        event: Box<AgentEvent>,
    },
}

impl Notice {
    /// A [`Notice::Message`] at `level`.
    pub fn message(level: NoticeLevel, text: impl Into<String>) -> Self {
        Self::Message {
            level,
            text: text.into(),
        }
    }

    /// A warning: something worth knowing that did not stop the turn.
    pub fn warning(text: impl Into<String>) -> Self {
        Self::message(NoticeLevel::Warn, text)
    }
}

/// How a notice is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    /// Neutral information (dim).
    Info,
    /// Something the user should notice (yellow).
    Warn,
    /// A failure (red).
    Error,
}
