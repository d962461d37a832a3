//! What a front end's status line shows: the permission mode, how commands
//! run, the model and the window, as typed data.

use serde::{Deserialize, Serialize};

/// How much the agent may do without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PermissionMode {
    /// No writing tool is offered; the default of `exec`.
    ReadOnly,
    /// Writing tools are offered and every call needs the user's approval;
    /// the default of the TUI.
    #[default]
    Ask,
    /// Edits inside the working directory apply without asking.
    Auto,
    /// Nothing is asked and commands run without a sandbox.
    Full,
}

/// What confinement a command ran under (or would run under).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SandboxState {
    /// Landlock enforces the whole policy.
    Enforced {
        /// The Landlock ABI version of the kernel (as far as we use it).
        abi: u32,
    },
    /// Landlock enforces part of the policy (an older kernel).
    Partial {
        /// The Landlock ABI version of the kernel.
        abi: u32,
        /// What is not enforced, e.g. "network".
        missing: String,
    },
    /// No confinement could be applied; the command runs unconfined.
    Unavailable {
        /// Why, e.g. "Landlock is not enabled in this kernel".
        reason: String,
    },
    /// No sandbox by configuration (`mode = "off"`, or `full` permissions).
    Off,
}

/// The figures a status line shows, sent whenever one changes for another
/// reason than a job (a session opened, a model or mode switched).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StatusSnapshot {
    /// Model name.
    pub model: String,
    /// Provider profile name.
    pub provider: String,
    /// Context window of the model, in tokens (0 when unknown).
    pub context_window: u64,
    /// Tokens in the context window now, by the runtime's estimate (the
    /// one writer of this figure; job ends update it).
    pub window_tokens: u64,
    /// Current session id.
    pub session_id: String,
    /// The permission mode; `None` while no agent runs.
    pub permission_mode: Option<PermissionMode>,
    /// How commands run; `None` without shell tools.
    pub sandbox: Option<SandboxState>,
    /// The reasoning effort requested; `None` when none is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<super::Effort>,
}

/// The header shown when a session is opened.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SessionHeader {
    /// Session id.
    pub id: String,
    /// Session title (may be empty).
    pub title: String,
    /// Last activity, ms since the Unix epoch (0 for a new session).
    pub updated_at: u64,
    /// Number of turns in the session.
    pub turns: u64,
    /// Why this session was opened, e.g. "latest session busy in another process; started a new one".
    pub note: Option<String>,
}
