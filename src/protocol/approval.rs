//! Asking the user before a gated call runs: the request with its typed
//! subject, and the decision.

use serde::{Deserialize, Serialize};

/// What a gated call shows the user before it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// The subject of an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
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
        sandbox: CommandSandbox,
        /// Why it is destructive (`` `rm -rf src` removes files
        /// recursively…``), one line per destructive part; empty when it is
        /// not.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
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
    /// A web fetch (`web_fetch`).
    Web {
        /// The URL, without any `user:pass@`.
        url: String,
        /// Its host, which "allow for the session" allows.
        host: String,
    },
}

/// Whether a command would run inside the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandSandbox {
    /// Confined: writes only inside the working directory, no network.
    Sandboxed,
    /// Runs with the user's full rights.
    Unsandboxed,
}

impl std::fmt::Display for CommandSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CommandSandbox::Sandboxed => "sandboxed",
            CommandSandbox::Unsandboxed => "not sandboxed",
        })
    }
}

/// The user's answer. Its JSON form is tagged by `decision`:
/// `{"decision":"allow"}`, `{"decision":"allow_always"}`,
/// `{"decision":"deny","reason":"use the other file"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run this call.
    #[serde(rename = "allow")]
    Approve,
    /// Run this call and stop asking about this tool for the session.
    #[serde(rename = "allow_always")]
    ApproveForSession,
    /// Do not run it; the model is told, with the reason when one was given.
    Deny {
        /// What the user typed after `n`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}
