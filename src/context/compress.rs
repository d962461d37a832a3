//! Hot and cold steps: what of the window reaches the model verbatim.
//!
//! The last [`HOT_STEPS`] steps travel verbatim. In older (cold) steps
//! thoughts are dropped and successful tool results longer than
//! [`INDEX_MIN_CHARS`] become `indexed_tool_result` placeholders quoting the
//! call's `_intent`; `recall_indexed` brings a body back. Tool-call arguments
//! are never indexed here ([`super::fit`] shortens them only when a single
//! step is larger than the whole budget). Events keep log order.

use std::collections::HashMap;

use crate::protocol::{AgentEvent, Meta, ToolCall, ToolOutcome};

/// Steps kept verbatim at the end of the window.
pub const HOT_STEPS: usize = 2;
/// Successful results up to this many characters are never indexed.
pub const INDEX_MIN_CHARS: usize = 100;

/// Splits events into runs sharing one `(turn, step)`, in log order.
/// Summaries form no step of their own: they are skipped.
pub fn steps(events: &[AgentEvent]) -> Vec<Vec<&AgentEvent>> {
    let mut groups: Vec<Vec<&AgentEvent>> = Vec::new();
    let mut current: Option<Meta> = None;
    for event in events {
        if matches!(event, AgentEvent::AgentSummary { .. }) {
            continue;
        }
        match groups.last_mut() {
            Some(group) if current == Some(event.meta()) => group.push(event),
            _ => {
                current = Some(event.meta());
                groups.push(vec![event]);
            }
        }
    }
    groups
}

/// The window without accounting events (`agent_trace`); stops stay so the
/// model can be told a previous turn was interrupted.
pub fn without_accounting(events: &[AgentEvent]) -> Vec<AgentEvent> {
    events
        .iter()
        .filter(|e| !matches!(e, AgentEvent::AgentTrace { .. }))
        .cloned()
        .collect()
}

/// The window as sent to the model before fitting: summaries first as they
/// stand, cold steps compressed, hot steps verbatim.
pub fn compress(events: &[AgentEvent]) -> Vec<AgentEvent> {
    let hot_from = hot_boundary(events);
    let calls = calls_by_id(events);
    let mut out = Vec::with_capacity(events.len());
    for (index, event) in events.iter().enumerate() {
        match event {
            AgentEvent::AgentTrace { .. } => {}
            AgentEvent::Thought { .. } if index < hot_from => {}
            AgentEvent::ToolResult { outcome, meta } if index < hot_from => {
                out.push(AgentEvent::ToolResult {
                    outcome: index_result(outcome, &calls),
                    meta: *meta,
                })
            }
            other => out.push(other.clone()),
        }
    }
    out
}

/// Index of the first event of the hot steps (`events.len()` when empty).
pub fn hot_boundary(events: &[AgentEvent]) -> usize {
    let mut seen = 0;
    let mut current: Option<Meta> = None;
    for (index, event) in events.iter().enumerate().rev() {
        if matches!(event, AgentEvent::AgentSummary { .. }) {
            continue;
        }
        if current != Some(event.meta()) {
            if seen == HOT_STEPS {
                return index + 1;
            }
            seen += 1;
            current = Some(event.meta());
        }
    }
    0
}

/// Every call of `events` by id.
pub fn calls_by_id(events: &[AgentEvent]) -> HashMap<&str, &ToolCall> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCalls { calls, .. } => Some(calls),
            _ => None,
        })
        .flatten()
        .map(|c| (c.id.as_str(), c))
        .collect()
}

fn index_result(outcome: &ToolOutcome, calls: &HashMap<&str, &ToolCall>) -> ToolOutcome {
    if outcome.is_error || outcome.result.chars().count() <= INDEX_MIN_CHARS {
        return outcome.clone();
    }
    indexed(outcome, calls)
}

/// `outcome` with its body replaced by a placeholder quoting its call's intent.
pub fn indexed(outcome: &ToolOutcome, calls: &HashMap<&str, &ToolCall>) -> ToolOutcome {
    let intent = calls.get(outcome.id.as_str()).and_then(|c| c.intent());
    ToolOutcome {
        result: placeholder(
            &outcome.id,
            &outcome.name,
            intent,
            outcome.result.chars().count(),
        ),
        ..outcome.clone()
    }
}

