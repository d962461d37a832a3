//! The built-in exploration tools and the prompt that explains them.
//!
//! | tool | file | job |
//! |---|---|---|
//! | `tree` | `tree.rs` | project structure with sizes |
//! | `grep` | `grep.rs` | where known plain strings occur |
//! | `read_file` | `read_file/` | file text, whole or windowed |
//! | `edit` | `edit.rs` | replace exact text in one file |
//! | `write` | `write.rs` | create a file, or replace one seen as it is |
//! | `apply_patch` | `apply_patch.rs` | a `*** Begin Patch` patch over many files |
//! | `update_plan` | `plan.rs` | the model's plan, shown to the user |
//! | `ask_user` | `ask.rs` | questions to the user mid-turn |
//!
//! The writing tools share `change.rs` (load, stale guard, approval,
//! journal, all-or-nothing commit) and compute every change in memory
//! first with [`crate::tool::patch`].
//!
//! All of them open files only through [`fs`](crate::tool::fs), the
//! exploration tools honour ignore files like ripgrep; all run their
//! filesystem work on the blocking pool
//! and answer "`<tool> cancelled`" as soon as the context's token fires.

mod apply_patch;
mod ask;
mod blocking;
mod change;
mod edit;
mod grep;
mod plan;
mod prompts;
mod read_file;
pub mod shell;
mod tree;
mod write;

pub use apply_patch::{ApplyPatchArgs, ApplyPatchTool};
pub use ask::{AskUserArgs, AskUserTool, Asker, NO_USER, QuestionArgs};
pub use edit::{EditArgs, EditItem, EditTool};
pub use grep::{GrepArgs, GrepTool};
pub use plan::{StatusArg, StepArgs, UpdatePlanArgs, UpdatePlanTool};
pub use prompts::{
    SHELL_PROMPTS_NAME, TOOL_PROMPTS_NAME, ToolPrompt, WRITING_PROMPTS_NAME, shell_prompts,
    tool_prompt_sections, tool_prompts, writing_prompts,
};
pub use read_file::{ReadFileArgs, ReadFileTool};
pub use tree::{TreeArgs, TreeTool};
pub use write::{WriteArgs, WriteTool};

use super::{RegisterError, ToolRegistry};

/// The `tree` tool.
pub fn tree() -> TreeTool {
    TreeTool
}

/// The `grep` tool.
pub fn grep() -> GrepTool {
    GrepTool
}

/// The `read_file` tool.
pub fn read_file() -> ReadFileTool {
    ReadFileTool
}

/// The `edit` tool.
pub fn edit() -> EditTool {
    EditTool
}

/// The `write` tool.
pub fn write() -> WriteTool {
    WriteTool
}

/// The `apply_patch` tool.
pub fn apply_patch() -> ApplyPatchTool {
    ApplyPatchTool
}

/// Which writing tools a model gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditFormat {
    /// `apply_patch` (what OpenAI's models are trained on).
    Patch,
    /// `edit` and `write`.
    Replace,
}

impl std::str::FromStr for EditFormat {
    type Err = String;

    /// `patch` or `replace`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "patch" => Ok(EditFormat::Patch),
            "replace" => Ok(EditFormat::Replace),
            other => Err(format!("edit_format must be patch or replace, not {other}")),
        }
    }
}

impl EditFormat {
    /// The default for a model name: `patch` for `gpt-4.1*`, `gpt-5*`,
    /// `o3*`, `o4*` and `codex*` (also after a `provider/` prefix),
    /// `replace` otherwise.
    pub fn default_for(model: &str) -> EditFormat {
        let name = model
            .rsplit('/')
            .next()
            .unwrap_or(model)
            .to_ascii_lowercase();
        let patch = ["gpt-4.1", "gpt-5", "o3", "o4", "codex"];
        if patch.iter().any(|p| name.starts_with(p)) {
            EditFormat::Patch
        } else {
            EditFormat::Replace
        }
    }
}

/// Registers the writing tools of `format`: `apply_patch`, or `edit` and
/// `write`.
pub fn register_writing(registry: &ToolRegistry, format: EditFormat) -> Result<(), RegisterError> {
    match format {
        EditFormat::Patch => registry.register(apply_patch()),
        EditFormat::Replace => {
            registry.register(edit())?;
            registry.register(write())
        }
    }
}

/// Registers `tree`, `grep` and `read_file`, in that order.
///
/// Fails if one of those names is already taken (earlier ones stay registered).
pub fn register_all(registry: &ToolRegistry) -> Result<(), RegisterError> {
    registry.register(tree())?;
    registry.register(grep())?;
    registry.register(read_file())
}

/// Registers `update_plan` (the plan reaches the user as
/// [`crate::protocol::HostEvent::Plan`]) and `ask_user` (through `asker`;
/// without one it says no user is present).
pub fn register_conversation(
    registry: &ToolRegistry,
    asker: Option<std::sync::Arc<dyn Asker>>,
) -> Result<(), RegisterError> {
    registry.register(UpdatePlanTool)?;
    registry.register(AskUserTool::new(asker))
}
