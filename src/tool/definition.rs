//! The closure form of a tool.

use std::future::Future;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::{Tool, ToolContext, ToolOutput};

/// A tool made from a name, a description and an async closure.
///
/// ```
/// use light_agent::tool::{ToolContext, ToolDefinition, ToolOutput, ToolRegistry};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Weather {
///     /// City to look up.
///     city: String,
/// }
///
/// let registry = ToolRegistry::new();
/// registry
///     .register(ToolDefinition::new(
///         "weather",
///         "Current weather for a city.",
///         |args: Weather, _ctx: ToolContext| async move { ToolOutput::ok(format!("sunny in {}", args.city)) },
///     ))
///     .unwrap();
/// assert!(registry.contains("weather"));
/// ```
pub struct ToolDefinition<A, F> {
    name: String,
    description: String,
    handler: F,
    args: PhantomData<fn() -> A>,
}

impl<A, F, Fut> ToolDefinition<A, F>
where
    F: Fn(A, ToolContext) -> Fut,
{
    /// A tool named `name` that runs `handler` for each call.
    pub fn new(name: impl Into<String>, description: impl Into<String>, handler: F) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            handler,
            args: PhantomData,
        }
    }
}

impl<A, F, Fut> Tool for ToolDefinition<A, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ToolOutput> + Send,
{
    type Args = A;

    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn execute(&self, args: A, ctx: ToolContext) -> impl Future<Output = ToolOutput> + Send {
        (self.handler)(args, ctx)
    }
}
