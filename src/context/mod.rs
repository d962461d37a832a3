//! What the model sees: the system prompt, and the session's event window
//! compressed so that it stays small without losing anything.
//!
//! - [`ContextBuilder`] assembles the system prompt ([`prompt`]) once per
//!   set of offered tools (opening, a section per tool family offered, the
//!   skills index, project instructions, the [`environment`]) so provider
//!   prompt caches hit across steps.
//! - [`compress`] keeps the last two steps verbatim and shrinks older ones:
//!   thoughts dropped, long successful tool results replaced by
//!   `indexed_tool_result` placeholders that `recall_indexed` can expand.
//! - [`fit`] holds every request within [`REQUEST_SHARE`] of the window by
//!   construction (hot results indexed too when needed), [`estimate`]
//!   counts tokens conservatively against the bytes on the wire.
//! - [`summary`] folds old steps into a structured history note through
//!   [`Adaptor::generate_text`] once the cold part crosses `compact_at`, in
//!   slices that each fit the window; [`folded`] is the summary's bounded
//!   index of folded calls.
//! - [`resume`] turns the tail of a long log into a window.
//! - [`project`] and [`skills`] read AGENTS.md (CLAUDE.md, GEMINI.md) files
//!   and SKILL.md files.
//!
//! Architecture invariant: `context` never sees the tool registry; tools are
//! the loop's business (it sees the specs a request offers).

pub mod compress;
pub mod environment;
pub mod estimate;
pub mod fit;
pub mod folded;
pub mod pinned;
pub mod project;
pub mod prompt;
pub mod resume;
pub mod skills;
pub mod summary;

use std::sync::{Arc, Mutex};

use crate::ai::{Adaptor, AiError};
use crate::protocol::{AgentEvent, Meta, ToolSpec};

pub use environment::Environment;
pub use prompt::PromptSection;
pub use skills::Skill;
pub use summary::SummaryLimits;

/// Share of the window a request may fill (estimated conservatively).
pub const REQUEST_SHARE: f64 = 0.95;
/// Share of the window a summary's note may take.
pub const NOTE_SHARE: f64 = 0.10;
/// Share of the window the summary's index of folded calls may take.
pub const INDEX_SHARE: f64 = 0.05;

/// Everything the builder needs to know, fixed for the life of an agent.
#[derive(Debug, Clone)]
pub struct ContextConfig {
    /// Host prompt sections, in order (e.g. the built-in tools' guide);
    /// each is sent only while one of its tools is offered.
    pub prompts: Vec<PromptSection>,
    /// Project instructions (AGENTS.md contents), see [`project::load_agents_md`].
    pub project_instructions: Option<String>,
    /// Skills to list in the index, see [`skills::discover`].
    pub skills: Vec<Skill>,
    /// The environment section (cwd, platform, date, git, project map),
    /// see [`Environment::gather`]; `None` leaves it out.
    pub environment: Option<Environment>,
    /// When false, history is sent as it is: no placeholders, no summaries.
    pub strategy: bool,
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
            environment: None,
            strategy: true,
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
    /// Estimated tokens of the request: system prompt, tools and events.
    pub tokens: u64,
}

/// The history of one request as it will be sent, and its size.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// History to send, in log order.
    pub events: Vec<AgentEvent>,
    /// Estimated tokens of the whole request (system prompt and tools included).
    pub tokens: u64,
}

/// Why a context could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// The summary call to the model failed.
    #[error("summarising older steps failed: {0}")]
    Summary(#[from] AiError),
    /// The newest prompt alone is larger than a request may be.
    #[error(
        "the prompt is about {prompt_tokens} tokens, but the model's {window}-token context window leaves room for {room} after the system prompt and tool definitions; it was not sent: shorten it, or split it into smaller prompts"
    )]
    PromptTooLarge {
        /// Estimated tokens of the prompt.
        prompt_tokens: u64,
        /// Tokens a prompt may take.
        room: u64,
        /// The model's context window.
        window: u64,
    },
}

