//! Prompt-file commands (`/fix issue-12` from `.claude/commands/fix.md`):
//! what the host lists for [`Op::ListCommands`](super::Op::ListCommands) so
//! a front end offers them beside its built-in commands.

use serde::{Deserialize, Serialize};

/// One prompt-file command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptCommand {
    /// Its name, without the slash (the file's stem).
    pub name: String,
    /// Its front matter's `description` (empty when it has none).
    #[serde(default)]
    pub description: String,
    /// Its front matter's `argument-hint` (empty when it has none).
    #[serde(default)]
    pub argument_hint: String,
    /// Where it comes from.
    pub origin: CommandOrigin,
    /// The file, relative to the project or the config directory.
    pub path: String,
    /// Whether its text runs shell commands (`` !`cmd` ``) before it is sent.
    #[serde(default)]
    pub runs_shell: bool,
    /// Why it cannot be used (too large, not UTF-8, …), when it cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Where a prompt-file command comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandOrigin {
    /// The project's own folders (`.agents/commands`, `.claude/commands`, …):
    /// its shell lines run only after the user accepted them.
    Project,
    /// The user's `commands/` folder in the config directory.
    User,
}
