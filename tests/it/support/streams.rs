//! Builders for the SSE bodies the mock replies with, one per wire format.

use serde_json::{Value, json};

use super::mock_model::Reply;

fn sse_data(value: &Value) -> String {
    format!("data: {value}\n\n")
}

/// Builds an OpenAI Chat Completions stream, one chunk per call.
#[derive(Debug, Clone, Default)]
pub struct OpenAiStream {
    events: Vec<String>,
    usage: Option<Value>,
    finish_reason: Option<String>,
    tool_calls: usize,
}

impl OpenAiStream {
    /// An empty stream (it still ends with a finish chunk and `[DONE]`).
    pub fn new() -> Self {
        Self::default()
    }

    fn delta(mut self, delta: Value) -> Self {
        let chunk = json!({
            "id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": "mock-model",
            "choices": [{ "index": 0, "delta": delta, "finish_reason": null }],
        });
        self.events.push(sse_data(&chunk));
        self
    }

    /// `text` as three `reasoning_content` deltas.
    pub fn reasoning(self, text: &str) -> Self {
        split3(text).into_iter().fold(self, |s, part| {
            s.delta(json!({ "reasoning_content": part }))
        })
    }

    /// `text` as three `content` deltas.
    pub fn text(self, text: &str) -> Self {
        split3(text)
            .into_iter()
            .fold(self, |s, part| s.delta(json!({ "content": part })))
    }

    /// A tool call: id and name first, then each argument fragment in its
    /// own chunk. Calls are indexed in the order they are added.
    pub fn tool_call(mut self, id: &str, name: &str, fragments: &[&str]) -> Self {
        let index = self.tool_calls;
        self.tool_calls += 1;
        let mut stream = self.delta(json!({ "tool_calls": [{
            "index": index, "id": id, "type": "function",
            "function": { "name": name, "arguments": "" },
        }]}));
        for fragment in fragments {
            stream = stream.delta(json!({ "tool_calls": [{
                "index": index, "function": { "arguments": fragment },
            }]}));
        }
        stream
    }

    /// Usage, sent OpenAI-style in a chunk with `choices: []` after the finish.
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = Some(json!({
            "prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output,
        }));
        self
    }

    /// Overrides the finish reason (default `stop`, or `tool_calls`).
    pub fn finish_reason(mut self, reason: &str) -> Self {
        self.finish_reason = Some(reason.to_owned());
        self
    }

    /// The SSE text of the stream.
    pub fn into_sse(self) -> String {
        let reason = self.finish_reason.clone().unwrap_or_else(|| {
            if self.tool_calls > 0 {
                "tool_calls"
            } else {
                "stop"
            }
            .to_owned()
        });
        let mut out: String = self.events.concat();
        out += &sse_data(&json!({
            "id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": "mock-model",
            "choices": [{ "index": 0, "delta": {}, "finish_reason": reason }],
        }));
        if let Some(usage) = self.usage {
            out += &sse_data(&json!({
                "id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": "mock-model",
                "choices": [], "usage": usage,
            }));
        }
        out + "data: [DONE]\n\n"
    }

    /// The stream as a 200 reply.
    pub fn into_reply(self) -> Reply {
        Reply::sse(self.into_sse())
    }
}

/// Builds an Anthropic Messages stream, one content block per call.
#[derive(Debug, Clone, Default)]
pub struct AnthropicStream {
    blocks: Vec<String>,
    block_count: usize,
    usage: (u64, u64),
    has_tool_use: bool,
}

fn anthropic_event(value: &Value) -> String {
    format!(
        "event: {}\n{}",
        value["type"].as_str().unwrap_or("message"),
        sse_data(value)
    )
}

impl AnthropicStream {
    /// An empty stream (it still has `message_start` … `message_stop`).
    pub fn new() -> Self {
        Self::default()
    }

    fn block(mut self, start: Value, deltas: Vec<Value>) -> Self {
        let index = self.block_count;
        self.block_count += 1;
        let mut text = anthropic_event(
            &json!({ "type": "content_block_start", "index": index, "content_block": start }),
        );
        for delta in deltas {
            text += &anthropic_event(
                &json!({ "type": "content_block_delta", "index": index, "delta": delta }),
            );
        }
        text += &anthropic_event(&json!({ "type": "content_block_stop", "index": index }));
        self.blocks.push(text);
        self
    }

    /// A thinking block of three deltas.
    pub fn thinking(self, text: &str) -> Self {
        let deltas = split3(text)
            .into_iter()
            .map(|t| json!({ "type": "thinking_delta", "thinking": t }))
            .collect();
        self.block(json!({ "type": "thinking", "thinking": "" }), deltas)
    }

    /// A text block of three deltas.
    pub fn text(self, text: &str) -> Self {
        let deltas = split3(text)
            .into_iter()
            .map(|t| json!({ "type": "text_delta", "text": t }))
            .collect();
        self.block(json!({ "type": "text", "text": "" }), deltas)
    }

    /// A thinking block of three deltas and then its `signature_delta`
    /// (what extended thinking streams).
    pub fn signed_thinking(self, text: &str, signature: &str) -> Self {
        let mut deltas: Vec<Value> = split3(text)
            .into_iter()
            .map(|t| json!({ "type": "thinking_delta", "thinking": t }))
            .collect();
        deltas.push(json!({ "type": "signature_delta", "signature": signature }));
        self.block(json!({ "type": "thinking", "thinking": "" }), deltas)
    }

    /// A tool_use block whose input arrives in these `input_json_delta`
    /// fragments.
    pub fn tool_use(mut self, id: &str, name: &str, fragments: &[&str]) -> Self {
        self.has_tool_use = true;
        let deltas = fragments
            .iter()
            .map(|f| json!({ "type": "input_json_delta", "partial_json": f }))
            .collect();
        self.block(
            json!({ "type": "tool_use", "id": id, "name": name, "input": {} }),
            deltas,
        )
    }

    /// Input tokens (in `message_start`) and output tokens (in `message_delta`).
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = (input, output);
        self
    }

    /// The SSE text of the stream.
    pub fn into_sse(self) -> String {
        let (input, output) = self.usage;
        let stop = if self.has_tool_use {
            "tool_use"
        } else {
            "end_turn"
        };
        let mut out = anthropic_event(&json!({ "type": "message_start", "message": {
            "id": "msg_mock", "type": "message", "role": "assistant", "model": "mock-model",
            "content": [], "stop_reason": null, "usage": { "input_tokens": input, "output_tokens": 1 },
        }}));
        out += &anthropic_event(&json!({ "type": "ping" }));
        out += &self.blocks.concat();
        out += &anthropic_event(&json!({ "type": "message_delta",
            "delta": { "stop_reason": stop, "stop_sequence": null },
            "usage": { "output_tokens": output } }));
        out + &anthropic_event(&json!({ "type": "message_stop" }))
    }

    /// The stream as a 200 reply.
    pub fn into_reply(self) -> Reply {
        Reply::sse(self.into_sse())
    }
}

/// `text` in three roughly equal parts, split on character boundaries.
fn split3(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let step = chars.len().div_ceil(3).max(1);
    chars.chunks(step).map(|c| c.iter().collect()).collect()
}
