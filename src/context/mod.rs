//! What the model sees: the system prompt, and the session's event window
//! compressed so that it stays small without losing anything.
//!
//! - [`ContextBuilder`] assembles a stable system prompt once (prompt
//!   sections, project instructions from AGENTS.md, the context-window rules,
//!   the skills index) so provider prompt caches hit across steps.
//! - [`compress`] keeps the last two steps verbatim and shrinks older ones:
//!   thoughts dropped, long successful tool results replaced by
//!   `indexed_tool_result` placeholders that `recall_indexed` can expand.
//! - [`summary`] folds old steps into a structured history note through
//!   [`Adaptor::generate_text`] once the window crosses `compact_at`.
//! - [`project`] and [`skills`] read AGENTS.md files and SKILL.md files.
//!
//! Architecture invariant: `context` never sees the tool registry; tools are
//! the loop's business.

pub mod compress;
pub mod project;
pub mod skills;
pub mod summary;

use std::fmt::Write as _;
use std::sync::Arc;

use crate::ai::{Adaptor, AiError};
use crate::protocol::{AgentEvent, Meta};

pub use skills::Skill;

/// A named block of the system prompt, rendered as `<name_instructions>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptSection {
    /// Section name (`builtin_tools` renders as `<builtin_tools_instructions>`).
    pub name: String,
    /// Section text.
    pub content: String,
}

impl PromptSection {
    /// A section.
    pub fn new(name: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            content: content.into(),
        }
    }
}

/// Everything the builder needs to know, fixed for the life of an agent.
#[derive(Debug, Clone)]
pub struct ContextConfig {
    /// Host prompt sections, in order (e.g. the built-in tools' guide).
    pub prompts: Vec<PromptSection>,
    /// Project instructions (AGENTS.md contents), see [`project::load_agents_md`].
    pub project_instructions: Option<String>,
    /// Skills to list in the index, see [`skills::discover`].
    pub skills: Vec<Skill>,
    /// When false, history is sent as it is: no placeholders, no summaries.
    pub strategy_enabled: bool,
    /// The model's context window, in tokens.
    pub context_window: u64,
    /// Fraction of the window at which older steps are summarised.
    pub compact_at: f64,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self {
            prompts: Vec::new(),
            project_instructions: None,
            skills: Vec::new(),
            strategy_enabled: true,
            context_window: 128_000,
            compact_at: 0.8,
        }
    }
}

/// The context of one model call.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildResult {
    /// The system prompt (identical across steps).
    pub system_prompt: Arc<str>,
    /// History to send, in log order.
    pub events: Vec<AgentEvent>,
    /// A summary made for this call; the caller must commit it and replace
    /// its window with [`BuildResult::window`].
    pub summary: Option<AgentEvent>,
    /// The caller's new window when a summary was made: the summary followed
    /// by the steps it did not fold.
    pub window: Option<Vec<AgentEvent>>,
}

/// Why a context could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// The summary call to the model failed.
    #[error("summarising older steps failed: {0}")]
    Summary(#[from] AiError),
}

/// Builds the model's context from the session window.
#[derive(Debug, Clone)]
pub struct ContextBuilder {
    config: ContextConfig,
    system_prompt: Arc<str>,
}

impl ContextBuilder {
    /// A builder; the system prompt is assembled here, once.
    pub fn new(config: ContextConfig) -> Self {
        let system_prompt = render_system_prompt(&config).into();
        Self {
            config,
            system_prompt,
        }
    }

    /// The configuration this builder was made with.
    pub fn config(&self) -> &ContextConfig {
        &self.config
    }

    /// The system prompt sent with every call.
    pub fn system_prompt(&self) -> &str {
        &self.system_prompt
    }

    /// The window size estimate in tokens: the provider's count of the last
    /// call plus a chars/4 estimate of what was added since.
    pub fn window_tokens(&self, window: &[AgentEvent]) -> u64 {
        compress::window_tokens(&self.system_prompt, window)
    }

    /// Tokens at which older steps are summarised.
    pub fn compact_threshold(&self) -> u64 {
        (self.config.context_window as f64 * self.config.compact_at) as u64
    }

    /// Builds the context for the next call. With `force` (the `/compact`
    /// command, or a context-length error) older steps are summarised even
    /// below the threshold. `now` becomes the summary's coordinates.
    pub async fn build(
        &self,
        window: &[AgentEvent],
        adaptor: &dyn Adaptor,
        force: bool,
        now: Meta,
    ) -> Result<BuildResult, ContextError> {
        let over = self.window_tokens(window) >= self.compact_threshold();
        if self.config.strategy_enabled && (force || over) {
            if let Some(folded) = summary::summarise(window, adaptor, now).await? {
                return Ok(BuildResult {
                    system_prompt: self.system_prompt.clone(),
                    events: self.prepare(&folded.window),
                    summary: Some(folded.summary),
                    window: Some(folded.window),
                });
            }
        }
        Ok(BuildResult {
            system_prompt: self.system_prompt.clone(),
            events: self.prepare(window),
            summary: None,
            window: None,
        })
    }

    /// The window as the model should see it (no summary made).
    pub fn prepare(&self, window: &[AgentEvent]) -> Vec<AgentEvent> {
        if self.config.strategy_enabled {
            compress::compress(window)
        } else {
            compress::without_accounting(window)
        }
    }
}

fn render_system_prompt(config: &ContextConfig) -> String {
    let mut out = String::new();
    for section in &config.prompts {
        push_section(&mut out, &section.name, &section.content);
    }
    if let Some(project) = config
        .project_instructions
        .as_deref()
        .filter(|p| !p.trim().is_empty())
    {
        push_section(&mut out, "project", project);
    }
    push_section(
        &mut out,
        "context_window",
        include_str!("../../assets/prompts/context_window.md"),
    );
    let budget = (config.context_window as f64 * 0.02 * 4.0) as usize;
    if let Some(index) = skills::render_index(&config.skills, budget) {
        out.push_str(&index);
    }
    out
}

fn push_section(out: &mut String, name: &str, content: &str) {
    let _ = writeln!(
        out,
        "<{name}_instructions>\n{}\n</{name}_instructions>",
        content.trim_end()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_prompt_has_sections_in_order_and_no_skill_block_without_skills() {
        let builder = ContextBuilder::new(ContextConfig {
            prompts: vec![PromptSection::new("identity", "You are a careful agent.")],
            project_instructions: Some("Use tabs.".into()),
            ..ContextConfig::default()
        });
        let prompt = builder.system_prompt();
        let identity = prompt
            .find("<identity_instructions>\nYou are a careful agent.")
            .unwrap();
        let project = prompt.find("<project_instructions>\nUse tabs.").unwrap();
        let window = prompt.find("<context_window_instructions>").unwrap();
        assert!(identity < project && project < window);
        assert!(!prompt.contains("skill"));
        assert!(
            !prompt.contains("tree"),
            "no file-tool guidance unless the host passes it"
        );
    }
}
