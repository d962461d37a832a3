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

pub mod checks;
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
    /// Estimated tokens of the request: system prompt, tools and events,
    /// calibrated ([`estimate::Counter`]).
    pub tokens: u64,
    /// The same request's uncalibrated dense count, what the provider's
    /// reported input tokens are compared with
    /// ([`ContextBuilder::calibrate`]).
    pub uncalibrated: u64,
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

/// Tokens kept free beside a recall page: the call that asked for it and
/// its result's envelope.
const RECALL_MARGIN: u64 = 256;
/// A recall page is never smaller than this many tokens.
const MIN_RECALL_PAGE_TOKENS: u64 = 64;

/// How large one page of `recall_indexed` may be: at most `chars`
/// characters and at most `tokens` as `counter` counts them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecallPage {
    /// Characters at most.
    pub chars: usize,
    /// Tokens at most.
    pub tokens: u64,
    /// How the tokens are counted.
    pub counter: estimate::Counter,
}

impl Default for RecallPage {
    fn default() -> Self {
        RecallPage {
            chars: 16_000,
            tokens: 4_000,
            counter: estimate::Counter::UNCALIBRATED,
        }
    }
}

/// Builds the model's context from the session window.
#[derive(Debug, Clone)]
pub struct ContextBuilder {
    config: ContextConfig,
    /// The last system prompt made, with the tool names it was made for.
    prompt: Arc<Mutex<Option<MadePrompt>>>,
    /// This session's ratio of reported to estimated tokens.
    calibration: estimate::Calibration,
}

impl ContextBuilder {
    /// A builder.
    pub fn new(config: ContextConfig) -> Self {
        Self {
            config,
            prompt: Arc::default(),
            calibration: estimate::Calibration::default(),
        }
    }

    /// Learns from the provider's count: a request whose uncalibrated
    /// estimate was `estimated` ([`BuildResult::uncalibrated`]) took
    /// `reported` input tokens. Later requests are fitted by the largest
    /// ratio of the last few, never below four bytes a token.
    pub fn calibrate(&mut self, reported: u64, estimated: u64) {
        self.calibration.observe(reported, estimated);
    }

    /// The provider refused a request whose uncalibrated estimate was
    /// `estimated` as over its window: later requests are fitted tighter.
    pub fn tighten(&mut self, estimated: u64) {
        self.calibration
            .observe_overflow(self.config.context_window, estimated);
    }

