//! The registry: tools by name, their specs, and the guarded call path.

use std::sync::{Arc, PoisonError, RwLock};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::labelled::{Labelled, echo};
use super::schema::{self, INTENT_FIELD, Issue};
use super::{JsonTool, Tool, ToolContext, ToolOutput};
use crate::protocol::ToolSpec;

/// Why a tool could not be registered. Each message names the tool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    /// The name is empty or blank.
    #[error("tool name must not be empty")]
    EmptyName,
    /// The name does not match `^[a-zA-Z0-9_-]{1,64}$`.
    #[error("tool name must match ^[a-zA-Z0-9_-]{{1,64}}$: {name:?}")]
    InvalidName {
        /// The rejected name.
        name: String,
    },
    /// The description is empty or blank.
    #[error("tool description must not be empty: {name}")]
    EmptyDescription {
        /// The tool's name.
        name: String,
    },
    /// The argument type's JSON Schema is not an object schema.
    #[error("tool arguments must be a struct with named fields (an object schema): {name}")]
    SchemaNotObject {
        /// The tool's name.
        name: String,
    },
    /// A tool with this name is already registered.
    #[error("tool already exists: {name}")]
    Duplicate {
        /// The tool's name.
        name: String,
    },
}

/// A registered tool with its type erased.
struct Entry {
    spec: ToolSpec,
    own_schema: Value,
    runner: Arc<dyn Runner>,
}

/// Runs a call whose arguments were already validated against the schema.
trait Runner: Send + Sync {
    fn normalize(&self, args: &mut serde_json::Map<String, Value>);

    fn run(
        self: Arc<Self>,
        args: Value,
        ctx: ToolContext,
    ) -> Result<BoxFuture<'static, ToolOutput>, Issue>;
}

struct Typed<T>(T);

impl<T: Tool> Runner for Typed<T> {
    fn normalize(&self, args: &mut serde_json::Map<String, Value>) {
        self.0.normalize_args(args);
    }

    fn run(
        self: Arc<Self>,
        args: Value,
        ctx: ToolContext,
    ) -> Result<BoxFuture<'static, ToolOutput>, Issue> {
        let args: T::Args = schema::deserialize(args)?;
        Ok(async move { self.0.execute(args, ctx).await }.boxed())
    }
}

/// Runs a tool whose arguments stay JSON.
struct Untyped(Arc<dyn JsonTool>);

impl Runner for Untyped {
    // A server's schema is taken as it is: nothing to fill in.
    fn normalize(&self, _args: &mut serde_json::Map<String, Value>) {}

    fn run(
        self: Arc<Self>,
        args: Value,
        ctx: ToolContext,
    ) -> Result<BoxFuture<'static, ToolOutput>, Issue> {
        Ok(self.0.call(args, ctx))
    }
}

