//! [`StepAssembler`]: what every wire decoder shares once a provider chunk
//! is understood — delta emission, tool-call assembly, and the full events
//! of the step at the end.

use serde_json::Value;

use super::repetition::RepetitionGuard;
use super::{AiError, AiErrorKind};
use crate::protocol::{AgentEvent, Meta, ToolCall, Usage};

/// A tool call whose fragments are still arriving.
#[derive(Debug, Default)]
struct PartialCall {
    /// Provider slot (`index` in OpenAI, content-block index in Anthropic).
    slot: u64,
    id: String,
    name: String,
    args: String,
    /// Arguments given whole at the start (Anthropic `tool_use.input`),
    /// used when no fragment follows.
    initial_args: Option<Value>,
    /// Watches `args` for a model stuck repeating itself.
    guard: RepetitionGuard,
}

/// Accumulates one model call's reasoning, answer and tool calls.
#[derive(Debug, Default)]
pub(crate) struct StepAssembler {
    thought: String,
    output: String,
    calls: Vec<PartialCall>,
    /// Whether any `thought_delta` or `output_delta` has been emitted.
    pub(crate) saw_delta: bool,
}

impl StepAssembler {
    /// Appends reasoning text and emits its delta (empty text is ignored).
    pub(crate) fn thought_delta(&mut self, text: &str, out: &mut Vec<AgentEvent>) {
        if text.is_empty() {
            return;
        }
        self.thought.push_str(text);
        self.saw_delta = true;
        out.push(AgentEvent::ThoughtDelta {
            text: text.to_owned(),
            meta: Meta::default(),
        });
    }

    /// Appends answer text and emits its delta (empty text is ignored).
    pub(crate) fn output_delta(&mut self, text: &str, out: &mut Vec<AgentEvent>) {
        if text.is_empty() {
            return;
        }
        self.output.push_str(text);
        self.saw_delta = true;
        out.push(AgentEvent::OutputDelta {
            text: text.to_owned(),
            meta: Meta::default(),
        });
    }

