//! Chat Completions request bodies built from a [`StreamRequest`].

use serde_json::{Map, Value, json};

use crate::ai::history::{self, Item};
use crate::ai::{StreamRequest, TextRequest};
use crate::protocol::ToolCall;

/// Prefix that tells the model a tool result is an error (the Chat
/// Completions format has no error flag).
pub const TOOL_ERROR_PREFIX: &str = "[tool error] ";

/// The JSON body of a streamed Chat Completions call.
///
/// Messages: the system prompt; then the history (see
/// [`crate::ai`] for the rules). Host notes (summary, interruption,
/// system-sourced input) are `system` messages while nothing but system
/// messages precede them, and `user` messages after that, because several
/// servers' chat templates reject a `system` message after the first turn.
/// Tool-call arguments are echoed as the JSON text of the stored object;
/// arguments that were not a JSON object are echoed as `{}` (the tool's
/// error result tells the model what was wrong) because some servers parse
/// them and reject invalid JSON.
pub fn build_request_body(model: &str, req: &StreamRequest) -> Value {
    let mut body = json!({
        "model": model,
        "messages": messages(&req.system_prompt, &req.events),
        "stream": true,
        "stream_options": { "include_usage": true },
    });
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.schema,
                    }
                })
            })
            .collect();
        body["tools"] = Value::Array(tools);
        body["tool_choice"] = json!("auto");
    }
    body
}

/// The JSON body of a non-streamed, tool-less completion.
pub fn build_text_body(model: &str, req: &TextRequest) -> Value {
    let mut messages = Vec::new();
    if !req.system_prompt.is_empty() {
        messages.push(json!({ "role": "system", "content": req.system_prompt }));
    }
    messages.push(json!({ "role": "user", "content": req.prompt }));
    json!({ "model": model, "messages": messages, "stream": false })
}

fn messages(system_prompt: &str, events: &[crate::protocol::AgentEvent]) -> Vec<Value> {
    let mut messages = Vec::new();
    if !system_prompt.is_empty() {
        messages.push(json!({ "role": "system", "content": system_prompt }));
    }
    let mut conversation_started = false;
    for item in history::items(events) {
        let message = match item {
            Item::Note(text) => {
                let role = if conversation_started {
                    "user"
                } else {
                    "system"
                };
                json!({ "role": role, "content": text })
            }
            Item::User(text) => json!({ "role": "user", "content": text }),
            Item::Assistant {
                thought,
                output,
                calls,
            } => assistant_message(thought, output, calls),
            Item::ToolResult {
                call_id,
                result,
                is_error,
                ..
            } => {
                let content = if is_error {
                    format!("{TOOL_ERROR_PREFIX}{result}")
                } else {
                    result.to_owned()
                };
                json!({ "role": "tool", "tool_call_id": call_id, "content": content })
            }
        };
        conversation_started |= message["role"] != "system";
        messages.push(message);
    }
    messages
}

fn assistant_message(thought: &str, output: &str, calls: &[ToolCall]) -> Value {
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert("content".into(), json!(output));
    if !thought.is_empty() {
        message.insert("reasoning_content".into(), json!(thought));
    }
    if !calls.is_empty() {
        let calls: Vec<Value> = calls
            .iter()
            .map(|call| {
                let arguments = if call.args.is_object() {
                    call.args.to_string()
                } else {
                    "{}".to_owned()
                };
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": { "name": call.name, "arguments": arguments },
                })
            })
            .collect();
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(message)
}
