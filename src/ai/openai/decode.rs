//! [`OpenAiDecoder`]: Chat Completions stream chunks → events.
//!
//! Takes every variant seen in real traffic (OpenAI, DeepSeek, Ollama,
//! vLLM, llama.cpp, LM Studio, OpenRouter):
//! - usage on the finish chunk, on a later chunk with `choices: []`, or on
//!   a later chunk whose choices are non-empty with `finish_reason: null`:
//!   reading goes on until `[DONE]` or end of body, and the last non-zero
//!   usage wins;
//! - reasoning as `reasoning_content` or `reasoning` (never both counted;
//!   `reasoning_details` is ignored because it repeats `reasoning`);
//! - tool calls assembled by `index` (missing index → the latest call),
//!   whole calls per chunk, repeated `role` and `content: ""`;
//! - an `{"error":…}` chunk (also after a finish) or a named `event: error`
//!   ends the stream with that error;
//! - a body that ends without `[DONE]` is complete when a `finish_reason`
//!   was seen, and cut otherwise;
//! - a server that ignores `stream: true` and answers with one JSON
//!   completion (or a JSON error under 200) is understood too.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::ai::assemble::{StepAssembler, UsageParts};
use crate::ai::decode::{SseFrames, SseWire, StepTotals, WireDecoder};
use crate::ai::http::{cut_stream_error, stream_error};
use crate::ai::sse::SseEvent;
use crate::ai::{AiError, AiErrorKind};
use crate::protocol::AgentEvent;

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    choices: Option<Vec<Choice<'a>>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    delta: Option<Delta<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

#[derive(Deserialize)]
struct ToolCallDelta<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    /// Normally a string fragment; some servers send the whole object.
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    total_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    /// DeepSeek's name for cached prompt tokens.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

/// Decodes an OpenAI-compatible Chat Completions stream.
#[derive(Debug, Default)]
pub struct OpenAiDecoder {
    sse: SseFrames,
    step: StepAssembler,
    usage: Option<UsageParts>,
    model: Option<String>,
    finished: bool,
    done: bool,
    /// The body's first bytes, kept until an SSE event shows the body is a
    /// stream; decoded as one JSON document if none ever does.
    head: Vec<u8>,
    saw_event: bool,
}

/// The most of a body kept for the non-streamed fallback.
const MAX_JSON_BODY: usize = 4 * 1024 * 1024;

impl OpenAiDecoder {
    /// A decoder at the start of a response body.
    pub fn new() -> Self {
        Self::default()
    }

    fn apply_delta(&mut self, delta: Delta<'_>, out: &mut Vec<AgentEvent>) {
        let reasoning = delta
            .reasoning_content
            .filter(|r| !r.is_empty())
            .or(delta.reasoning);
        if let Some(text) = reasoning {
            self.step.thought_delta(&text, out);
        }
        if let Some(text) = delta.content {
            self.step.output_delta(&text, out);
        }
        for call in delta.tool_calls.into_iter().flatten() {
            let slot = call.index.unwrap_or_else(|| self.step.last_slot());
            let (name, args) = match call.function {
                Some(f) => (f.name, f.arguments),
                None => (None, None),
            };
            let args = args.map(|a| match a {
                Value::String(s) => s,
                Value::Null => String::new(),
                other => other.to_string(),
            });
            self.step.tool_call_fragment(
                slot,
                call.id.as_deref(),
                name.as_deref(),
                args.as_deref(),
            );
        }
    }

    fn record_usage(&mut self, usage: &WireUsage) {
        let parts = UsageParts {
            input: usage.prompt_tokens.unwrap_or(0),
            output: usage.completion_tokens.unwrap_or(0),
            total: usage.total_tokens,
            cached: usage
                .prompt_tokens_details
                .as_ref()
                .and_then(|d| d.cached_tokens)
                .or(usage.prompt_cache_hit_tokens),
        };
        if parts.input + parts.output + parts.total.unwrap_or(0) > 0 {
            self.usage = Some(parts);
        }
    }