/// The text that stands in for an indexed tool result of `chars` characters.
pub fn placeholder(id: &str, tool: &str, intent: Option<&str>, chars: usize) -> String {
    let mut text = format!(
        "[what]: indexed_tool_result id={id} tool={tool} chars={chars}; the full body was moved out of the context and kept in the history index\n"
    );
    if let Some(intent) = intent {
        let intent: String = intent.chars().take(200).collect();
        text.push_str(&format!("[intent]: {intent}\n"));
    }
    text.push_str(&format!(
        "[how]: only if later reasoning truly needs the full original, call recall_indexed({{ id: \"{id}\" }}); otherwise do not"
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{InputSource, StopCause, Usage};
    use serde_json::json;

    fn m(turn: u64, step: u32) -> Meta {
        Meta::new(turn, step)
    }

    /// A tool-using step: output, one call, its result.
    fn tool_step(meta: Meta, id: &str, result: &str) -> Vec<AgentEvent> {
        vec![
            AgentEvent::Thought {
                text: format!("thinking {id}"),
                meta,
            },
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: id.into(),
                    name: "read_file".into(),
                    args: json!({"path": "a.rs", "_intent": format!("why {id}")}),
                }],
                meta,
            },
            AgentEvent::ToolResult {
                outcome: ToolOutcome {
                    id: id.into(),
                    name: "read_file".into(),
                    result: result.into(),
                    is_error: false,
                    display: None,
                },
                meta,
            },
            AgentEvent::AgentTrace {
                usage: Usage {
                    input: 1,
                    output: 1,
                    total: 2,
                    cached: None,
                },
                model: "m".into(),
                started_at: 0,
                ended_at: 0,
                meta,
            },
        ]
    }

    fn session(long: &str) -> Vec<AgentEvent> {
        let mut events = vec![AgentEvent::Input {
            images: Vec::new(),
            text: "go".into(),
            source: InputSource::User,
            meta: m(1, 1),
        }];
        events.extend(tool_step(m(1, 1), "call_1", long));
        events.extend(tool_step(m(1, 2), "call_2", long));
        events.extend(tool_step(m(1, 3), "call_3", long));
        events.push(AgentEvent::Output {
            text: "done".into(),
            meta: m(1, 4),
        });
        events
    }

    fn result_of<'a>(events: &'a [AgentEvent], id: &str) -> &'a str {
        events
            .iter()
            .find_map(|e| match e {
                AgentEvent::ToolResult { outcome, .. } if outcome.id == id => {
                    Some(outcome.result.as_str())
                }
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn cold_long_results_become_placeholders_quoting_the_intent() {
        let long = "x".repeat(101);
        let out = compress(&session(&long));
        let cold = result_of(&out, "call_1");
        assert!(
            cold.starts_with("[what]: indexed_tool_result id=call_1 tool=read_file"),
            "{cold}"
        );
        assert!(cold.contains("[intent]: why call_1"));
        assert!(cold.contains("recall_indexed({ id: \"call_1\" })"));
        assert!(
            result_of(&out, "call_2").starts_with("[what]: indexed"),
            "step 2 is cold: hot = steps 3 and 4"
        );
        assert_eq!(result_of(&out, "call_3"), long, "hot results stay verbatim");
    }

    #[test]
    fn short_and_error_results_and_arguments_are_never_indexed() {
        let exactly = "y".repeat(INDEX_MIN_CHARS);
        let out = compress(&session(&exactly));
        assert_eq!(result_of(&out, "call_1"), exactly);

        let mut events = session(&"z".repeat(500));
        if let AgentEvent::ToolResult { outcome, .. } = &mut events[3] {
            outcome.is_error = true;
        }
        let out = compress(&events);
        assert_eq!(result_of(&out, "call_1").len(), 500);
        let args = out.iter().find_map(|e| match e {
            AgentEvent::ToolCalls { calls, .. } => Some(calls[0].args.clone()),
            _ => None,
        });
        assert_eq!(args.unwrap()["path"], "a.rs");
    }

    #[test]
    fn cold_thoughts_and_all_traces_are_dropped_hot_thoughts_kept() {
        let out = compress(&session("r"));
        let thoughts: Vec<&str> = out
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Thought { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(thoughts, ["thinking call_3"]);
        assert!(
            !out.iter()
                .any(|e| matches!(e, AgentEvent::AgentTrace { .. }))
        );
    }

    #[test]
    fn log_order_is_kept_and_interrupt_stops_survive() {
        let mut events = session("r");
        events.push(AgentEvent::AgentStop {
            cause: StopCause::User,
            message: "user interrupted".into(),
            meta: m(1, 4),
        });
        events.push(AgentEvent::Input {
            images: Vec::new(),
            text: "next".into(),
            source: InputSource::User,
            meta: m(2, 1),
        });
        let out = compress(&events);
        let metas: Vec<Meta> = out.iter().map(AgentEvent::meta).collect();
        let mut sorted = metas.clone();
        sorted.sort();
        assert_eq!(metas, sorted);
        assert!(out.iter().any(|e| matches!(
            e,
            AgentEvent::AgentStop {
                cause: StopCause::User,
                ..
            }
        )));
    }
}
