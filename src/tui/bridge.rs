//! The contract between the terminal UI and the runtime: the ops the UI
//! sends, the inputs it receives, and the options it starts with.
//!
//! The UI owns the receiving end of [`UiInput`] and the sending end of
//! [`Op`]; the runtime (wired by `main.rs`) owns the other ends. Nothing else
//! crosses between them: the UI locks no shared state.

use std::path::PathBuf;
use std::time::Duration;

use crate::protocol::{AgentEvent, JobId, JobUpdate};

pub use super::reports::{
    McpServerRow, McpServerState, ModelChoice, Report, ReportKind, SessionsReport, SkillRow,
    SkillsReport, StatusReport, TokenTotals, ToolRow, TurnTokens,
};

/// What the UI asks of the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Send a prompt; while a job runs, the runtime queues it. Answered by
    /// job updates, or by [`UiInput::PromptRejected`] when it cannot run.
    Prompt(String),
    /// Cancel whatever job runs (a turn, a compaction, a session load).
    Interrupt,
    /// Take a queued prompt back (answered by a `Withdrawn` job update).
    Withdraw(JobId),
    /// Summarise the context window now.
    Compact,
    /// Start a fresh session in this cwd.
    NewSession,
    /// Switch to the session with this id (or unique short-id prefix).
    Resume(String),
    /// Offer this cwd's sessions in the picker (answered by [`UiInput::Sessions`]).
    PickSession,
    /// Offer the models to switch to (answered by [`UiInput::Models`]).
    ListModels,
    /// Use this model from now on.
    SetModel(ModelChoice),
    /// Rename the current session.
    SetTitle(String),
    /// Write the session as a markdown transcript (to this file, or a
    /// default file in the state directory).
    Export(Option<PathBuf>),
    /// Ask for a typed report (answered by [`UiInput::Report`]).
    Report(ReportKind),
    /// Run the user's own command (`!CMD`): no approval, output in a pane,
    /// command and output added to the next prompt.
    UserShell(String),
    /// List background jobs (answered with a notice).
    Jobs,
    /// End a background job (answered with a notice).
    KillJob(String),
    /// The user's answer to [`UiInput::Approval`] number `id`.
    Approval {
        /// The prompt's id.
        id: u64,
        /// The answer.
        answer: ApprovalAnswer,
    },
    /// Restore the files of the latest turn that changed any (`/undo`).
    Undo,
    /// Show the session's file changes as one diff (`/diff`).
    Diff,
    /// List the permission mode and the rules in force (`/permissions`).
    Permissions,
    /// Start this MCP server again (`/mcp restart NAME`; answered with a notice).
    RestartMcp(String),
    /// The UI is closing; flush and stop.
    Quit,
}

/// A change waiting for the user's approval (transient: never in the log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalPrompt {
    /// Answer with this id ([`Op::Approval`]).
    pub id: u64,
    /// The tool call asking; prompts queue in call order.
    pub call_id: String,
    /// The tool's name (`a` allows it for the rest of the session).
    pub tool: String,
    /// One line: what will happen.
    pub title: String,
    /// The unified diff of every file the call changes.
    pub diff: String,
}

/// The user's answer to an [`ApprovalPrompt`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalAnswer {
    /// `y`: apply.
    Approve,
    /// `a`: apply, and stop asking about this tool for the session.
    ApproveForSession,
    /// `n` (with what was typed after it) or Esc: deny.
    Deny(Option<String>),
}

