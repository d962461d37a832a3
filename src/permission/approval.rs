//! Asking the user: the question, the answer and who asks.

use futures::future::BoxFuture;

use super::policy::SandboxState;

/// What a gated call shows the user before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// The tool call's id.
    pub call_id: String,
    /// The tool's name (`edit`, `apply_patch`, `shell`, …); "allow for the
    /// session" applies to this name.
    pub tool: String,
    /// One line saying what will happen (`edit src/a.rs (+5 −2)`).
    pub title: String,
    /// What exactly will change or run.
    pub detail: ApprovalDetail,
}

/// The body of an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalDetail {
    /// A unified diff of every file the call changes (`---`/`+++`/`@@`).
    Diff {
        /// The diff text.
        unified: String,
    },
    /// A command to run.
    Command {
        /// The command line.
        command: String,
        /// Where it runs.
        workdir: String,
        /// Whether it runs sandboxed.
        sandbox: SandboxState,
        /// Why it is destructive (`` `rm -rf src` removes files
        /// recursively…``), one line per destructive part; empty when it is
        /// not.
        destructive: Vec<String>,
    },
    /// An MCP tool call.
    Mcp {
        /// The server's name.
        server: String,
        /// The tool's name.
        tool: String,
        /// The arguments as JSON text.
        args: String,
    },
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalDecision {
    /// Run this call.
    Approve,
    /// Run this call and stop asking about this tool for the session.
    ApproveForSession,
    /// Do not run it; the model is told, with the reason when one was given.
    Deny {
        /// What the user typed after `n`.
        reason: Option<String>,
    },
}

/// How a host asks its user. The TUI shows an overlay; a library user can
/// bring their own. A future that never resolves keeps the call waiting
/// until the turn is interrupted, which drops it.
pub trait Approver: Send + Sync {
    /// Asks about one call and resolves with the answer.
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision>;
}
