//! The event log as a provider-neutral conversation: what both request
//! builders translate into their wire format.
//!
//! Rules (the same for every provider):
//! - events are taken in log order;
//! - the `thought`, `output` and `tool_calls` of one step form one
//!   assistant [`Item::Assistant`];
//! - right after it come the results of its calls in **call order**,
//!   matched by id wherever they sit in the log; a call with no stored
//!   result gets an "interrupted" error result so providers never reject
//!   the request; results whose call is not in the history are dropped;
//! - a summary becomes a labelled note where it sits (normally first);
//! - `agent_stop(user)` becomes a note telling the model its previous turn
//!   was interrupted; an `agent_stop(llm)` right after an answer of the same
//!   step (kept when the stream broke and the retries ran out) becomes a
//!   note that this answer was cut off; other `agent_stop`s and every
//!   `agent_trace` are bookkeeping the model does not need.

use std::collections::HashMap;

use super::{ImageData, Images};
use crate::protocol::{
    AgentEvent, InputSource, Meta, StopCause, ToolCall, ToolOutcome, text_with_images,
};

/// Label put before a summary so the model reads it as history.
pub const SUMMARY_LABEL: &str = "[history summary of earlier turns]";
/// Label put before host-injected (`source: system`) input.
pub const SYSTEM_NOTE_LABEL: &str = "[system note]";
/// Note sent after a turn the user interrupted.
pub const INTERRUPTED_TURN_NOTE: &str = "[the previous turn was interrupted by the user]";
/// Note sent after an answer whose stream broke before the model finished.
pub const CUT_ANSWER_NOTE: &str = "[your previous answer was cut off: the connection broke before you finished, so it is incomplete]";
/// Result given to a call that has no stored result.
pub const INTERRUPTED_CALL_RESULT: &str = "interrupted by user: this tool call did not finish";

/// One message-sized piece of history.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item<'a> {
    /// What the user sent: the text (with a placeholder line naming each
    /// image) and the images whose bytes the request carries, in order.
    User {
        text: std::borrow::Cow<'a, str>,
        images: Vec<&'a ImageData>,
    },
    /// A note from the host (system-sourced input, summary, interruption).
    Note(String),
    /// One step of the model.
    Assistant {
        thought: &'a str,
        output: &'a str,
        calls: &'a [ToolCall],
    },
    /// The result of one call of the preceding assistant item.
    ToolResult {
        call_id: &'a str,
        name: &'a str,
        result: &'a str,
        is_error: bool,
    },
}

#[derive(Default)]
struct Step<'a> {
    meta: Option<Meta>,
    thought: Option<&'a str>,
    output: Option<&'a str>,
    calls: Option<&'a [ToolCall]>,
}

impl<'a> Step<'a> {
    fn is_empty(&self) -> bool {
        self.thought.is_none() && self.output.is_none() && self.calls.is_none()
    }

    /// Whether `event` (at `meta`) continues this step.
    fn accepts(&self, event: &AgentEvent) -> bool {
        if self.is_empty() {
            return true;
        }
        let slot_free = match event {
            AgentEvent::Thought { .. } => self.thought.is_none(),
            AgentEvent::Output { .. } => self.output.is_none(),
            AgentEvent::ToolCalls { .. } => self.calls.is_none(),
            _ => false,
        };
        slot_free && self.meta == Some(event.meta())
    }
}

