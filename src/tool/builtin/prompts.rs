//! The prompt that teaches a model the tree → grep → read_file workflow.

/// Name of the prompt section (`<builtin_tools_instructions>`).
pub const TOOL_PROMPTS_NAME: &str = "builtin_tools";

/// How to use `tree`, `grep` and `read_file` together. Pass it to the
/// context only when those tools are registered.
pub fn tool_prompts() -> &'static str {
    include_str!("../../../assets/prompts/builtin_tools.md")
}

/// Name of the writing tools' prompt section (`<writing_tools_instructions>`).
pub const WRITING_PROMPTS_NAME: &str = "writing_tools";

/// How to change files with the tools of `format`. Pass it to the context
/// only when those tools are registered.
pub fn writing_prompts(format: super::EditFormat) -> &'static str {
    match format {
        super::EditFormat::Patch => include_str!("../../../assets/prompts/writing_patch.md"),
        super::EditFormat::Replace => include_str!("../../../assets/prompts/writing_replace.md"),
    }
}
