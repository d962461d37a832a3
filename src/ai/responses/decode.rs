//! [`ResponsesDecoder`]: Responses API stream events → events.
//!
//! - `response.output_text.delta` (and `response.refusal.delta`) → output;
//!   `response.reasoning_summary_text.delta` and
//!   `response.reasoning_text.delta` → thought, with a blank line between
//!   two summary parts so they do not run together;
//! - function calls are assembled per output item (`output_index`):
//!   `response.output_item.added` gives the call id and name,
//!   `response.function_call_arguments.delta` the argument fragments;
//!   `…arguments.done` or `response.output_item.done` supply the whole
//!   arguments when no fragment came;
//! - reasoning items that carry `encrypted_content` are kept, without their
//!   output id, and remembered under the step's first call id once the
//!   stream has finished well, for the next request to echo;
//! - `response.completed` (or `response.incomplete`) ends the step with
//!   its usage; `response.failed` and `error` events end the stream with
//!   that error; a body that ends before either is cut.

use serde_json::{Value, json};

use crate::ai::AiError;
use crate::ai::assemble::{StepAssembler, UsageParts};
use crate::ai::decode::{SseFrames, SseWire, StepTotals, WireDecoder};
use crate::ai::http::{cut_stream_error, stream_error};
use crate::ai::replay::{ReplayMemo, decode_error};
use crate::ai::sse::SseEvent;
use crate::protocol::AgentEvent;

/// Separator put between two reasoning summary parts.
const PART_BREAK: &str = "\n\n";

/// Decodes an OpenAI Responses API stream.
#[derive(Debug, Default)]
pub struct ResponsesDecoder {
    sse: SseFrames,
    step: StepAssembler,
    /// Output indexes of function-call items, and whether their arguments
    /// have arrived.
    call_slots: Vec<(u64, bool)>,
    first_call_id: Option<String>,
    reasoning_items: Vec<Value>,
    memo: Option<ReplayMemo<Vec<Value>>>,
    /// Which reasoning part the last thought delta belonged to.
    thought_part: Option<String>,
    usage: Option<UsageParts>,
    model: Option<String>,
    finished: bool,
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn number(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

impl ResponsesDecoder {
    /// A decoder at the start of a response body.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the step's reasoning items into `memo` when the stream
    /// finishes.
    pub(crate) fn with_reasoning_memo(mut self, memo: ReplayMemo<Vec<Value>>) -> Self {
        self.memo = Some(memo);
        self
    }

    fn record_response(&mut self, data: &Value) {
        let Some(response) = data.get("response") else {
            return;
        };
        if let Some(model) = response.get("model").and_then(Value::as_str) {
            self.model = Some(model.to_owned());
        }
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            let input = number(usage, "input_tokens").unwrap_or(0);
            let output = number(usage, "output_tokens").unwrap_or(0);
            self.usage = Some(UsageParts {
                input,
                output,
                total: number(usage, "total_tokens"),
                cached: usage
                    .pointer("/input_tokens_details/cached_tokens")
                    .and_then(Value::as_u64),
            });
        }
    }

    fn start_call(&mut self, slot: u64, item: &Value) {
        let call_id = text(item, "call_id");
        self.step
            .tool_call_fragment(slot, Some(call_id), Some(text(item, "name")), None);
        self.call_slots.push((slot, false));
        if self.first_call_id.is_none() && !call_id.is_empty() {
            self.first_call_id = Some(call_id.to_owned());
        }
    }

    /// Adds argument text to the call at `slot`; `whole` text (from a
    /// `done` event) is used only when no fragment came before it.
    fn arguments(&mut self, slot: u64, args: &str, whole: bool) {
        let Some(entry) = self.call_slots.iter_mut().find(|(s, _)| *s == slot) else {
            return;
        };
        if whole && entry.1 {
            return;
        }
        if args.is_empty() {
            return;
        }
        entry.1 = true;
        self.step.tool_call_fragment(slot, None, None, Some(args));
    }

    fn thought(&mut self, part: String, delta: &str, out: &mut Vec<AgentEvent>) {
        if delta.is_empty() {
            return;
        }
        if self.thought_part.as_ref().is_some_and(|last| *last != part) {
            self.step.thought_delta(PART_BREAK, out);
        }
        self.thought_part = Some(part);
        self.step.thought_delta(delta, out);
    }

    /// Keeps a reasoning item for replay, when it can be replayed: without
    /// `encrypted_content` it would have to be looked up by id, and nothing
    /// is stored on the provider's side.
    fn keep_reasoning(&mut self, item: &Value) {
        let Some(encrypted) = item.get("encrypted_content").and_then(Value::as_str) else {
            return;
        };
        self.reasoning_items.push(json!({
            "type": "reasoning",
            "summary": item.get("summary").cloned().unwrap_or_else(|| json!([])),
            "encrypted_content": encrypted,
        }));
    }
}

impl SseWire for ResponsesDecoder {
    fn frames(&mut self) -> &mut SseFrames {
        &mut self.sse
    }