/// Translates `events` into history items, taking the bytes of their
/// images from `images`; see the module docs.
pub(crate) fn items<'a>(events: &'a [AgentEvent], images: &'a Images) -> Vec<Item<'a>> {
    let results: HashMap<&str, &ToolOutcome> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult { outcome, .. } => Some((outcome.id.as_str(), outcome)),
            _ => None,
        })
        .collect();
    let mut items = Vec::new();
    let mut step = Step::default();
    for event in events {
        if matches!(
            event,
            AgentEvent::Thought { .. } | AgentEvent::Output { .. } | AgentEvent::ToolCalls { .. }
        ) && !step.accepts(event)
        {
            flush(&mut step, &results, &mut items);
        }
        match event {
            AgentEvent::Thought { text, meta } => {
                step.thought = Some(text);
                step.meta = Some(*meta);
            }
            AgentEvent::Output { text, meta } => {
                step.output = Some(text);
                step.meta = Some(*meta);
            }
            AgentEvent::ToolCalls { calls, meta } => {
                step.calls = Some(calls);
                step.meta = Some(*meta);
            }
            AgentEvent::ToolResult { .. }
            | AgentEvent::AgentTrace { .. }
            | AgentEvent::ThoughtDelta { .. }
            | AgentEvent::OutputDelta { .. } => {}
            AgentEvent::Input {
                text,
                source,
                images: refs,
                ..
            } => {
                flush(&mut step, &results, &mut items);
                items.push(match source {
                    InputSource::User if refs.is_empty() => Item::User {
                        text: text.into(),
                        images: Vec::new(),
                    },
                    InputSource::User => Item::User {
                        text: text_with_images(text, refs).into(),
                        images: refs.iter().filter_map(|r| images.get(&r.hash)).collect(),
                    },
                    InputSource::System => Item::Note(format!("{SYSTEM_NOTE_LABEL} {text}")),
                });
            }
            AgentEvent::AgentSummary { text, .. } => {
                flush(&mut step, &results, &mut items);
                items.push(Item::Note(format!("{SUMMARY_LABEL}\n{text}")));
            }
            AgentEvent::AgentStop { cause, meta, .. } => {
                let cut = *cause == StopCause::Llm
                    && step.meta == Some(*meta)
                    && step.calls.is_none()
                    && !step.is_empty();
                flush(&mut step, &results, &mut items);
                if *cause == StopCause::User {
                    items.push(Item::Note(INTERRUPTED_TURN_NOTE.to_owned()));
                } else if cut {
                    items.push(Item::Note(CUT_ANSWER_NOTE.to_owned()));
                }
            }
        }
    }
    flush(&mut step, &results, &mut items);
    items
}

fn flush<'a>(
    step: &mut Step<'a>,
    results: &HashMap<&str, &'a ToolOutcome>,
    items: &mut Vec<Item<'a>>,
) {
    let step = std::mem::take(step);
    let thought = step.thought.unwrap_or("");
    let output = step.output.unwrap_or("");
    let calls = step.calls.unwrap_or(&[]);
    if thought.is_empty() && output.is_empty() && calls.is_empty() {
        return;
    }
    items.push(Item::Assistant {
        thought,
        output,
        calls,
    });
    for call in calls {
        items.push(match results.get(call.id.as_str()) {
            Some(outcome) => Item::ToolResult {
                call_id: &call.id,
                name: &call.name,
                result: &outcome.result,
                is_error: outcome.is_error,
            },
            None => Item::ToolResult {
                call_id: &call.id,
                name: &call.name,
                result: INTERRUPTED_CALL_RESULT,
                is_error: true,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "grep".into(),
            args: json!({}),
        }
    }

    fn result(id: &str, text: &str) -> AgentEvent {
        AgentEvent::ToolResult {
            outcome: ToolOutcome {
                id: id.into(),
                name: "grep".into(),
                result: text.into(),
                is_error: false,
                display: None,
            },
            meta: Meta::new(1, 1),
        }
    }

    #[test]
    fn two_steps_with_default_coordinates_stay_apart() {
        let events = vec![
            AgentEvent::Output {
                text: "a".into(),
                meta: Meta::default(),
            },
            AgentEvent::Output {
                text: "b".into(),
                meta: Meta::default(),
            },
        ];
        assert_eq!(items(&events, &Images::new()).len(), 2);
    }

    #[test]
    fn results_follow_their_step_in_call_order_and_orphans_are_dropped() {
        let events = vec![
            AgentEvent::ToolCalls {
                calls: vec![call("a"), call("b")],
                meta: Meta::new(1, 1),
            },
            result("orphan", "x"),
            result("b", "B"),
            result("a", "A"),
        ];
        let none = Images::new();
        let got = items(&events, &none);
        let ids: Vec<&str> = got
            .iter()
            .filter_map(|i| match i {
                Item::ToolResult { call_id, .. } => Some(*call_id),
                _ => None,
            })
            .collect();
        assert_eq!(ids, ["a", "b"]);
    }

    #[test]
    fn a_kept_partial_answer_before_an_llm_stop_is_noted_as_cut() {
        let stop = |cause, step| AgentEvent::AgentStop {
            cause,
            message: "broke".into(),
            meta: Meta::new(1, step),
        };
        let partial = AgentEvent::Output {
            text: "half".into(),
            meta: Meta::new(1, 1),
        };
        let note = Item::Note(CUT_ANSWER_NOTE.to_owned());
        let cut = [partial.clone(), stop(StopCause::Llm, 1)];
        assert_eq!(items(&cut, &Images::new()).last(), Some(&note));
        // A failure before anything was shown leaves no answer to qualify.
        let failed = [partial.clone(), stop(StopCause::Llm, 2)];
        assert!(!items(&failed, &Images::new()).contains(&note));
        let done = [partial, stop(StopCause::Done, 1)];
        assert!(!items(&done, &Images::new()).contains(&note));
    }
}