/// The tools a model may call, in registration order.
///
/// A cheap-clone handle: clones share one set of tools. The lock inside is
/// never held across an `.await`, so registering while calls run is safe.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    entries: Arc<RwLock<Vec<Entry>>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tool`, generating its schema once.
    ///
    /// Fails (and registers nothing) on an empty or malformed name, an empty
    /// description, arguments whose schema is not an object, or a duplicate.
    pub fn register<T: Tool>(&self, tool: T) -> Result<(), RegisterError> {
        let name = tool.name().to_owned();
        if name.trim().is_empty() {
            return Err(RegisterError::EmptyName);
        }
        if !is_valid_name(&name) {
            return Err(RegisterError::InvalidName { name });
        }
        if tool.description().trim().is_empty() {
            return Err(RegisterError::EmptyDescription { name });
        }
        let Some(schemas) = schema::args_schema::<T::Args>(tool.asks_intent()) else {
            return Err(RegisterError::SchemaNotObject { name });
        };
        let entry = Entry {
            spec: ToolSpec {
                name: name.clone(),
                description: tool.description().to_owned(),
                schema: schemas.exposed,
            },
            own_schema: schemas.own,
            runner: Arc::new(Typed(tool)),
        };
        self.insert(entry)
    }

    /// Adds a tool whose argument schema is known only at run time (an MCP
    /// server's tool): `schema` must be an object schema; arguments are
    /// validated against it and `_intent` is added as for every tool.
    ///
    /// Fails (and registers nothing) for the same reasons as [`Self::register`].
    pub fn register_json(
        &self,
        name: &str,
        description: &str,
        schema: Value,
        tool: Arc<dyn JsonTool>,
    ) -> Result<(), RegisterError> {
        let name = name.to_owned();
        if name.trim().is_empty() {
            return Err(RegisterError::EmptyName);
        }
        if !is_valid_name(&name) {
            return Err(RegisterError::InvalidName { name });
        }
        if description.trim().is_empty() {
            return Err(RegisterError::EmptyDescription { name });
        }
        let Some(schemas) = schema::exposed(schema, true) else {
            return Err(RegisterError::SchemaNotObject { name });
        };
        self.insert(Entry {
            spec: ToolSpec {
                name,
                description: description.to_owned(),
                schema: schemas.exposed,
            },
            own_schema: schemas.own,
            runner: Arc::new(Untyped(tool)),
        })
    }

    fn insert(&self, entry: Entry) -> Result<(), RegisterError> {
        let mut entries = self.entries.write().unwrap_or_else(PoisonError::into_inner);
        if entries.iter().any(|e| e.spec.name == entry.spec.name) {
            return Err(RegisterError::Duplicate {
                name: entry.spec.name,
            });
        }
        entries.push(entry);
        Ok(())
    }

    /// Removes the tool called `name`; says whether there was one.
    pub fn remove(&self, name: &str) -> bool {
        let mut entries = self.entries.write().unwrap_or_else(PoisonError::into_inner);
        let before = entries.len();
        entries.retain(|e| e.spec.name != name);
        entries.len() != before
    }

    /// Whether a tool called `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.read().iter().any(|e| e.spec.name == name)
    }

    /// Names of the registered tools, in registration order.
    pub fn names(&self) -> Vec<String> {
        self.read().iter().map(|e| e.spec.name.clone()).collect()
    }

    /// What the model is shown: one spec per tool, in registration order,
    /// each schema an object, with the required `_intent` string where the
    /// tool asks for it ([`Tool::asks_intent`]).
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.read().iter().map(|e| e.spec.clone()).collect()
    }

    /// Runs the tool `name` with the model's raw arguments.
    ///
    /// Never fails: an unknown tool, arguments that are not a JSON object,
    /// arguments that do not fit the schema, and a panic inside the tool all
    /// come back as error outputs the model can act on. `_intent` is removed
    /// before the tool sees the arguments; a missing one is fine.
    pub async fn execute(&self, name: &str, args: Value, ctx: ToolContext) -> ToolOutput {
        let found = self
            .read()
            .iter()
            .find(|e| e.spec.name == name)
            .map(|e| (Arc::clone(&e.runner), e.own_schema.clone()));
        let Some((runner, own_schema)) = found else {
            return unknown_tool(name, &self.names());
        };

        let mut args = match args {
            Value::Object(object) => object,
            Value::String(raw) => return not_json(name, &raw),
            other => {
                let issue = Issue {
                    path: "<root>".to_owned(),
                    reason: format!("expected an object of arguments, received {other}"),
                };
                return invalid_args(name, &[issue]);
            }
        };
        args.remove(INTENT_FIELD);
        runner.normalize(&mut args);
        let args = Value::Object(args);

        let issues = schema::validate(&own_schema, &args);
        if !issues.is_empty() {
            return invalid_args(name, &issues);
        }
        let future = match runner.run(args, ctx) {
            Ok(future) => future,
            Err(issue) => return invalid_args(name, &[issue]),
        };
        match std::panic::AssertUnwindSafe(future).catch_unwind().await {
            Ok(output) => output,
            Err(panic) => panicked(name, panic_message(panic.as_ref())),
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Entry>> {
        self.entries.read().unwrap_or_else(PoisonError::into_inner)
    }
}

fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn unknown_tool(name: &str, registered: &[String]) -> ToolOutput {
    let available = if registered.is_empty() {
        "(none)".to_owned()
    } else {
        registered.join(", ")
    };
    ToolOutput::error(
        Labelled::what("unknown tool")
            .line("tool", echo(name))
            .line("available", available)
            .line("how", "call one of the available tools by its exact name")
            .finish(),
    )
}

fn not_json(name: &str, raw: &str) -> ToolOutput {
    ToolOutput::error(
        Labelled::what("your tool arguments are not a valid JSON object")
            .line("tool", name)
            .line("received", echo(raw))
            .line(
                "how",
                "send the arguments as one JSON object matching the tool's schema, then call again",
            )
            .finish(),
    )
}

fn invalid_args(name: &str, issues: &[Issue]) -> ToolOutput {
    let mut text = Labelled::what("your tool arguments failed schema validation")
        .line("tool", name)
        .raw("[issues]:");
    for issue in issues {
        text = text.raw(format!("- {}: {}", issue.path, issue.reason));
    }
    ToolOutput::error(
        text.line(
            "how",
            "rebuild the arguments according to the field paths and reasons above (or pick another tool), then call again",
        )
        .finish(),
    )
}

fn panicked(name: &str, message: String) -> ToolOutput {
    ToolOutput::error(
        Labelled::what(
            "the tool crashed while running; this is a bug in the tool, not in your call",
        )
        .line("tool", name)
        .line("panic", echo(&message))
        .line(
            "how",
            "try different arguments or another tool; do not repeat the same call",
        )
        .finish(),
    )
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "unknown panic".to_owned()
    }
}
