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
/// [`crate::ai`] for the rules). A user prompt with images is a list of
/// content parts: its text, then an `image_url` part per image whose URL is
/// a base64 `data:` URI. Host notes (summary, interruption,
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
        "messages": messages(&req.system_prompt, &req.events, &req.images),
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

fn messages(
    system_prompt: &str,
    events: &[crate::protocol::AgentEvent],
    images: &crate::ai::Images,
) -> Vec<Value> {
    let mut messages = Vec::new();
    if !system_prompt.is_empty() {
        messages.push(json!({ "role": "system", "content": system_prompt }));
    }
    let mut conversation_started = false;
    for item in history::items(events, images) {
        let message = match item {
            Item::Note(text) => {
                let role = if conversation_started {
                    "user"
                } else {
                    "system"
                };
                json!({ "role": role, "content": text })
            }
            Item::User { text, images } if images.is_empty() => {
                json!({ "role": "user", "content": text })
            }
            Item::User { text, images } => {
                // A prompt with images is a list of parts: its text, then
                // each image as a `data:` URI.
                let mut content = vec![json!({ "type": "text", "text": text })];
                content.extend(images.iter().map(|image| {
                    json!({ "type": "image_url", "image_url": { "url": image.data_uri() } })
                }));
                json!({ "role": "user", "content": content })
            }
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