    /// Merges one tool-call fragment into the call at `slot`.
    ///
    /// A fragment whose non-empty id differs from the id already held at
    /// that slot starts a new call: some servers send every whole call at
    /// index 0.
    pub(crate) fn tool_call_fragment(
        &mut self,
        slot: u64,
        id: Option<&str>,
        name: Option<&str>,
        args: Option<&str>,
    ) {
        let id = id.filter(|s| !s.is_empty());
        let existing = self.calls.iter().rposition(|c| c.slot == slot);
        let position = match existing {
            Some(at)
                if id.is_none_or(|id| self.calls[at].id.is_empty() || self.calls[at].id == id) =>
            {
                at
            }
            _ => {
                self.calls.push(PartialCall {
                    slot,
                    ..PartialCall::default()
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[position];
        if let Some(id) = id {
            id.clone_into(&mut call.id);
        }
        if let Some(name) = name.filter(|s| !s.is_empty()) {
            name.clone_into(&mut call.name);
        }
        if let Some(args) = args {
            call.args.push_str(args);
            call.guard.check(&call.args);
        }
    }

    /// Fails when a call's arguments have become one unit repeated over and
    /// over (a small model's loop; it would go on until the context is
    /// full). Not retried: the same request leads the model back into it.
    pub(crate) fn check_repetition(&self) -> Result<(), AiError> {
        let Some((name, repeated)) = self.calls.iter().find_map(|call| {
            let found = call.guard.found()?;
            Some((&call.name, call.args.len() - found.keep(&call.args).len()))
        }) else {
            return Ok(());
        };
        Err(AiError {
            retryable: false,
            ..AiError::new(
                AiErrorKind::Decode,
                format!(
                    "the model repeated the same text over and over in the arguments of its `{name}` call ({repeated} bytes of it) and was stopped; the call was not run. Ask again, or rephrase"
                ),
            )
        })
    }

    /// Slot of the most recent call, so fragments without an index attach
    /// to it (or start slot 0).
    pub(crate) fn last_slot(&self) -> u64 {
        self.calls.last().map_or(0, |c| c.slot)
    }

    /// Starts a call whose whole argument object may already be known.
    pub(crate) fn start_tool_call(
        &mut self,
        slot: u64,
        id: &str,
        name: &str,
        input: Option<Value>,
    ) {
        self.calls.push(PartialCall {
            slot,
            id: id.to_owned(),
            name: name.to_owned(),
            args: String::new(),
            initial_args: input,
            guard: RepetitionGuard::default(),
        });
    }

    /// Emits the full `thought`, `output` and `tool_calls` events, each only
    /// when non-empty.
    pub(crate) fn finish(self, out: &mut Vec<AgentEvent>) {
        let meta = Meta::default();
        if !self.thought.is_empty() {
            out.push(AgentEvent::Thought {
                text: self.thought,
                meta,
            });
        }
        if !self.output.is_empty() {
            out.push(AgentEvent::Output {
                text: self.output,
                meta,
            });
        }
        if !self.calls.is_empty() {
            let calls = self
                .calls
                .into_iter()
                .map(|call| {
                    let args = if call.args.trim().is_empty() {
                        call.initial_args.unwrap_or_else(empty_args)
                    } else {
                        parse_args(call.args)
                    };
                    let id = if call.id.is_empty() {
                        fresh_call_id()
                    } else {
                        call.id
                    };
                    ToolCall {
                        id,
                        name: call.name,
                        args,
                    }
                })
                .collect();
            out.push(AgentEvent::ToolCalls { calls, meta });
        }
    }
}

fn empty_args() -> Value {
    Value::Object(serde_json::Map::new())
}

/// A JSON object stays an object; anything else (invalid JSON, or JSON
/// that is not an object) becomes the raw text as a JSON string so that the
/// registry answers the model with an error result.
fn parse_args(raw: String) -> Value {
    match serde_json::from_str::<Value>(&raw) {
        Ok(value @ Value::Object(_)) => value,
        _ => Value::String(raw),
    }
}

/// Provider-neutral accounting, filled in by the decoders.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UsageParts {
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) total: Option<u64>,
    pub(crate) cached: Option<u64>,
}

impl UsageParts {
    pub(crate) fn to_usage(self) -> Usage {
        Usage {
            input: self.input,
            output: self.output,
            total: self.total.unwrap_or(self.input + self.output),
            cached: self.cached,
        }
    }
}

/// An id for a call the provider sent without one: a process-wide counter
/// plus a per-process random token, so ids never repeat within a session,
/// even across restarts (an id is the recall key of its result).
fn fresh_call_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    static TOKEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let token = TOKEN.get_or_init(super::replay::random_token);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("call_{n}_{token}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn finished_calls(assembler: StepAssembler) -> Vec<ToolCall> {
        let mut out = Vec::new();
        assembler.finish(&mut out);
        match out.pop() {
            Some(AgentEvent::ToolCalls { calls, .. }) => calls,
            other => panic!("expected tool_calls, got {other:?}"),
        }
    }

    #[test]
    fn arguments_that_loop_fail_the_step_and_varied_ones_do_not() {
        let mut a = StepAssembler::default();
        a.tool_call_fragment(0, Some("c1"), Some("edit"), Some("{\"content\": \""));
        // A long file whose lines differ is no loop.
        for i in 0..3_000 {
            a.tool_call_fragment(0, None, None, Some(&format!("    line {i}\\n")));
            assert_eq!(a.check_repetition(), Ok(()));
        }
        for _ in 0..1_000 {
            a.tool_call_fragment(0, None, None, Some("[^\\u00"));
        }
        let err = a.check_repetition().unwrap_err();
        assert!(!err.retryable);
        assert!(
            err.message
                .contains("over and over in the arguments of its `edit` call"),
            "{}",
            err.message
        );
    }

    #[test]
    fn fragments_concatenate_by_slot() {
        let mut a = StepAssembler::default();
        a.tool_call_fragment(0, Some("c1"), Some("grep"), Some("{\"q"));
        a.tool_call_fragment(1, Some("c2"), Some("tree"), Some(""));
        a.tool_call_fragment(0, None, None, Some("\":1}"));
        let calls = finished_calls(a);
        assert_eq!(calls[0].args, json!({"q": 1}));
        assert_eq!(calls[1].args, json!({}));
        assert_eq!(calls[1].name, "tree");
    }

    #[test]
    fn new_id_at_a_used_slot_starts_a_new_call() {
        let mut a = StepAssembler::default();
        a.tool_call_fragment(0, Some("a"), Some("x"), Some("{}"));
        a.tool_call_fragment(0, Some("b"), Some("y"), Some("{}"));
        let ids: Vec<String> = finished_calls(a).into_iter().map(|c| c.id).collect();
        assert_eq!(ids, ["a", "b"]);
    }

    #[test]
    fn invalid_or_non_object_args_become_the_raw_string() {
        let mut a = StepAssembler::default();
        a.tool_call_fragment(0, Some("a"), Some("x"), Some("{\"q\": tru"));
        a.tool_call_fragment(1, Some("b"), Some("x"), Some("[1]"));
        let calls = finished_calls(a);
        assert_eq!(calls[0].args, json!("{\"q\": tru"));
        assert_eq!(calls[1].args, json!("[1]"));
    }

    #[test]
    fn missing_ids_are_made_unique_across_steps_regression_repeated_positional_ids() {
        let id_of_one_step = || {
            let mut a = StepAssembler::default();
            a.tool_call_fragment(0, None, Some("x"), None);
            finished_calls(a)[0].id.clone()
        };
        let (first, second) = (id_of_one_step(), id_of_one_step());
        assert!(first.starts_with("call_"), "{first}");
        assert_ne!(
            first, second,
            "the seed reused `call_0` every step, breaking recall"
        );
    }
}
