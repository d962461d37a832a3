//! The tool system: what a model may call, and how a call is run safely.
//!
//! - [`Tool`] is the trait a tool implements: typed arguments (serde +
//!   schemars), a name, a description and an async `execute`.
//! - [`ToolDefinition`] is the closure form of a tool.
//! - [`ToolRegistry`] holds tools in registration order, exposes their
//!   [`ToolSpec`](crate::protocol::ToolSpec)s (JSON Schema with the added
//!   `_intent` field) and runs calls. Nothing a model sends — bad JSON, bad
//!   arguments, an unknown name, a panicking tool — ends a turn: every failure
//!   comes back as an error [`ToolOutput`] the model can read.
//! - [`fs`] is the confined-open API: the working directory held as a
//!   handle ([`fs::Root`]), every file a tool touches opened beneath it.
//! - [`builtin`] holds the exploration tools `tree`, `grep` and `read_file`
//!   and the prompt that explains them.
//!
//! Architecture invariant: this module knows no vendor format; tools leave it
//! as plain JSON Schema. schemars is used here and nowhere else.

pub mod builtin;
mod context;
mod definition;
pub mod editor;
pub mod fs;
pub mod journal;
mod labelled;
pub mod patch;
mod registry;
mod schema;
pub(crate) use schema::unexplained;
pub mod seen;
pub mod snapshot;

use std::future::Future;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

pub use context::{ProgressSink, ToolContext, ToolProgress};
pub use definition::ToolDefinition;
pub use registry::{RegisterError, ToolRegistry};

/// What a tool gives back to the model: text, flagged as an error or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// Whether the call failed; the model is told so.
    pub is_error: bool,
    /// Text given back to the model.
    pub content: String,
    /// What a UI shows besides `content` (an applied change's unified
    /// diff); never sent to the model.
    pub display: Option<String>,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            is_error: false,
            content: content.into(),
            display: None,
        }
    }

    /// A failed result; `content` should tell the model how to recover.
    pub fn error(content: impl Into<String>) -> Self {
        Self {
            is_error: true,
            content: content.into(),
            display: None,
        }
    }

    /// This result with `display` shown to the user beside it.
    pub fn with_display(self, display: String) -> Self {
        Self {
            display: Some(display),
            ..self
        }
    }
}

/// A tool whose arguments stay JSON, for schemas known only at run time (an
/// MCP server's tools). Registered with [`ToolRegistry::register_json`]; the
/// registry has validated `args` against the schema and removed `_intent`.
pub trait JsonTool: Send + Sync + 'static {
    /// Runs one call; must return promptly once `ctx.cancel` fires.
    fn call(&self, args: serde_json::Value, ctx: ToolContext) -> BoxFuture<'static, ToolOutput>;
}

/// A tool a model can call.
///
/// `Args` is deserialised from the model's argument object (after `_intent`
/// was removed) and its JSON Schema is what the model is shown, so it must be
/// an object schema (a struct with named fields). `execute` must return
/// promptly once `ctx.cancel` fires.
pub trait Tool: Send + Sync + 'static {
    /// The typed arguments of one call.
    type Args: DeserializeOwned + JsonSchema + Send;

    /// Name the model calls the tool by, `^[a-zA-Z0-9_-]{1,64}$`.
    fn name(&self) -> &str;

    /// What the tool does and when to use it, for the model.
    fn description(&self) -> &str;

    /// Whether the model is asked why it calls this tool (the `_intent`
    /// field, searched by recall and shown on the tool's pane). Tools whose
    /// arguments already say it (a plan, questions, a job or recall id)
    /// answer `false`: the field costs tokens in every request.
    fn asks_intent(&self) -> bool {
        true
    }

    /// Rewrites the model's argument object before it is checked against
    /// the schema: spellings models send for the same field (aliases).
    /// The default changes nothing.
    fn normalize_args(&self, args: &mut serde_json::Map<String, serde_json::Value>) {
        let _ = args;
    }

    /// Runs one call. Failures the model can fix are error outputs, not panics.
    fn execute(
        &self,
        args: Self::Args,
        ctx: ToolContext,
    ) -> impl Future<Output = ToolOutput> + Send;
}