    fn step(&self) -> &StepAssembler {
        &self.step
    }

    fn handle(&mut self, event: &SseEvent, out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let data: Value =
            serde_json::from_str(data).map_err(|e| decode_error("a stream event", &e))?;
        let kind = match data.get("type").and_then(Value::as_str) {
            Some(kind) => kind,
            None => event.event.as_str(),
        };
        let slot = number(&data, "output_index").unwrap_or(0);
        match kind {
            "response.created" | "response.in_progress" => self.record_response(&data),
            "response.output_item.added" => {
                let item = data.get("item").unwrap_or(&Value::Null);
                if text(item, "type") == "function_call" {
                    self.start_call(slot, item);
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                self.step.output_delta(text(&data, "delta"), out);
            }
            "response.reasoning_summary_text.delta" => {
                let part = format!(
                    "{}/summary/{}",
                    text(&data, "item_id"),
                    number(&data, "summary_index").unwrap_or(0)
                );
                self.thought(part, text(&data, "delta"), out);
            }
            "response.reasoning_text.delta" => {
                let part = format!(
                    "{}/content/{}",
                    text(&data, "item_id"),
                    number(&data, "content_index").unwrap_or(0)
                );
                self.thought(part, text(&data, "delta"), out);
            }
            "response.function_call_arguments.delta" => {
                self.arguments(slot, text(&data, "delta"), false);
            }
            "response.function_call_arguments.done" => {
                self.arguments(slot, text(&data, "arguments"), true);
            }
            "response.output_item.done" => {
                let item = data.get("item").unwrap_or(&Value::Null);
                match text(item, "type") {
                    "function_call" => {
                        if !self.call_slots.iter().any(|(s, _)| *s == slot) {
                            self.start_call(slot, item);
                        }
                        self.arguments(slot, text(item, "arguments"), true);
                    }
                    "reasoning" => self.keep_reasoning(item),
                    _ => {}
                }
            }
            "response.completed" | "response.incomplete" => {
                self.record_response(&data);
                self.finished = true;
            }
            "response.failed" => {
                let error = data
                    .pointer("/response/error")
                    .filter(|e| !e.is_null())
                    .cloned()
                    .unwrap_or_else(|| json!({ "message": "the response failed" }));
                return Err(stream_error(&json!({ "error": error })));
            }
            "error" => return Err(stream_error(&data)),
            _ => {}
        }
        Ok(())
    }
}

impl WireDecoder for ResponsesDecoder {
    fn feed(&mut self, chunk: &[u8], out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        self.feed_sse(chunk, out)
    }

    fn finish(&mut self, out: &mut Vec<AgentEvent>) -> Result<StepTotals, AiError> {
        self.finish_sse(out)?;
        if !self.finished {
            return Err(cut_stream_error());
        }
        std::mem::take(&mut self.step).finish(out);
        if let (Some(memo), Some(first)) = (&self.memo, &self.first_call_id)
            && !self.reasoning_items.is_empty()
        {
            memo.insert(first, std::mem::take(&mut self.reasoning_items));
        }
        Ok(StepTotals {
            usage: self.usage.unwrap_or_default().to_usage(),
            model: self.model.take(),
        })
    }

    fn saw_delta(&self) -> bool {
        self.step.saw_delta
    }
}
