//! Builders for the Gemini and OpenAI Responses SSE bodies the mock
//! replies with.

use serde_json::{Value, json};

use super::mock_model::Reply;

/// `text` in three roughly equal parts, split on character boundaries.
fn split3(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let step = chars.len().div_ceil(3).max(1);
    chars.chunks(step).map(|c| c.iter().collect()).collect()
}

/// Builds a Gemini `streamGenerateContent?alt=sse` body, CRLF-framed like
/// Google's servers.
#[derive(Debug, Clone, Default)]
pub struct GeminiStream {
    chunks: Vec<Value>,
    usage: (u64, u64),
}

impl GeminiStream {
    /// An empty stream (it still ends with a `finishReason: STOP` chunk).
    pub fn new() -> Self {
        Self::default()
    }

    fn parts(mut self, parts: Vec<Value>) -> Self {
        self.chunks.push(json!({
            "candidates": [{ "content": { "role": "model", "parts": parts }, "index": 0 }],
            "modelVersion": "gemini-mock",
        }));
        self
    }

    /// `text` as three thought parts.
    pub fn thought(self, text: &str) -> Self {
        split3(text).into_iter().fold(self, |s, part| {
            s.parts(vec![json!({ "text": part, "thought": true })])
        })
    }

    /// `text` as three text parts.
    pub fn text(self, text: &str) -> Self {
        split3(text)
            .into_iter()
            .fold(self, |s, part| s.parts(vec![json!({ "text": part })]))
    }

    /// A whole `functionCall` part without an id, as Gemini sends them.
    pub fn function_call(self, name: &str, args: Value) -> Self {
        self.parts(vec![
            json!({ "functionCall": { "name": name, "args": args } }),
        ])
    }

    /// A `functionCall` part carrying a `thoughtSignature`.
    pub fn signed_function_call(self, name: &str, args: Value, signature: &str) -> Self {
        self.parts(vec![json!({
            "functionCall": { "name": name, "args": args },
            "thoughtSignature": signature,
        })])
    }

    /// Prompt and candidate tokens reported on the last chunk.
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = (input, output);
        self
    }

    /// The SSE text of the stream.
    pub fn into_sse(self) -> String {
        let (input, output) = self.usage;
        let last = json!({
            "candidates": [{ "content": { "role": "model", "parts": [{ "text": "" }] },
                             "finishReason": "STOP", "index": 0 }],
            "usageMetadata": { "promptTokenCount": input, "candidatesTokenCount": output,
                               "totalTokenCount": input + output },
            "modelVersion": "gemini-mock",
        });
        self.chunks
            .iter()
            .chain(std::iter::once(&last))
            .map(|chunk| format!("data: {chunk}\r\n\r\n"))
            .collect()
    }

    /// The stream as a 200 reply, one chunk per event (the mock's own
    /// event split looks for LF LF, which CRLF framing does not contain).
    pub fn into_reply(self) -> Reply {
        let sse = self.into_sse();
        let cuts = sse
            .match_indices("\r\n\r\n")
            .map(|(at, _)| at + 4)
            .collect();
        Reply::sse(sse).split_at(cuts)
    }
}

/// Builds an OpenAI Responses API stream, one output item per call.
#[derive(Debug, Clone, Default)]
pub struct ResponsesStream {
    events: Vec<Value>,
    items: u64,
    usage: (u64, u64),
}

impl ResponsesStream {
    /// An empty stream (it still has `response.created` … `response.completed`).
    pub fn new() -> Self {
        Self::default()
    }

    fn next_index(&mut self) -> u64 {
        self.items += 1;
        self.items - 1
    }

    fn push(mut self, event: Value) -> Self {
        self.events.push(event);
        self
    }

    /// A reasoning item whose summary arrives in three deltas; with
    /// `encrypted`, the finished item carries that `encrypted_content`.
    pub fn reasoning(mut self, summary: &str, encrypted: Option<&str>) -> Self {
        let index = self.next_index();
        let id = format!("rs_{index}");
        let mut s = self.push(
            json!({ "type": "response.output_item.added", "output_index": index,
            "item": { "id": id, "type": "reasoning", "summary": [] } }),
        );
        for part in split3(summary) {
            s = s.push(
                json!({ "type": "response.reasoning_summary_text.delta", "item_id": id,
                "output_index": index, "summary_index": 0, "delta": part }),
            );
        }
        let mut item = json!({ "id": id, "type": "reasoning",
            "summary": [{ "type": "summary_text", "text": summary }] });
        if let Some(encrypted) = encrypted {
            item["encrypted_content"] = json!(encrypted);
        }
        s.push(json!({ "type": "response.output_item.done", "output_index": index, "item": item }))
    }

    /// An assistant message whose text arrives in three deltas.
    pub fn text(mut self, text: &str) -> Self {
        let index = self.next_index();
        let id = format!("msg_{index}");
        let mut s = self.push(
            json!({ "type": "response.output_item.added", "output_index": index,
            "item": { "id": id, "type": "message", "role": "assistant", "content": [] } }),
        );
        for part in split3(text) {
            s = s.push(json!({ "type": "response.output_text.delta", "item_id": id,
                "output_index": index, "content_index": 0, "delta": part }));
        }
        s.push(
            json!({ "type": "response.output_item.done", "output_index": index,
            "item": { "id": id, "type": "message", "role": "assistant",
                      "content": [{ "type": "output_text", "text": text, "annotations": [] }] } }),
        )
    }

    /// A function call item whose arguments arrive in these fragments.
    pub fn function_call(mut self, call_id: &str, name: &str, fragments: &[&str]) -> Self {
        let index = self.next_index();
        let id = format!("fc_{index}");
        let mut s = self.push(
            json!({ "type": "response.output_item.added", "output_index": index,
            "item": { "id": id, "type": "function_call", "call_id": call_id, "name": name,
                      "arguments": "" } }),
        );
        for fragment in fragments {
            s = s.push(
                json!({ "type": "response.function_call_arguments.delta", "item_id": id,
                "output_index": index, "delta": fragment }),
            );
        }
        let arguments: String = fragments.concat();
        s.push(
            json!({ "type": "response.output_item.done", "output_index": index,
            "item": { "id": id, "type": "function_call", "call_id": call_id, "name": name,
                      "arguments": arguments, "status": "completed" } }),
        )
    }

    /// Input and output tokens reported by `response.completed`.
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = (input, output);
        self
    }

    /// The SSE text of the stream.
    pub fn into_sse(self) -> String {
        let (input, output) = self.usage;
        let response = json!({ "id": "resp_mock", "object": "response", "model": "responses-mock",
            "status": "in_progress", "output": [] });
        let mut done = response.clone();
        done["status"] = json!("completed");
        done["usage"] = json!({ "input_tokens": input, "output_tokens": output,
            "total_tokens": input + output, "input_tokens_details": { "cached_tokens": 0 } });
        std::iter::once(json!({ "type": "response.created", "response": response }))
            .chain(self.events)
            .chain(std::iter::once(
                json!({ "type": "response.completed", "response": done }),
            ))
            .map(|event| {
                let name = event["type"].as_str().unwrap_or("message").to_owned();
                format!("event: {name}\ndata: {event}\n\n")
            })
            .collect()
    }

    /// The stream as a 200 reply.
    pub fn into_reply(self) -> Reply {
        Reply::sse(self.into_sse())
    }
}