    /// How tokens are counted now.
    pub fn counter(&self) -> estimate::Counter {
        self.calibration.counter()
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

    /// A resumed tail ([`ContextBuilder::resume_bytes`] of the log, read
    /// at four bytes a token) held to half the summary threshold as tokens
    /// are counted now: dense text weighs more than its bytes, so whole
    /// turns are left out from the front (the last one always stays) and
    /// `skipped_through` moves past them.
    pub fn trim_resumed(
        &self,
        mut tail: Vec<AgentEvent>,
        mut skipped_through: Option<Meta>,
    ) -> (Vec<AgentEvent>, Option<Meta>) {
        let counter = self.counter();
        let budget = self.compact_threshold() / 2;
        let mut total: u64 = tail.iter().map(|e| counter.event(e)).sum();
        while total > budget {
            let Some(first) = tail.first().map(|e| e.meta().turn) else {
                break;
            };
            let cut = tail.iter().take_while(|e| e.meta().turn == first).count();
            if cut == tail.len() {
                break;
            }
            for event in tail.drain(..cut) {
                total -= counter.event(&event);
                skipped_through = Some(event.meta());
            }
        }
        (tail, skipped_through)
    }

    /// How large summary requests and what they make may be.
    pub fn summary_limits(&self) -> SummaryLimits {
        let window = self.config.context_window as f64;
        // Summary slices are measured uncalibrated: a session whose provider
        // counts more than we do gets smaller slices.
        let scale = self.counter().ratio().max(1.0);
        SummaryLimits {
            request_tokens: (self.request_budget() as f64 / scale) as u64,
            note_tokens: (window * NOTE_SHARE) as u64,
            index_tokens: (window * INDEX_SHARE) as u64,
        }
    }

    /// Estimated tokens of the request the window gives now (what the
    /// status line shows).
    pub fn request_tokens(&self, window: &[AgentEvent], tools: &[ToolSpec]) -> u64 {
        self.prepare(window, tools).tokens
    }

    /// One page of `recall_indexed`: as much as fits beside the rest of
    /// the request once every older hot result is indexed (what
    /// [`fit`](fit::fit) does before it touches the newest), at least half
    /// of the room left now and at least a fifth of the window where that
    /// fits. Counted by the session's calibrated counter.
    pub fn recall_page(&self, window: &[AgentEvent], tools: &[ToolSpec]) -> RecallPage {
        let counter = self.counter();
        let fixed = counter.fixed(&self.system_prompt(tools), tools);
        let bounded = self.bounded(window);
        let window = bounded.as_deref().unwrap_or(window);
        let compressed = compress::compress(window);
        let now: u64 = compressed.iter().map(|e| counter.event(e)).sum();
        let least = fit::minimal_tokens(window, &compressed, counter);
        let budget = self.request_budget().saturating_sub(fixed + RECALL_MARGIN);
        // Room when every older hot result gives way, and room as it is.
        let free_all = budget.saturating_sub(least);
        let free_now = budget.saturating_sub(now);
        let tokens = (free_now / 2)
            .max(self.config.context_window / 5)
            .min(free_all)
            .max(MIN_RECALL_PAGE_TOKENS);
        // Four bytes a token, escaping a tenth more, a calibration above one less.
        let chars = (tokens as f64 * 4.0 * 0.9 / counter.ratio().max(1.0)) as usize;
        RecallPage {
            chars: chars.max(MIN_RECALL_PAGE_TOKENS as usize),
            tokens,
            counter,
        }
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
        let fixed = self.counter().fixed(&system_prompt, tools);
        self.check_prompt(window, fixed)?;
        if self.config.strategy
            && (force || self.needs_summary(window, fixed))
            && let Some(folded) =
                summary::summarise(window, adaptor, now, self.summary_limits()).await?
        {
            let prepared = self.prepare(&folded.window, tools);
            let uncalibrated = self.uncalibrated(&prepared.events, tools);
            return Ok(BuildResult {
                system_prompt: system_prompt.clone(),
                events: prepared.events,
                summary: Some(folded.summary),
                window: Some(folded.window),
                tokens: prepared.tokens,
                uncalibrated,
            });
        }
        let prepared = self.prepare(window, tools);
        let uncalibrated = self.uncalibrated(&prepared.events, tools);
        Ok(BuildResult {
            system_prompt: system_prompt.clone(),
            events: prepared.events,
            summary: None,
            window: None,
            uncalibrated,
            tokens: prepared.tokens,
        })
    }

    /// The uncalibrated dense count of a request of `events`.
    fn uncalibrated(&self, events: &[AgentEvent], tools: &[ToolSpec]) -> u64 {
        estimate::fixed_tokens(&self.system_prompt(tools), tools)
            + events.iter().map(estimate::event_tokens).sum::<u64>()
    }

    /// The window as the model should see it (no summary made), fitted into
    /// the request budget.
    pub fn prepare(&self, window: &[AgentEvent], tools: &[ToolSpec]) -> Prepared {
        let counter = self.counter();
        let fixed = counter.fixed(&self.system_prompt(tools), tools);
        if !self.config.strategy {
            let events = compress::without_accounting(window);
            let tokens = fixed + events.iter().map(|e| counter.event(e)).sum::<u64>();
            return Prepared { events, tokens };
        }
        let bounded = self.bounded(window);
        let window = bounded.as_deref().unwrap_or(window);
        let fitted = fit::fit(
            window,
            compress::compress(window),
            self.request_budget().saturating_sub(fixed),
            counter,
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
        fixed + fit::minimal_tokens(window, &compressed, self.counter()) >= self.compact_threshold()
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
        let prompt_tokens = last.map(|e| self.counter().event(e)).unwrap_or(0);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, text: String, meta: Meta) -> AgentEvent {
        AgentEvent::ToolResult {
            outcome: crate::protocol::ToolOutcome {
                id: id.into(),
                name: "read_file".into(),
                result: text,
                is_error: false,
                display: None,
            },
            meta,
        }
    }

    fn call(id: &str, tool: &str, meta: Meta) -> AgentEvent {
        AgentEvent::ToolCalls {
            calls: vec![crate::protocol::ToolCall {
                id: id.into(),
                name: tool.into(),
                args: serde_json::json!({"id": "c1", "_intent": "need it"}),
            }],
            meta,
        }
    }

    /// Issue #23.5: with a large system prompt, a summary and big hot
    /// results, half of the room left was a sliver of the window; older hot
    /// results now give way so the page is a fifth of the window, and it
    /// still reaches the model whole within the budget.
    #[test]
    fn a_recall_page_is_a_fifth_of_the_window_and_arrives_whole() {
        let builder = ContextBuilder::new(ContextConfig {
            prompts: vec![PromptSection::new(
                "rules",
                "Follow the rules. ".repeat(700),
            )],
            context_window: 8_000,
            ..ContextConfig::default()
        });
        let code = |n: usize| "    let value = compute(input, &options);\n".repeat(n);
        let mut window = vec![
            AgentEvent::AgentSummary {
                text: "earlier work ".repeat(300),
                covers_through: Meta::new(1, 9),
                meta: Meta::new(1, 9),
            },
            AgentEvent::Input {
                text: "go on".into(),
                source: crate::protocol::InputSource::User,
                meta: Meta::new(2, 1),
                images: Vec::new(),
            },
        ];
        for (step, id) in [(1, "c1"), (2, "c2")] {
            window.push(call(id, "read_file", Meta::new(2, step)));
            window.push(result(id, code(120), Meta::new(2, step)));
        }
        let page = builder.recall_page(&window, &[]);
        assert!(page.tokens >= 8_000 / 5, "{page:?}");
        // The page placed as the newest result: older ones are indexed and
        // the page stays whole, within the budget.
        let meta = Meta::new(2, 3);
        window.push(call("r1", "recall_indexed", meta));
        let text: String = code(400).chars().take(page.chars).collect();
        assert!(page.counter.text(&text) <= page.tokens);
        window.push(result("r1", text.clone(), meta));
        let prepared = builder.prepare(&window, &[]);
        assert!(prepared.tokens <= builder.request_budget());
        assert!(prepared.events.iter().any(
            |e| matches!(e, AgentEvent::ToolResult { outcome, .. } if outcome.id == "r1" && outcome.result == text)
        ));
    }
}