    /// Decodes a non-streamed completion (`choices[0].message`) or error.
    fn decode_whole_body(&mut self, out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        let Ok(body) = serde_json::from_slice::<Value>(&self.head) else {
            return Ok(());
        };
        if body.get("error").is_some_and(|e| !e.is_null()) {
            return Err(stream_error(&body));
        }
        if let Some(model) = body.get("model").and_then(Value::as_str) {
            self.model = Some(model.to_owned());
        }
        if let Some(usage) = body.get("usage")
            && let Ok(usage) = WireUsage::deserialize(usage)
        {
            self.record_usage(&usage);
        }
        let Some(mut message) = body.pointer("/choices/0/message").cloned() else {
            return Ok(());
        };
        if let Some(calls) = message.get_mut("tool_calls").and_then(Value::as_array_mut) {
            for (index, call) in calls.iter_mut().enumerate() {
                call["index"] = Value::from(index);
            }
        }
        let delta = Delta::deserialize(&message).map_err(|e| {
            AiError::new(
                AiErrorKind::Decode,
                format!("cannot decode the model provider's completion: {e}"),
            )
        })?;
        self.apply_delta(delta, out);
        self.finished = true;
        Ok(())
    }
}

impl SseWire for OpenAiDecoder {
    fn frames(&mut self) -> &mut SseFrames {
        &mut self.sse
    }

    fn step(&self) -> &StepAssembler {
        &self.step
    }

    fn handle(&mut self, event: &SseEvent, out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        if !self.saw_event {
            // The body is a stream: the head kept for the non-streamed
            // fallback is not needed.
            self.saw_event = true;
            self.head = Vec::new();
        }
        let data = event.data.trim();
        if event.event == "error" {
            let body = serde_json::from_str(data).unwrap_or(Value::String(data.to_owned()));
            return Err(stream_error(&body));
        }
        if self.done || data.is_empty() {
            return Ok(());
        }
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Chunk<'_> = serde_json::from_str(data).map_err(|e| {
            AiError::new(
                AiErrorKind::Decode,
                format!("cannot decode a stream chunk from the model provider: {e}"),
            )
        })?;
        if let Some(error) = chunk.error.filter(|e| !e.is_null()) {
            return Err(stream_error(&serde_json::json!({ "error": error })));
        }
        if self.model.is_none() {
            self.model = chunk.model.filter(|m| !m.is_empty()).map(Cow::into_owned);
        }
        if let Some(usage) = chunk.usage {
            self.record_usage(&usage);
        }
        for choice in chunk.choices.into_iter().flatten() {
            if choice.index.unwrap_or(0) != 0 {
                continue;
            }
            if let Some(delta) = choice.delta {
                self.apply_delta(delta, out);
            }
            match choice.finish_reason.as_deref() {
                None | Some("") => {}
                Some("error") => {
                    return Err(AiError::new(
                        AiErrorKind::Provider,
                        "the model provider ended the stream with finish_reason \"error\"",
                    ));
                }
                Some(_) => self.finished = true,
            }
        }
        Ok(())
    }
}

impl WireDecoder for OpenAiDecoder {
    fn feed(&mut self, chunk: &[u8], out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        if !self.saw_event {
            if self.head.len() + chunk.len() <= MAX_JSON_BODY {
                self.head.extend_from_slice(chunk);
            } else {
                // Too big to be a single completion; treat it as a stream.
                self.saw_event = true;
                self.head = Vec::new();
            }
        }
        self.feed_sse(chunk, out)
    }

    fn finish(&mut self, out: &mut Vec<AgentEvent>) -> Result<StepTotals, AiError> {
        self.finish_sse(out)?;
        if !self.saw_event {
            self.decode_whole_body(out)?;
        }
        if !self.done && !self.finished {
            return Err(cut_stream_error());
        }
        std::mem::take(&mut self.step).finish(out);
        Ok(StepTotals {
            usage: self.usage.unwrap_or_default().to_usage(),
            model: self.model.take(),
        })
    }

    fn saw_delta(&self) -> bool {
        self.step.saw_delta
    }
}
