//! Responses API request bodies built from a [`StreamRequest`].

use serde_json::{Value, json};

use crate::ai::history::{self, Item};
use crate::ai::openai::TOOL_ERROR_PREFIX;
use crate::ai::{StreamRequest, TextRequest};

/// What a Responses request asks of the model beyond the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponsesOptions {
    /// Ask for reasoning summaries (`reasoning.summary: "auto"`) and the
    /// encrypted reasoning items needed to replay tool steps. Models
    /// without reasoning (the `gpt-4*` family) reject both fields.
    pub reasoning: bool,
}

impl ResponsesOptions {
    /// The options a model name suggests: reasoning for everything except
    /// the `gpt-4*`, `gpt-3*` and `chatgpt-*` models.
    pub fn for_model(model: &str) -> Self {
        let model = model.rsplit('/').next().unwrap_or(model);
        let plain = ["gpt-4", "gpt-3", "chatgpt-"]
            .iter()
            .any(|prefix| model.starts_with(prefix));
        Self { reasoning: !plain }
    }
}

/// The JSON body of a streamed call, with no reasoning items to replay.
pub fn build_request_body(model: &str, options: ResponsesOptions, req: &StreamRequest) -> Value {
    build_request_body_with(model, options, req, |_| None)
}

/// The JSON body of a streamed call; `reasoning(call_id)` gives the
/// reasoning items that preceded the step whose first call is `call_id`.
///
/// `store: false` keeps nothing on the provider's side, so no request ever
/// refers to an earlier response (`previous_response_id` is never sent)
/// and no echoed item carries its output id (with nothing stored, an id
/// could only fail to resolve). The system prompt is `instructions`.
/// History follows the shared rules (see [`crate::ai`]):
/// - user text and host notes are `user` messages of `input_text`; a
///   prompt's images follow its text as `input_image` parts whose
///   `image_url` is a base64 `data:` URI;
/// - a step is its remembered reasoning items (each with its
///   `encrypted_content`, so the model gets its reasoning back without
///   server state), then an `assistant` message of `output_text`, then one
///   `function_call` per call with the arguments as JSON text (`{}` when
///   the stored arguments were not an object);
/// - results are `function_call_output` items in call order; an error
///   result starts with [`TOOL_ERROR_PREFIX`] (the format has no flag).
pub fn build_request_body_with(
    model: &str,
    options: ResponsesOptions,
    req: &StreamRequest,
    reasoning: impl Fn(&str) -> Option<Vec<Value>>,
) -> Value {
    let mut body = json!({
        "model": model,
        "input": input_items(&req.events, &req.images, &reasoning),
        "stream": true,
        "store": false,
    });
    if !req.system_prompt.is_empty() {
        body["instructions"] = json!(req.system_prompt);
    }
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.schema,
                })
            })
            .collect();
        body["tools"] = Value::Array(tools);
        body["tool_choice"] = json!("auto");
        body["parallel_tool_calls"] = json!(true);
    }
    if options.reasoning {
        body["reasoning"] = json!({ "summary": "auto" });
        body["include"] = json!(["reasoning.encrypted_content"]);
    }
    body
}

/// The JSON body of a non-streamed, tool-less call.
pub fn build_text_body(model: &str, req: &TextRequest) -> Value {
    let mut body = json!({
        "model": model,
        "input": [user_message(&req.prompt)],
        "stream": false,
        "store": false,
    });
    if !req.system_prompt.is_empty() {
        body["instructions"] = json!(req.system_prompt);
    }
    body
}

fn user_message(text: &str) -> Value {
    json!({
        "type": "message",
        "role": "user",
        "content": [{ "type": "input_text", "text": text }],
    })
}

fn input_items(
    events: &[crate::protocol::AgentEvent],
    images: &crate::ai::Images,
    reasoning: &impl Fn(&str) -> Option<Vec<Value>>,
) -> Vec<Value> {
    let mut items = Vec::new();
    for item in history::items(events, images) {
        match item {
            Item::User { text, images } => {
                let mut content = vec![json!({ "type": "input_text", "text": text })];
                content.extend(
                    images.iter().map(
                        |image| json!({ "type": "input_image", "image_url": image.data_uri() }),
                    ),
                );
                items.push(json!({ "type": "message", "role": "user", "content": content }));
            }
            Item::Note(text) => items.push(user_message(&text)),
            Item::Assistant { output, calls, .. } => {
                if let Some(first) = calls.first() {
                    items.extend(reasoning(&first.id).unwrap_or_default());
                }
                if !output.is_empty() {
                    items.push(json!({
                        "type": "message",
                        "role": "assistant",
                        "content": [{ "type": "output_text", "text": output }],
                    }));
                }
                for call in calls {
                    let arguments = if call.args.is_object() {
                        call.args.to_string()
                    } else {
                        "{}".to_owned()
                    };
                    items.push(json!({
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": arguments,
                    }));
                }
            }
            Item::ToolResult {
                call_id,
                result,
                is_error,
                ..
            } => {
                let output = if is_error {
                    format!("{TOOL_ERROR_PREFIX}{result}")
                } else {
                    result.to_owned()
                };
                items.push(json!({
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": output,
                }));
            }
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_is_asked_of_reasoning_models_only() {
        assert!(ResponsesOptions::for_model("gpt-5").reasoning);
        assert!(ResponsesOptions::for_model("o4-mini").reasoning);
        assert!(!ResponsesOptions::for_model("gpt-4.1").reasoning);
        assert!(!ResponsesOptions::for_model("openai/gpt-4o").reasoning);
    }
}
