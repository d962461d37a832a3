//! # light-agent
//!
//! An event-stream coding-agent runtime: an [`Agent`] runs a serial queue of
//! prompts through a model–tool loop, streams every [`AgentEvent`] to its
//! subscribers, persists the canonical ones in a SQLite session, keeps the
//! model's context small with recallable placeholders and summaries, and
//! stops the moment [`Agent::interrupt`] is called. The `light-agent` binary
//! hosts it in a terminal UI or headless.
//!
//! ## Embedding
//!
//! ```no_run
//! use std::sync::Arc;
//! use light_agent::{Agent, AgentConfig, ContextConfig, HttpOptions, LoopConfig, OpenAiAdaptor, PromptSection, Secret};
//! use light_agent::{AgentEvent, ToolContext, ToolDefinition, ToolOutput, builtin};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Weather {
//!     /// City name, e.g. London.
//!     city: String,
//! }
//!
//! # async fn demo() -> anyhow::Result<()> {
//! let agent = Agent::new(AgentConfig {
//!     cwd: std::env::current_dir()?,
//!     session: None,
//!     adaptor: Arc::new(OpenAiAdaptor::new(
//!         "https://api.openai.com/v1",
//!         std::env::var("OPENAI_API_KEY").ok().map(Secret::new),
//!         "gpt-4.1",
//!         HttpOptions::default(),
//!     )?),
//!     context: ContextConfig {
//!         prompts: vec![PromptSection::new(builtin::TOOL_PROMPTS_NAME, builtin::tool_prompts())],
//!         ..ContextConfig::default()
//!     },
//!     loop_config: LoopConfig::default(),
//! });
//! builtin::register_all(agent.tool())?; // tree, grep, read_file
//! agent.tool().register(ToolDefinition::new(
//!     "weather",
//!     "Gets the current weather of a city.",
//!     |args: Weather, _ctx: ToolContext| async move { ToolOutput::ok(format!("{}: sunny", args.city)) },
//! ))?;
//!
//! let mut events = agent.subscribe();
//! tokio::spawn(async move {
//!     while let Some(event) = events.recv().await {
//!         if let AgentEvent::OutputDelta { text, .. } = event {
//!             print!("{text}");
//!         }
//!     }
//! });
//! let outcome = agent.prompt("What is the weather in London?").await?;
//! println!("\n{:?}", outcome.cause);
//! # Ok(())
//! # }
//! ```
//!
//! ## Modules
//! - [`protocol`]: the event vocabulary every layer speaks.
//! - [`ai`]: vendor adaptors (OpenAI-compatible, Anthropic, Gemini, OpenAI
//!   Responses) from our event log to a provider's stream and back.
//! - [`tool`]: the tool registry, the path sandbox and the built-in tools.
//! - [`context`]: the system prompt, compression of old steps, summaries,
//!   AGENTS.md and skills.
//! - [`permission`]: permission modes, rules and approvals.
//! - [`session`]: SQLite sessions.
//! - [`agent`]: the [`Agent`] and its loop.
//! - [`config`]: configuration file, environment and flags resolved once.
//! - [`host`]: the session host every front end drives with the protocol's
//!   ops and events.
//! - `tui` (Cargo feature `tui`, on by default): the terminal front end,
//!   joined to the runtime by channels.
#![deny(missing_docs)]

pub mod agent;
pub mod ai;
pub mod config;
pub mod context;
pub mod host;
pub mod mcp;
pub mod permission;
pub mod protocol;
pub mod sandbox;
pub mod session;
pub mod tool;
#[cfg(feature = "tui")]
pub mod tui;

pub use agent::{Agent, AgentConfig, AgentError, AgentState, LoopConfig, Notice, TurnOutcome};
pub use ai::{
    Adaptor, AiError, AiErrorKind, AnthropicAdaptor, GeminiAdaptor, HttpOptions, OpenAiAdaptor,
    ResponsesAdaptor, RetryPolicy,
};
pub use context::{ContextConfig, PromptSection};
pub use protocol::{
    AgentEvent, InputSource, Meta, Secret, StopCause, ToolCall, ToolOutcome, ToolSpec, Usage,
};
pub use session::{AgentSession, SessionManager};
pub use tool::{Tool, ToolContext, ToolDefinition, ToolOutput, ToolRegistry, builtin};
