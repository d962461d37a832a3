//! The prompt that teaches a model the tree → grep → read_file workflow.

/// Name of the prompt section (`<builtin_tools_instructions>`).
pub const TOOL_PROMPTS_NAME: &str = "builtin_tools";

/// How to use `tree`, `grep` and `read_file` together. Pass it to the
/// context only when those tools are registered.
pub fn tool_prompts() -> &'static str {
    include_str!("../../../assets/prompts/builtin_tools.md")
}
