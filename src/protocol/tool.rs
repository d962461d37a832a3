//! Plain data about tools that crosses layer boundaries.

use serde::{Deserialize, Serialize};

/// One tool call as the model produced it.
///
/// `args` is the model's raw argument object, including `_intent`. When the
/// model sent arguments that are not valid JSON, `args` holds the raw text as
/// a JSON string so that executing the call yields an error result the model
/// can read, never a failed turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider-issued call id; the recall key for its result.
    pub id: String,
    /// Name of the tool the model asked for.
    pub name: String,
    /// Arguments, including `_intent`.
    pub args: serde_json::Value,
}

/// The argument every tool call carries beside its own: the model's reason for
/// the call, shown to the user and quoted in placeholders of folded results.
pub const INTENT_FIELD: &str = "_intent";

impl ToolCall {
    /// The model's stated reason for this call (`_intent`), if it gave one.
    pub fn intent(&self) -> Option<&str> {
        self.args
            .get(INTENT_FIELD)
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }
}

/// The result of executing one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolOutcome {
    /// Id of the call this result answers.
    pub id: String,
    /// Name of the tool that ran (or was asked for).
    pub name: String,
    /// Text given back to the model.
    pub result: String,
    /// Whether the call failed; the model is told so.
    pub is_error: bool,
    /// What a UI shows besides `result` (an applied change's unified diff);
    /// never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
}

/// A tool as a model sees it: name, description and a JSON Schema object for
/// its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Tool name, `^[a-zA-Z0-9_-]{1,64}$`.
    pub name: String,
    /// What the tool does and when to use it.
    pub description: String,
    /// JSON Schema of the arguments (an object schema, with `_intent`).
    pub schema: serde_json::Value,
}
