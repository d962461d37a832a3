//! The system prompt: an opening that says what the agent is and how it
//! works on code, one section per tool family that is offered, the project's
//! instructions, and the environment — stable parts first, what may change
//! (date, git state) last, so a provider's prompt cache keeps hitting.

use std::fmt::Write as _;

use super::environment::Environment;
use super::{ContextConfig, skills};
use crate::protocol::ToolSpec;

/// What the agent is and its workflow on code (always sent).
const OPENING: &str = include_str!("../../assets/prompts/opening.md");
/// How the history index and recall work (sent when `recall_indexed` is).
const RECALL: &str = include_str!("../../assets/prompts/context_window.md");
/// The tool whose presence brings [`RECALL`].
const RECALL_TOOL: &str = "recall_indexed";

/// A named block of the system prompt, rendered as `<name>…</name>`, sent
/// only while one of its tools is offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptSection {
    /// Section name (`builtin_tools` renders as `<builtin_tools>`).
    pub name: String,
    /// Section text.
    pub content: String,
    /// Tool names that bring the section (a name ending in `*` is a
    /// prefix); empty: always sent.
    pub tools: Vec<String>,
}

impl PromptSection {
    /// A section sent with every request.
    pub fn new(name: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            content: content.into(),
            tools: Vec::new(),
        }
    }

    /// A section sent only while one of `tools` is offered.
    pub fn for_tools(
        name: impl Into<String>,
        content: impl Into<String>,
        tools: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            tools: tools.into_iter().map(Into::into).collect(),
            ..Self::new(name, content)
        }
    }

    /// Whether the section goes with a request offering `offered`.
    pub fn applies(&self, offered: &[ToolSpec]) -> bool {
        self.tools.is_empty() || self.tools.iter().any(|t| offers(offered, t))
    }
}

/// Whether `offered` holds `tool` (a prefix when it ends in `*`).
fn offers(offered: &[ToolSpec], tool: &str) -> bool {
    match tool.strip_suffix('*') {
        Some(prefix) => offered.iter().any(|s| s.name.starts_with(prefix)),
        None => offered.iter().any(|s| s.name == tool),
    }
}

/// The system prompt for a request offering `tools`. The same
/// configuration and tool names always give the same bytes.
pub fn render(config: &ContextConfig, tools: &[ToolSpec]) -> String {
    let mut out = String::new();
    push_block(&mut out, "identity", OPENING);
    for section in config.prompts.iter().filter(|s| s.applies(tools)) {
        push_block(&mut out, &section.name, &section.content);
    }
    if offers(tools, RECALL_TOOL) {
        push_block(&mut out, "context_window", RECALL);
    }
    let budget = (config.context_window as f64 * 0.02 * 4.0) as usize;
    if let Some(index) = skills::render_index(&config.skills, budget) {
        out.push_str(&index);
    }
    if let Some(project) = config
        .project_instructions
        .as_deref()
        .filter(|p| !p.trim().is_empty())
    {
        push_block(&mut out, "project_instructions", project);
    }
    if let Some(env) = &config.environment {
        push_environment(&mut out, env);
    }
    out
}

fn push_environment(out: &mut String, env: &Environment) {
    push_block(out, "environment", &env.render_stable());
    push_block(out, "session_state", &env.render_changing());
}

fn push_block(out: &mut String, tag: &str, content: &str) {
    let _ = writeln!(out, "<{tag}>\n{}\n</{tag}>", content.trim_end());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::environment::GitState;

    fn spec(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            schema: serde_json::json!({"type": "object"}),
        }
    }

    fn config() -> ContextConfig {
        ContextConfig {
            prompts: vec![
                PromptSection::for_tools("builtin_tools", "EXPLORE", ["tree", "grep"]),
                PromptSection::for_tools("shell_tools", "RUN", ["shell"]),
                PromptSection::for_tools("mcp_tools", "MCP", ["mcp__*"]),
            ],
            project_instructions: Some("Use tabs.".into()),
            environment: Some(Environment {
                cwd: "/work/p".into(),
                platform: "linux x86_64".into(),
                shell: "bash".into(),
                date: "2026-12-01".into(),
                git: Some(GitState {
                    branch: "main".into(),
                    dirty: 2,
                }),
                test_commands: vec!["`cargo test`".into()],
                project_map: "src/ (3 files)".into(),
            }),
            ..ContextConfig::default()
        }
    }

    #[test]
    fn only_sections_of_offered_tools_are_sent() {
        let prompt = render(&config(), &[spec("grep"), spec("mcp__srv__x")]);
        assert!(prompt.contains("EXPLORE") && prompt.contains("MCP"));
        assert!(
            !prompt.contains("RUN"),
            "no shell section without the shell tool"
        );
        assert!(
            !prompt.contains("recall_indexed"),
            "no recall guide without the tool"
        );
        let with_recall = render(&config(), &[spec("recall_indexed")]);
        assert!(with_recall.contains("<context_window>"));
        assert!(!with_recall.contains("EXPLORE"));
    }

    #[test]
    fn opening_comes_first_and_what_changes_comes_last() {
        let prompt = render(&config(), &[spec("tree"), spec("recall_indexed")]);
        let at = |needle: &str| prompt.find(needle).unwrap();
        assert_eq!(at("<identity>"), 0);
        assert!(at("EXPLORE") < at("<context_window>"));
        assert!(at("<context_window>") < at("Use tabs."));
        assert!(at("Use tabs.") < at("Working directory: /work/p"));
        assert!(at("src/ (3 files)") < at("<session_state>"));
        assert!(prompt.trim_end().ends_with(
            "Date: 2026-12-01\nGit branch: main; 2 changed or untracked files at session start\n</session_state>"
        ));
    }
}
