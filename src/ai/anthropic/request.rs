//! Messages API request bodies built from a [`StreamRequest`].

use serde_json::{Value, json};

use crate::ai::history::{self, Item};
use crate::ai::{StreamRequest, TextRequest};
use crate::protocol::AgentEvent;

/// Sent as the first message when the history would otherwise start with
/// the assistant (the API requires a user message first).
const CONTINUATION_NOTE: &str = "[continuing an earlier conversation]";

/// The JSON body of a streamed Messages call.
///
/// The system prompt is the top-level `system` field. History follows the
/// shared rules (see [`crate::ai`]), with these Anthropic specifics:
/// - host notes (summary, interruption, system input) are user text blocks;
/// - reasoning is not echoed from the log (thinking blocks must carry the
///   provider's signature, which the log does not keep); with extended
///   thinking on, [`build_request_body_with`] puts back a tool step's
///   remembered thinking blocks, which the API requires;
/// - tool results are `tool_result` blocks with `is_error`;
/// - a prompt's images follow its text as `image` blocks with a base64
///   source;
/// - consecutive messages of one role are merged, because the API requires
///   user and assistant turns to alternate.
pub fn build_request_body(model: &str, max_tokens: u32, req: &StreamRequest) -> Value {
    build_request_body_with(model, max_tokens, req, |_| None)
}

/// The JSON body of a streamed call; `thinking(call_id)` gives the thinking
/// blocks (with their signatures) of the step whose first call is `call_id`.
pub fn build_request_body_with(
    model: &str,
    max_tokens: u32,
    req: &StreamRequest,
    thinking: impl Fn(&str) -> Option<Vec<Value>>,
) -> Value {
    let mut body = json!({
        "model": model,
        "max_tokens": max_tokens,
        "messages": messages(&req.events, &thinking, &req.images),
        "stream": true,
    });
    if !req.system_prompt.is_empty() {
        body["system"] = json!(req.system_prompt);
    }
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.schema,
                })
            })
            .collect();
        body["tools"] = Value::Array(tools);
    }
    body
}

/// The JSON body of a non-streamed, tool-less completion.
pub fn build_text_body(model: &str, max_tokens: u32, req: &TextRequest) -> Value {
    let mut body = json!({
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{ "role": "user", "content": req.prompt }],
    });
    if !req.system_prompt.is_empty() {
        body["system"] = json!(req.system_prompt);
    }
    body
}

fn text_block(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

fn messages(
    events: &[AgentEvent],
    thinking: &impl Fn(&str) -> Option<Vec<Value>>,
    images: &crate::ai::Images,
) -> Vec<Value> {
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for item in history::items(events, images) {
        let (role, blocks) = match item {
            Item::User { text, images } => {
                let mut blocks = vec![text_block(&text)];
                blocks.extend(images.iter().map(|image| {
                    json!({
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": image.media_type,
                            "data": &*image.base64,
                        },
                    })
                }));
                ("user", blocks)
            }
            Item::Note(text) => ("user", vec![text_block(&text)]),
            Item::Assistant { output, calls, .. } => {
                // Thinking blocks come first in the step they belong to.
                let mut blocks = calls
                    .first()
                    .and_then(|first| thinking(&first.id))
                    .unwrap_or_default();
                if !output.is_empty() {
                    blocks.push(text_block(output));
                }
                for call in calls {
                    let input = if call.args.is_object() {
                        call.args.clone()
                    } else {
                        json!({})
                    };
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.name,
                        "input": input,
                    }));
                }
                ("assistant", blocks)
            }
            Item::ToolResult {
                call_id,
                result,
                is_error,
                ..
            } => (
                "user",
                vec![json!({
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": result,
                    "is_error": is_error,
                })],
            ),
        };
        let blocks: Vec<Value> = blocks
            .into_iter()
            .filter(|b| b["type"] != "text" || b["text"] != "")
            .collect();
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => messages.push((role, blocks)),
        }
    }
    if messages
        .first()
        .is_some_and(|(role, _)| *role == "assistant")
    {
        messages.insert(0, ("user", vec![text_block(CONTINUATION_NOTE)]));
    }
    messages
        .into_iter()
        .map(|(role, content)| json!({ "role": role, "content": content }))
        .collect()
}
