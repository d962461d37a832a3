//! [`AnthropicDecoder`]: Messages API stream events → events.
//!
//! - `text_delta` → output, `thinking_delta` → thought, `input_json_delta`
//!   fragments (the first may be empty) → tool-call arguments by block index;
//!   `ping` is ignored; with a memo attached, the step's thinking blocks
//!   (text and `signature_delta`, or `redacted_thinking`) are remembered by
//!   its first call's id once the stream finished well;
//! - usage: `message_start` gives the prompt side, `message_delta` carries
//!   cumulative counts (it may repeat `input_tokens`), so later values
//!   replace earlier ones; the prompt total counts cache reads and writes;
//! - `error` events end the stream with that error;
//! - a body that ends without `message_stop` is complete when a
//!   `stop_reason` was seen, and cut otherwise.

use serde_json::{Value, json};

use crate::ai::assemble::{StepAssembler, UsageParts};
use crate::ai::decode::{SseFrames, SseWire, StepTotals, WireDecoder};
use crate::ai::http::{cut_stream_error, stream_error};
use crate::ai::replay::ReplayMemo;
use crate::ai::sse::SseEvent;
use crate::ai::{AiError, AiErrorKind};
use crate::protocol::AgentEvent;

/// Decodes an Anthropic Messages stream.
#[derive(Debug, Default)]
pub struct AnthropicDecoder {
    sse: SseFrames,
    step: StepAssembler,
    prompt_tokens: u64,
    cache_write: u64,
    cache_read: Option<u64>,
    output_tokens: u64,
    model: Option<String>,
    stopped: bool,
    /// Where a step's thinking blocks are remembered.
    memo: Option<ReplayMemo<Vec<Value>>>,
    /// This step's thinking blocks, by stream block index.
    thinking: Vec<(u64, Value)>,
    /// The id of this step's first tool call.
    first_call: Option<String>,
}

fn number(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

impl AnthropicDecoder {
    /// A decoder at the start of a response body.
    pub fn new() -> Self {
        Self::default()
    }

    /// Remembers the step's thinking blocks in `memo` when it finishes.
    pub(crate) fn with_thinking_memo(mut self, memo: ReplayMemo<Vec<Value>>) -> Self {
        self.memo = Some(memo);
        self
    }

    fn thinking_block(&mut self, slot: u64) -> Option<&mut Value> {
        self.thinking
            .iter_mut()
            .find(|(at, _)| *at == slot)
            .map(|(_, block)| block)
    }

    /// Counts are cumulative, so a repeated field never adds; taking the
    /// larger value also survives a proxy that repeats a field as 0.
    fn record_usage(&mut self, usage: &Value) {
        let field = |key| number(usage, key).unwrap_or(0);
        self.prompt_tokens = self.prompt_tokens.max(field("input_tokens"));
        self.cache_write = self.cache_write.max(field("cache_creation_input_tokens"));
        if let Some(n) = number(usage, "cache_read_input_tokens") {
            self.cache_read = Some(self.cache_read.unwrap_or(0).max(n));
        }
        self.output_tokens = self.output_tokens.max(field("output_tokens"));
    }
}

impl SseWire for AnthropicDecoder {
    fn frames(&mut self) -> &mut SseFrames {
        &mut self.sse
    }

    fn step(&self) -> &StepAssembler {
        &self.step
    }

    fn handle(&mut self, event: &SseEvent, out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        let data: Value = serde_json::from_str(&event.data).map_err(|e| {
            AiError::new(
                AiErrorKind::Decode,
                format!("cannot decode a stream event from the model provider: {e}"),
            )
        })?;
        let kind = match data.get("type").and_then(Value::as_str) {
            Some(kind) => kind,
            None => event.event.as_str(),
        };
        match kind {
            "message_start" => {
                let message = data.get("message").unwrap_or(&Value::Null);
                if let Some(model) = message.get("model").and_then(Value::as_str) {
                    self.model = Some(model.to_owned());
                }
                if let Some(usage) = message.get("usage") {
                    self.record_usage(usage);
                }
            }
            "content_block_start" => {
                let slot = number(&data, "index").unwrap_or(0);
                let block = data.get("content_block").unwrap_or(&Value::Null);
                match text(block, "type") {
                    "text" => self.step.output_delta(text(block, "text"), out),
                    "thinking" => {
                        self.step.thought_delta(text(block, "thinking"), out);
                        let kept = json!({ "type": "thinking", "thinking": text(block, "thinking"), "signature": text(block, "signature") });
                        self.thinking.push((slot, kept));
                    }
                    "redacted_thinking" => self.thinking.push((slot, block.clone())),
                    "tool_use" => {
                        if self.first_call.is_none() {
                            self.first_call = Some(text(block, "id").to_owned());
                        }
                        let input = block
                            .get("input")
                            .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                            .cloned();
                        self.step.start_tool_call(
                            slot,
                            text(block, "id"),
                            text(block, "name"),
                            input,
                        );
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let slot = number(&data, "index").unwrap_or(0);
                let delta = data.get("delta").unwrap_or(&Value::Null);
                match text(delta, "type") {
                    "text_delta" => self.step.output_delta(text(delta, "text"), out),
                    "thinking_delta" => {
                        let fragment = text(delta, "thinking");
                        self.step.thought_delta(fragment, out);
                        if let Some(block) = self.thinking_block(slot) {
                            let joined = format!("{}{fragment}", text(block, "thinking"));
                            block["thinking"] = json!(joined);
                        }
                    }
                    "signature_delta" => {
                        let signature = text(delta, "signature").to_owned();
                        if let Some(block) = self.thinking_block(slot) {
                            block["signature"] = json!(signature);
                        }
                    }
                    "input_json_delta" => {
                        let fragment = text(delta, "partial_json");
                        self.step
                            .tool_call_fragment(slot, None, None, Some(fragment));
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if data
                    .pointer("/delta/stop_reason")
                    .is_some_and(|r| !r.is_null())
                {
                    self.stopped = true;
                }
                if let Some(usage) = data.get("usage") {
                    self.record_usage(usage);
                }
            }
            "message_stop" => self.stopped = true,
            "error" => return Err(stream_error(&data)),
            _ => {}
        }
        Ok(())
    }
}

impl WireDecoder for AnthropicDecoder {
    fn feed(&mut self, chunk: &[u8], out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        self.feed_sse(chunk, out)
    }

    fn finish(&mut self, out: &mut Vec<AgentEvent>) -> Result<StepTotals, AiError> {
        self.finish_sse(out)?;
        if !self.stopped {
            return Err(cut_stream_error());
        }
        std::mem::take(&mut self.step).finish(out);
        if let (Some(memo), Some(first)) = (&self.memo, &self.first_call)
            && !self.thinking.is_empty()
        {
            let blocks = std::mem::take(&mut self.thinking)
                .into_iter()
                .map(|(_, b)| b)
                .collect();
            memo.insert(first, blocks);
        }
        let usage = UsageParts {
            input: self.prompt_tokens + self.cache_write + self.cache_read.unwrap_or(0),
            output: self.output_tokens,
            total: None,
            cached: self.cache_read,
        };
        Ok(StepTotals {
            usage: usage.to_usage(),
            model: self.model.take(),
        })
    }

    fn saw_delta(&self) -> bool {
        self.step.saw_delta
    }
}
