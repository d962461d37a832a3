//! `generateContent` / `streamGenerateContent` request bodies built from a
//! [`StreamRequest`].

use serde_json::{Value, json};

use super::schema::to_gemini_schema;
use crate::ai::history::{self, Item};
use crate::ai::{StreamRequest, TextRequest};
use crate::protocol::AgentEvent;

/// Sent as the first content when the history would otherwise start with
/// the model (a function-call turn must follow a user turn).
const CONTINUATION_NOTE: &str = "[continuing an earlier conversation]";

/// The `thoughtSignature` Google documents for replayed function calls
/// whose real signature is unknown; models that validate signatures accept
/// it instead of rejecting the request.
pub const SKIP_SIGNATURE_SENTINEL: &str = "skip_thought_signature_validator";

/// The JSON body of a streamed call; signatures are unknown, so the
/// fallback rules apply (see [`build_request_body_with`]).
pub fn build_request_body(model: &str, req: &StreamRequest) -> Value {
    build_request_body_with(model, req, |_| None)
}

/// The JSON body of a streamed call, with `signature(call_id)` giving the
/// `thoughtSignature` the model attached to that call, when known.
///
/// The system prompt is `systemInstruction`; thoughts are asked for with
/// `generationConfig.thinkingConfig.includeThoughts` (except on the
/// 1.x/2.0 models, which reject it). History follows the shared rules (see
/// [`crate::ai`]), with these Gemini specifics:
/// - host notes (summary, interruption, system input) are user text parts;
/// - a prompt's images follow its text as `inline_data` parts (base64);
/// - reasoning text is not echoed: thought summaries are not inputs, the
///   signature carries the model's reasoning state;
/// - each call is a `functionCall` part with its id, its known signature,
///   and — on the first call of a step with no known signature, for models
///   that validate signatures — [`SKIP_SIGNATURE_SENTINEL`];
/// - results are `functionResponse` parts in call order, with
///   `response: {output}` or `response: {error}`;
/// - consecutive contents of one role are merged.
pub fn build_request_body_with(
    model: &str,
    req: &StreamRequest,
    signature: impl Fn(&str) -> Option<String>,
) -> Value {
    let mut body = json!({
        "contents": contents(model, &req.events, &req.images, &signature),
    });
    if !req.system_prompt.is_empty() {
        body["systemInstruction"] = json!({ "parts": [{ "text": req.system_prompt }] });
    }
    if !req.tools.is_empty() {
        let declarations: Vec<Value> = req
            .tools
            .iter()
            .map(|tool| {
                let mut declaration = json!({
                    "name": tool.name,
                    "description": tool.description,
                });
                let parameters = to_gemini_schema(&tool.schema);
                if parameters.get("properties").is_some() {
                    declaration["parameters"] = parameters;
                }
                declaration
            })
            .collect();
        body["tools"] = json!([{ "functionDeclarations": declarations }]);
        body["toolConfig"] = json!({ "functionCallingConfig": { "mode": "AUTO" } });
    }
    if supports_thinking(model) {
        body["generationConfig"] = json!({ "thinkingConfig": { "includeThoughts": true } });
    }
    body
}

/// The JSON body of a non-streamed, tool-less `generateContent` call.
pub fn build_text_body(req: &TextRequest) -> Value {
    let mut body = json!({
        "contents": [{ "role": "user", "parts": [{ "text": req.prompt }] }],
    });
    if !req.system_prompt.is_empty() {
        body["systemInstruction"] = json!({ "parts": [{ "text": req.system_prompt }] });
    }
    body
}

/// The model name without an API `models/` prefix.
pub(crate) fn bare_model(model: &str) -> &str {
    model.strip_prefix("models/").unwrap_or(model)
}

fn is_legacy(model: &str) -> bool {
    let model = bare_model(model);
    model.starts_with("gemini-1") || model.starts_with("gemini-2.0")
}

/// Whether `thinkingConfig` may be sent (1.x and 2.0 models reject it).
fn supports_thinking(model: &str) -> bool {
    !is_legacy(model)
}

/// Whether the model validates replayed signatures (Gemini 3 onwards; the
/// 1.x and 2.x models ignore a missing one).
fn validates_signatures(model: &str) -> bool {
    !bare_model(model).starts_with("gemini-1") && !bare_model(model).starts_with("gemini-2")
}

fn contents(
    model: &str,
    events: &[AgentEvent],
    images: &crate::ai::Images,
    signature: &impl Fn(&str) -> Option<String>,
) -> Vec<Value> {
    let mut contents: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for item in history::items(events, images) {
        let (role, parts) = match item {
            Item::User { text, images } => {
                let mut parts = text_part(&text);
                parts.extend(images.iter().map(|image| {
                    json!({
                        "inline_data": {
                            "mime_type": image.media_type,
                            "data": &*image.base64,
                        },
                    })
                }));
                ("user", parts)
            }
            Item::Note(text) => ("user", text_part(&text)),
            Item::Assistant { output, calls, .. } => {
                let mut parts = text_part(output);
                for (n, call) in calls.iter().enumerate() {
                    let args = if call.args.is_object() {
                        call.args.clone()
                    } else {
                        json!({})
                    };
                    let mut part = json!({
                        "functionCall": { "id": call.id, "name": call.name, "args": args },
                    });
                    let known = signature(&call.id);
                    let fallback = (n == 0 && validates_signatures(model))
                        .then(|| SKIP_SIGNATURE_SENTINEL.to_owned());
                    if let Some(sig) = known.or(fallback) {
                        part["thoughtSignature"] = json!(sig);
                    }
                    parts.push(part);
                }
                ("model", parts)
            }
            Item::ToolResult {
                call_id,
                name,
                result,
                is_error,
            } => {
                let response = if is_error {
                    json!({ "error": result })
                } else {
                    json!({ "output": result })
                };
                (
                    "user",
                    vec![json!({ "functionResponse": {
                        "id": call_id, "name": name, "response": response,
                    }})],
                )
            }
        };
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some((last_role, last_parts)) if *last_role == role => last_parts.extend(parts),
            _ => contents.push((role, parts)),
        }
    }
    if contents.first().is_some_and(|(role, _)| *role == "model") {
        contents.insert(0, ("user", text_part(CONTINUATION_NOTE)));
    }
    contents
        .into_iter()
        .map(|(role, parts)| json!({ "role": role, "parts": parts }))
        .collect()
}

fn text_part(text: &str) -> Vec<Value> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![json!({ "text": text })]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_are_sorted_by_what_they_accept() {
        assert!(!supports_thinking("gemini-2.0-flash"));
        assert!(supports_thinking("models/gemini-2.5-pro"));
        assert!(!validates_signatures("gemini-2.5-flash"));
        assert!(validates_signatures("gemini-3-pro-preview"));
    }
}
