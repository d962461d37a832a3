//! The built-in exploration tools and the prompt that explains them.
//!
//! | tool | file | job |
//! |---|---|---|
//! | `tree` | `tree.rs` | project structure with sizes |
//! | `grep` | `grep.rs` | where known plain strings occur |
//! | `read_file` | `read_file/` | file text, whole or windowed |
//!
//! All three confine paths with [`sandbox`](crate::tool::sandbox), honour
//! ignore files like ripgrep, run their filesystem work on the blocking pool
//! and answer "`<tool> cancelled`" as soon as the context's token fires.

mod blocking;
mod grep;
mod prompts;
mod read_file;
mod tree;

pub use grep::{GrepArgs, GrepTool};
pub use prompts::{TOOL_PROMPTS_NAME, tool_prompts};
pub use read_file::{ReadFileArgs, ReadFileTool};
pub use tree::{TreeArgs, TreeTool};

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

/// Registers `tree`, `grep` and `read_file`, in that order.
///
/// Fails if one of those names is already taken (earlier ones stay registered).
pub fn register_all(registry: &ToolRegistry) -> Result<(), RegisterError> {
    registry.register(tree())?;
    registry.register(grep())?;
    registry.register(read_file())
}
