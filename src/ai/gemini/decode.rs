//! [`GeminiDecoder`]: `streamGenerateContent?alt=sse` chunks → events.
//!
//! - each `data:` line is one `GenerateContentResponse`; only the first
//!   candidate is read;
//! - text parts with `thought: true` → thought, other text → output;
//!   `functionCall` parts arrive whole and become tool calls, with an id
//!   from [`CallIds`] when the API gives none; a `thoughtSignature` on a
//!   call part is remembered for the replay (see [`crate::ai`]'s replay
//!   memo) once the stream has finished well;
//! - `usageMetadata` repeats on chunks with the counts so far: the last
//!   value of each field wins (the prompt count may shrink on the final
//!   chunk); output counts candidates plus thoughts;
//! - an `{"error":…}` chunk ends the stream with that error; a prompt
//!   blocked by `promptFeedback`, a safety stop or a malformed function
//!   call are errors too;
//! - a body that ends before any `finishReason` is cut.

use serde_json::Value;

use super::call_ids::CallIds;
use crate::ai::assemble::{StepAssembler, UsageParts};
use crate::ai::classify::blocked_error;
use crate::ai::decode::{SseFrames, SseWire, StepTotals, WireDecoder};
use crate::ai::http::{cut_stream_error, stream_error};
use crate::ai::replay::{ReplayMemo, decode_error};
use crate::ai::sse::SseEvent;
use crate::ai::{AiError, AiErrorKind};
use crate::protocol::AgentEvent;

/// Finish reasons that mean the provider withheld the answer.
const WITHHELD: [&str; 6] = [
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
];

/// Decodes a Gemini `streamGenerateContent` SSE stream.
#[derive(Debug)]
pub struct GeminiDecoder {
    sse: SseFrames,
    step: StepAssembler,
    call_ids: CallIds,
    calls: u64,
    /// `(call id, thoughtSignature)` seen in this stream.
    signatures: Vec<(String, String)>,
    memo: Option<ReplayMemo<String>>,
    usage: GeminiUsage,
    model: Option<String>,
    finished: bool,
}

#[derive(Debug, Default, Clone, Copy)]
struct GeminiUsage {
    prompt: u64,
    candidates: u64,
    thoughts: u64,
    total: Option<u64>,
    cached: Option<u64>,
}

fn number(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

impl GeminiDecoder {
    /// A decoder at the start of a response body, naming id-less calls
    /// from `call_ids`.
    pub fn new(call_ids: CallIds) -> Self {
        Self {
            sse: SseFrames::default(),
            step: StepAssembler::default(),
            call_ids,
            calls: 0,
            signatures: Vec::new(),
            memo: None,
            usage: GeminiUsage::default(),
            model: None,
            finished: false,
        }
    }

    /// Records call signatures into `memo` when the stream finishes.
    pub(crate) fn with_signature_memo(mut self, memo: ReplayMemo<String>) -> Self {
        self.memo = Some(memo);
        self
    }

    fn apply_part(&mut self, part: &Value, out: &mut Vec<AgentEvent>) {
        if let Some(call) = part.get("functionCall") {
            let id = match call.get("id").and_then(Value::as_str) {
                Some(id) if !id.is_empty() => id.to_owned(),
                _ => self.call_ids.next_id(),
            };
            let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
            let args = call
                .get("args")
                .filter(|a| !a.is_null())
                .cloned()
                .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
            if let Some(signature) = part.get("thoughtSignature").and_then(Value::as_str) {
                self.signatures.push((id.clone(), signature.to_owned()));
            }
            self.step.start_tool_call(self.calls, &id, name, Some(args));
            self.calls += 1;
            return;
        }
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                self.step.thought_delta(text, out);
            } else {
                self.step.output_delta(text, out);
            }
        }
    }

    /// Each chunk's counts are the response's totals so far, and the
    /// final chunk's are the ones Google bills: a later value replaces an
    /// earlier one even when it is smaller (the prompt count can shrink on
    /// the last chunk); a field a chunk leaves out keeps its last value.
    fn record_usage(&mut self, usage: &Value) {
        let u = &mut self.usage;
        let fields = [
            ("promptTokenCount", &mut u.prompt),
            ("candidatesTokenCount", &mut u.candidates),
            ("thoughtsTokenCount", &mut u.thoughts),
        ];
        for (key, slot) in fields {
            if let Some(n) = number(usage, key) {
                *slot = n;
            }
        }
        if let Some(total) = number(usage, "totalTokenCount") {
            u.total = Some(total);
        }
        if let Some(cached) = number(usage, "cachedContentTokenCount") {
            u.cached = Some(cached);
        }
    }
}

impl SseWire for GeminiDecoder {
    fn frames(&mut self) -> &mut SseFrames {
        &mut self.sse
    }

    fn step(&self) -> &StepAssembler {
        &self.step
    }

    fn handle(&mut self, event: &SseEvent, out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Value =
            serde_json::from_str(data).map_err(|e| decode_error("a stream chunk", &e))?;
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            return Err(stream_error(&chunk));
        }
        if let Some(model) = chunk.get("modelVersion").and_then(Value::as_str) {
            self.model = Some(model.to_owned());
        }
        if let Some(usage) = chunk.get("usageMetadata") {
            self.record_usage(usage);
        }
        let candidate = chunk.pointer("/candidates/0");
        if candidate.is_none()
            && let Some(reason) = chunk
                .pointer("/promptFeedback/blockReason")
                .and_then(Value::as_str)
        {
            return Err(blocked_error(format!("the prompt was blocked ({reason})")));
        }
        let Some(candidate) = candidate else {
            return Ok(());
        };
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for part in parts {
            self.apply_part(part, out);
        }
        match candidate.get("finishReason").and_then(Value::as_str) {
            None | Some("" | "FINISH_REASON_UNSPECIFIED") => {}
            Some(reason @ ("MALFORMED_FUNCTION_CALL" | "UNEXPECTED_TOOL_CALL")) => {
                return Err(AiError::new(
                    AiErrorKind::Provider,
                    format!("the model produced an unusable function call ({reason})"),
                ));
            }
            Some(reason) if WITHHELD.contains(&reason) => {
                return Err(blocked_error(format!("the answer was withheld ({reason})")));
            }
            Some(_) => self.finished = true,
        }
        Ok(())
    }
}

impl WireDecoder for GeminiDecoder {
    fn feed(&mut self, chunk: &[u8], out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        self.feed_sse(chunk, out)
    }

    fn finish(&mut self, out: &mut Vec<AgentEvent>) -> Result<StepTotals, AiError> {
        self.finish_sse(out)?;
        if !self.finished {
            return Err(cut_stream_error());
        }
        std::mem::take(&mut self.step).finish(out);
        if let Some(memo) = &self.memo {
            for (id, signature) in self.signatures.drain(..) {
                memo.insert(&id, signature);
            }
        }
        let u = self.usage;
        let usage = UsageParts {
            input: u.prompt,
            output: u.candidates + u.thoughts,
            total: u.total,
            cached: u.cached,
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