/// A system prompt and the tool names it was made for.
type MadePrompt = (Vec<String>, Arc<str>);

/// Builds the model's context from the session window.
#[derive(Debug, Clone)]
pub struct ContextBuilder {
    config: ContextConfig,
    /// The last system prompt made, with the tool names it was made for.
    prompt: Arc<Mutex<Option<MadePrompt>>>,
}

impl ContextBuilder {
    /// A builder.
    pub fn new(config: ContextConfig) -> Self {
        Self {
            config,
            prompt: Arc::default(),
        }
    }

    /// The configuration this builder was made with.
    pub fn config(&self) -> &ContextConfig {
        &self.config
    }

    /// The system prompt of a request offering `tools`: assembled once per
    /// set of tool names, so it is the same bytes at every step while the
    /// tools stay the same.
    pub fn system_prompt(&self, tools: &[ToolSpec]) -> Arc<str> {
        let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
        let mut cached = self.prompt.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((made_for, text)) = cached.as_ref()
            && *made_for == names
        {
            return text.clone();
        }
        let text: Arc<str> = prompt::render(&self.config, tools).into();
        *cached = Some((names, text.clone()));
        text
    }

    /// Tokens at which older steps are summarised: when what only a summary
    /// can shrink (system prompt, tools, summary, cold steps, the hot steps
    /// with their long results indexed) reaches this.
    pub fn compact_threshold(&self) -> u64 {
        (self.config.context_window as f64 * self.config.compact_at) as u64
    }

    /// The most tokens one request may take.
    pub fn request_budget(&self) -> u64 {
        (self.config.context_window as f64 * REQUEST_SHARE) as u64
    }

    /// Bytes of stored events a resume loads from the log's tail: half of
    /// the summary threshold, so the next turn has room without folding.
    pub fn resume_bytes(&self) -> usize {
        (self.compact_threshold() as usize).saturating_mul(4) / 2
    }

    /// How large summary requests and what they make may be.
    pub fn summary_limits(&self) -> SummaryLimits {
        let window = self.config.context_window as f64;
        SummaryLimits {
            request_tokens: self.request_budget(),
            note_tokens: (window * NOTE_SHARE) as u64,
            index_tokens: (window * INDEX_SHARE) as u64,
        }
    }

    /// Estimated tokens of the request the window gives now (what the
    /// status line shows).
    pub fn request_tokens(&self, window: &[AgentEvent], tools: &[ToolSpec]) -> u64 {
        self.prepare(window, tools).tokens
    }

    /// Characters of one page of `recall_indexed`: half of what the history
    /// may take besides the summary, so a page arrives whole.
    pub fn recall_page_chars(&self, window: &[AgentEvent], tools: &[ToolSpec]) -> usize {
        let summary: u64 = window
            .iter()
            .filter(|e| matches!(e, AgentEvent::AgentSummary { .. }))
            .map(estimate::event_tokens)
            .sum();
        let room = self
            .request_budget()
            .saturating_sub(estimate::fixed_tokens(&self.system_prompt(tools), tools))
            .saturating_sub(summary.min(self.summary_limits().note_tokens * 2))
            .saturating_sub(256);
        // Four bytes a token; escaping takes up to a tenth more.
        ((room / 2) as usize * 4 * 9 / 10).max(256)
    }

