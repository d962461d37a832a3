//! The system prompt's sections on the built-in tools, each with the tools
//! that bring it (the context sends a section only while one is offered).

/// Name of the exploration tools' section (`<builtin_tools>`).
pub const TOOL_PROMPTS_NAME: &str = "builtin_tools";

/// How to use `tree`, `grep` and `read_file` together.
pub fn tool_prompts() -> &'static str {
    include_str!("../../../assets/prompts/builtin_tools.md")
}

/// Name of the writing tools' section (`<writing_tools>`).
pub const WRITING_PROMPTS_NAME: &str = "writing_tools";

/// How to change files with the tools of `format`.
pub fn writing_prompts(format: super::EditFormat) -> &'static str {
    match format {
        super::EditFormat::Patch => include_str!("../../../assets/prompts/writing_patch.md"),
        super::EditFormat::Replace => include_str!("../../../assets/prompts/writing_replace.md"),
    }
}

/// Name of the shell tools' section (`<shell_tools>`).
pub const SHELL_PROMPTS_NAME: &str = "shell_tools";

/// How to run commands with `shell`, `shell_output` and `shell_kill`.
pub fn shell_prompts() -> &'static str {
    include_str!("../../../assets/prompts/shell_tools.md")
}

/// Name of the planning tools' section (`<planning>`).
pub const PLANNING_PROMPTS_NAME: &str = "planning";

/// When to keep a plan with `update_plan` and when to `ask_user`.
pub fn planning_prompts() -> &'static str {
    include_str!("../../../assets/prompts/planning.md")
}

/// One section of the system prompt about built-in tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolPrompt {
    /// Section name.
    pub name: &'static str,
    /// Section text.
    pub text: &'static str,
    /// The tools whose presence brings it.
    pub tools: &'static [&'static str],
}

/// Every built-in family's section: exploration, writing (patch or
/// replace, by which tools are registered), commands and planning.
pub fn tool_prompt_sections() -> [ToolPrompt; 5] {
    use super::EditFormat;
    [
        ToolPrompt {
            name: TOOL_PROMPTS_NAME,
            text: tool_prompts(),
            tools: &["tree", "grep", "read_file"],
        },
        ToolPrompt {
            name: WRITING_PROMPTS_NAME,
            text: writing_prompts(EditFormat::Patch),
            tools: &["apply_patch"],
        },
        ToolPrompt {
            name: WRITING_PROMPTS_NAME,
            text: writing_prompts(EditFormat::Replace),
            tools: &["edit", "write"],
        },
        ToolPrompt {
            name: SHELL_PROMPTS_NAME,
            text: shell_prompts(),
            tools: &["shell"],
        },
        ToolPrompt {
            name: PLANNING_PROMPTS_NAME,
            text: planning_prompts(),
            tools: &["update_plan", "ask_user"],
        },
    ]
}