/// What the runtime tells the UI.
#[derive(Debug, Clone, PartialEq)]
pub enum UiInput {
    /// Every [`AgentEvent`], deltas included, in log order.
    Event(AgentEvent),
    /// A job's life (queued, started, ended, withdrawn), in order with the
    /// events: the only source of "running", "idle" and "queued".
    Job(JobUpdate),
    /// A session was opened (start, resume, new): print its header and the
    /// recent turns into scrollback.
    Session {
        /// Which session.
        header: SessionHeader,
        /// Its most recent events (full events, no deltas), oldest first.
        recent: Vec<AgentEvent>,
    },
    /// The model, session and token figures the status line shows; sent
    /// when they change for another reason than a job (a session opened, a
    /// model switched).
    Status(RuntimeStatus),
    /// The tokens the open session used before now (its stored
    /// `agent_trace` events); sent once after [`UiInput::Session`], before
    /// any new trace. The UI adds each later trace itself.
    SessionTokens(TokenTotals),
    /// A model call failed and will be retried after `delay`.
    Retrying {
        /// Retry number, from 1.
        attempt: u32,
        /// Wait before the retry.
        delay: Duration,
        /// Why the call failed.
        message: String,
    },
    /// The stream broke after part of the answer was shown: the live part
    /// of this step's answer and thought is dropped (a retry follows).
    PartialDropped,
    /// A line for the user: errors, "exported to …".
    Notice {
        /// How it is shown.
        level: NoticeLevel,
        /// The text (may span lines).
        text: String,
    },
    /// The user's own command (`!CMD`) started; its pane opens. Live output
    /// follows as [`UiInput::ToolOutput`] with the same id.
    UserShellStarted {
        /// The pane's id.
        id: String,
        /// The command line.
        command: String,
    },
    /// The user's own command ended.
    UserShellDone {
        /// The pane's id.
        id: String,
        /// Status line and output, as the model will see them.
        result: String,
        /// Whether it failed.
        is_error: bool,
    },
    /// A running tool call's live output (its last lines), replacing what
    /// its pane showed before.
    ToolOutput {
        /// The call.
        call_id: String,
        /// What to show.
        text: String,
    },
    /// Answer to [`Op::ListSessions`]: opens the resume picker.
    /// A prompt could not even be queued (no model, bad configuration, no
    /// session); it goes back into the composer and the reason is shown.
    PromptRejected {
        /// The prompt as sent.
        text: String,
        /// Why, in words.
        reason: String,
    },
    /// Answer to [`Op::PickSession`]: opens the session picker.
    Sessions(Vec<SessionRow>),
    /// A tool call waits for the user's approval: the overlay opens (or the
    /// prompt queues behind the open one).
    Approval(ApprovalPrompt),
    /// Answer to [`Op::ListModels`]: opens the model picker.
    Models(Vec<ModelChoice>),
    /// Answer to [`Op::Report`].
    Report(Report),
}

/// How a notice is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    /// Neutral information (dim).
    Info,
    /// Something the user should notice (yellow).
    Warn,
    /// A failure (red).
    Error,
}

/// The header printed when a session is opened.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
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

/// Figures for the status line (what runs and what waits comes from job
/// updates instead).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RuntimeStatus {
    /// Model name.
    pub model: String,
    /// Provider name.
    pub provider: String,
    /// Context window of the model, in tokens (0 when unknown).
    pub context_window: u64,
    /// Tokens currently in the context window.
    pub window_tokens: u64,
    /// Current session id.
    pub session_id: String,
    /// The permission mode (`read-only`, `ask`, `auto`, `full`); empty when
    /// unknown.
    pub permission_mode: String,
    /// How commands run, e.g. `sandboxed`, `NOT sandboxed`, `no sandbox`
    /// (empty: no shell tools).
    pub sandbox: String,
    /// Whether that is a warning (the sandbox is missing or partial).
    pub sandbox_warning: bool,
}

/// One row of the resume picker.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SessionRow {
    /// Session id.
    pub id: String,
    /// Title (may be empty).
    pub title: String,
    /// Canonical cwd the session is bound to.
    pub cwd: String,
    /// Last activity, ms since the Unix epoch.
    pub updated_at: u64,
    /// Number of turns.
    pub turns: u64,
}

/// How the UI starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuiOptions {
    /// File that keeps this cwd's prompt history (JSON lines); `None` keeps
    /// history in memory only.
    pub history_path: Option<PathBuf>,
    /// Show thought text (otherwise only the "thought for Ns" line).
    pub show_thoughts: bool,
    /// How many result lines a tool pane shows.
    pub tool_preview_lines: usize,
    /// Shown at start when no model is configured: what to set.
    pub no_model_message: Option<String>,
    /// A prompt sent as soon as the UI is up.
    pub initial_prompt: Option<String>,
}

impl Default for TuiOptions {
    fn default() -> Self {
        Self {
            history_path: None,
            show_thoughts: true,
            tool_preview_lines: 5,
            no_model_message: None,
            initial_prompt: None,
        }
    }
}

/// How the UI ended normally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TuiExit {
    /// The user quit, or the runtime closed its channel.
    Quit,
    /// This signal (SIGTERM 15, SIGHUP 1) ended it; the process should exit
    /// with 128 + the number.
    Signal(i32),
}

/// Why the UI stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal could not be set up, read or written.
    #[error("terminal I/O failed: {0}")]
    Io(#[from] std::io::Error),
}