    /// Builds the context for the next call. With `force` (the `/compact`
    /// command, or a context-length error) older steps are summarised even
    /// below the threshold. `now` becomes the summary's coordinates. The
    /// request is within [`ContextBuilder::request_budget`] by construction;
    /// a newest prompt that alone cannot fit is refused.
    pub async fn build(
        &self,
        window: &[AgentEvent],
        tools: &[ToolSpec],
        adaptor: &dyn Adaptor,
        force: bool,
        now: Meta,
    ) -> Result<BuildResult, ContextError> {
        let system_prompt = self.system_prompt(tools);
        let fixed = estimate::fixed_tokens(&system_prompt, tools);
        self.check_prompt(window, fixed)?;
        if self.config.strategy
            && (force || self.needs_summary(window, fixed))
            && let Some(folded) =
                summary::summarise(window, adaptor, now, self.summary_limits()).await?
        {
            let prepared = self.prepare(&folded.window, tools);
            return Ok(BuildResult {
                system_prompt: system_prompt.clone(),
                events: prepared.events,
                summary: Some(folded.summary),
                window: Some(folded.window),
                tokens: prepared.tokens,
            });
        }
        let prepared = self.prepare(window, tools);
        Ok(BuildResult {
            system_prompt: system_prompt.clone(),
            events: prepared.events,
            summary: None,
            window: None,
            tokens: prepared.tokens,
        })
    }

    /// The window as the model should see it (no summary made), fitted into
    /// the request budget.
    pub fn prepare(&self, window: &[AgentEvent], tools: &[ToolSpec]) -> Prepared {
        let fixed = estimate::fixed_tokens(&self.system_prompt(tools), tools);
        if !self.config.strategy {
            let events = compress::without_accounting(window);
            let tokens = fixed + events.iter().map(estimate::event_tokens).sum::<u64>();
            return Prepared { events, tokens };
        }
        let bounded = self.bounded(window);
        let window = bounded.as_deref().unwrap_or(window);
        let fitted = fit::fit(
            window,
            compress::compress(window),
            self.request_budget().saturating_sub(fixed),
        );
        Prepared {
            events: fitted.events,
            tokens: fixed + fitted.tokens,
        }
    }

    /// Whether the part only a summary can shrink has reached the threshold
    /// (and there is something cold to fold).
    fn needs_summary(&self, window: &[AgentEvent], fixed: u64) -> bool {
        let bounded = self.bounded(window);
        let window = bounded.as_deref().unwrap_or(window);
        let compressed = compress::compress(window);
        fixed + fit::minimal_tokens(window, &compressed) >= self.compact_threshold()
    }

    /// The window with every summary held to its budget; `None` when all are
    /// within it already.
    fn bounded(&self, window: &[AgentEvent]) -> Option<Vec<AgentEvent>> {
        let limits = self.summary_limits();
        let cap = limits.note_tokens + limits.index_tokens;
        let over = |e: &AgentEvent| matches!(e, AgentEvent::AgentSummary { text, .. } if estimate::text_tokens(text) > cap);
        if !window.iter().any(over) {
            return None;
        }
        Some(
            window
                .iter()
                .map(|e| match e {
                    AgentEvent::AgentSummary {
                        text,
                        covers_through,
                        meta,
                    } if over(e) => AgentEvent::AgentSummary {
                        text: folded::bound_summary(text, limits.note_tokens, limits.index_tokens),
                        covers_through: *covers_through,
                        meta: *meta,
                    },
                    other => other.clone(),
                })
                .collect(),
        )
    }

    /// Refuses a newest prompt that cannot fit a request on its own.
    fn check_prompt(&self, window: &[AgentEvent], fixed: u64) -> Result<(), ContextError> {
        let last = window
            .iter()
            .rev()
            .find(|e| !matches!(e, AgentEvent::AgentTrace { .. }));
        let Some(AgentEvent::Input { .. }) = last else {
            return Ok(());
        };
        let prompt_tokens = last.map(estimate::event_tokens).unwrap_or(0);
        // The summary, if any, must fit beside it.
        let room = self
            .request_budget()
            .saturating_sub(fixed)
            .saturating_sub(self.summary_limits().note_tokens + self.summary_limits().index_tokens);
        if prompt_tokens > room {
            return Err(ContextError::PromptTooLarge {
                prompt_tokens,
                room,
                window: self.config.context_window,
            });
        }
        Ok(())
    }
}
