//! Folding old steps into a history note.
//!
//! The summariser sees the previous note (if any) and the cold steps in
//! their compressed form, rendered as XML. The runtime then appends the list
//! of every tool call folded so far, with its intent, so `recall_indexed`
//! keeps working on results that left the context.

use std::fmt::Write as _;

use crate::ai::{Adaptor, TextRequest};
use crate::protocol::{AgentEvent, Meta, ToolCall};

use super::ContextError;
use super::compress::{self, hot_boundary};

/// Marks the runtime-made list of folded calls inside a summary's text.
pub const FOLDED_CALLS_MARKER: &str =
    "[folded tool calls: recall any of them with recall_indexed({ id })]";

/// A summary and the window that replaces the old one.
#[derive(Debug, Clone, PartialEq)]
pub struct Folded {
    /// The `agent_summary` event to commit.
    pub summary: AgentEvent,
    /// The summary followed by the steps it left out.
    pub window: Vec<AgentEvent>,
}

/// Summarises every step of `window` but the hot ones. `None` when there is
/// nothing cold to fold.
pub async fn summarise(
    window: &[AgentEvent],
    adaptor: &dyn Adaptor,
    now: Meta,
) -> Result<Option<Folded>, ContextError> {
    let hot_from = hot_boundary(window);
    let previous = window.iter().rev().find_map(|e| match e {
        AgentEvent::AgentSummary { text, .. } => Some(text.as_str()),
        _ => None,
    });
    let cold: Vec<AgentEvent> = window[..hot_from]
        .iter()
        .filter(|e| !matches!(e, AgentEvent::AgentSummary { .. }))
        .cloned()
        .collect();
    let Some(covers_through) = cold.last().map(AgentEvent::meta) else {
        return Ok(None);
    };

    let (previous_note, previous_calls) = match previous {
        Some(text) => split_folded_calls(text),
        None => ("", ""),
    };
    let mut prompt = String::new();
    if !previous_note.trim().is_empty() {
        let _ = writeln!(
            prompt,
            "<previousHistoryNote>\n{}\n</previousHistoryNote>",
            previous_note.trim()
        );
    }
    prompt.push_str(&events_to_xml(&compress::compress(&cold)));
    let response = adaptor
        .generate_text(TextRequest {
            system_prompt: include_str!("../../assets/prompts/summary.md").to_string(),
            prompt,
        })
        .await?;

    let mut text = response.text.trim().to_string();
    let folded = folded_calls(&cold);
    if !previous_calls.trim().is_empty() || !folded.is_empty() {
        let _ = write!(text, "\n\n{FOLDED_CALLS_MARKER}\n");
        if !previous_calls.trim().is_empty() {
            let _ = writeln!(text, "{}", previous_calls.trim());
        }
        text.push_str(&folded);
    }
    let summary = AgentEvent::AgentSummary {
        text,
        covers_through,
        meta: now,
    };
    let mut new_window = vec![summary.clone()];
    new_window.extend(
        window[hot_from..]
            .iter()
            .filter(|e| !matches!(e, AgentEvent::AgentSummary { .. }))
            .cloned(),
    );
    Ok(Some(Folded {
        summary,
        window: new_window,
    }))
}

/// Splits a summary's text into the model's note and the runtime's list of
/// folded calls.
pub fn split_folded_calls(text: &str) -> (&str, &str) {
    match text.find(FOLDED_CALLS_MARKER) {
        Some(at) => (&text[..at], &text[at + FOLDED_CALLS_MARKER.len()..]),
        None => (text, ""),
    }
}

fn folded_calls(events: &[AgentEvent]) -> String {
    let mut out = String::new();
    for call in events.iter().flat_map(calls_of) {
        let _ = write!(out, "- id={} tool={}", call.id, call.name);
        if let Some(intent) = call.intent() {
            let _ = write!(out, " intent: {intent}");
        }
        out.push('\n');
    }
    out
}

fn calls_of(event: &AgentEvent) -> &[ToolCall] {
    match event {
        AgentEvent::ToolCalls { calls, .. } => calls,
        _ => &[],
    }
}

/// Renders events as the XML the summariser reads: turns, then steps.
pub fn events_to_xml(events: &[AgentEvent]) -> String {
    let mut out = String::new();
    let mut turn: Option<u64> = None;
    let mut step: Option<u32> = None;
    for event in events {
        let meta = event.meta();
        if turn != Some(meta.turn) {
            if step.take().is_some() {
                out.push_str("</step>\n");
            }
            if turn.is_some() {
                out.push_str("</turn>\n");
            }
            let _ = writeln!(out, "<turn index=\"{}\">", meta.turn);
            turn = Some(meta.turn);
        }
        if step != Some(meta.step) {
            if step.is_some() {
                out.push_str("</step>\n");
            }
            let _ = writeln!(out, "<step index=\"{}\">", meta.step);
            step = Some(meta.step);
        }
        render_event(&mut out, event);
    }
    if step.is_some() {
        out.push_str("</step>\n");
    }
    if turn.is_some() {
        out.push_str("</turn>\n");
    }
    out
}

fn render_event(out: &mut String, event: &AgentEvent) {
    match event {
        AgentEvent::Input { text, .. } => {
            let _ = writeln!(out, "<userInput>\n{text}\n</userInput>");
        }
        AgentEvent::Thought { text, .. } => {
            let _ = writeln!(out, "<assistantThought>\n{text}\n</assistantThought>");
        }
        AgentEvent::Output { text, .. } => {
            let _ = writeln!(out, "<assistantOutput>\n{text}\n</assistantOutput>");
        }
        AgentEvent::ToolCalls { calls, .. } => {
            for call in calls {
                let _ = writeln!(
                    out,
                    "<toolCall id=\"{}\" name=\"{}\">\n<intent>{}</intent>\n<arguments>{}</arguments>\n</toolCall>",
                    call.id,
                    call.name,
                    call.intent().unwrap_or(""),
                    call.args
                );
            }
        }
        AgentEvent::ToolResult { outcome, .. } => {
            let _ = writeln!(
                out,
                "<toolResult id=\"{}\" isError=\"{}\">\n{}\n</toolResult>",
                outcome.id, outcome.is_error, outcome.result
            );
        }
        AgentEvent::AgentStop { cause, message, .. } => {
            let _ = writeln!(
                out,
                "<turnStopped cause=\"{cause:?}\">{message}</turnStopped>"
            );
        }
        AgentEvent::ThoughtDelta { .. }
        | AgentEvent::OutputDelta { .. }
        | AgentEvent::AgentTrace { .. }
        | AgentEvent::AgentSummary { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use futures::FutureExt;
    use futures::future::BoxFuture;
    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::ai::{AiError, EventStream, StreamRequest, TextResponse};
    use crate::protocol::{InputSource, ToolOutcome};

    /// Answers every summary request with a numbered note and records prompts.
    #[derive(Default)]
    struct NoteTaker {
        prompts: Arc<Mutex<Vec<String>>>,
    }

    impl Adaptor for NoteTaker {
        fn stream(&self, _: StreamRequest, _: CancellationToken) -> EventStream {
            Box::pin(futures::stream::empty())
        }
        fn generate_text(
            &self,
            req: TextRequest,
        ) -> BoxFuture<'static, Result<TextResponse, AiError>> {
            let mut prompts = self.prompts.lock().unwrap();
            prompts.push(req.prompt);
            let text = format!("<historyNote>note {}</historyNote>", prompts.len());
            async move {
                Ok(TextResponse {
                    text,
                    usage: Default::default(),
                })
            }
            .boxed()
        }
        fn model(&self) -> &str {
            "note-taker"
        }
    }

    fn turn(turn: u64, id: &str) -> Vec<AgentEvent> {
        let m1 = Meta::new(turn, 1);
        let m2 = Meta::new(turn, 2);
        vec![
            AgentEvent::Input {
                text: format!("question {turn}"),
                source: InputSource::User,
                meta: m1,
            },
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: id.into(),
                    name: "grep".into(),
                    args: json!({"_intent": format!("find {id}")}),
                }],
                meta: m1,
            },
            AgentEvent::ToolResult {
                outcome: ToolOutcome {
                    id: id.into(),
                    name: "grep".into(),
                    result: "r".repeat(300),
                    is_error: false,
                },
                meta: m1,
            },
            AgentEvent::Output {
                text: format!("answer {turn}"),
                meta: m2,
            },
        ]
    }

    #[tokio::test]
    async fn folds_cold_steps_and_lists_their_calls_for_recall() {
        let adaptor = NoteTaker::default();
        let window: Vec<AgentEvent> = [turn(1, "call_a"), turn(2, "call_b")].concat();
        let folded = summarise(&window, &adaptor, Meta::new(3, 1))
            .await
            .unwrap()
            .unwrap();

        let AgentEvent::AgentSummary {
            text,
            covers_through,
            meta,
        } = &folded.summary
        else {
            panic!()
        };
        assert_eq!(
            *covers_through,
            Meta::new(1, 2),
            "the two steps of turn 2 are hot"
        );
        assert_eq!(*meta, Meta::new(3, 1));
        assert!(text.starts_with("<historyNote>note 1</historyNote>"));
        assert!(text.contains("- id=call_a tool=grep intent: find call_a"));
        assert!(!text.contains("call_b"), "call_b is in a hot step");
        assert_eq!(folded.window[0], folded.summary);
        assert_eq!(&folded.window[1..], &window[4..]);
    }

    #[tokio::test]
    async fn a_second_summary_reads_the_first_and_keeps_its_folded_calls() {
        let adaptor = NoteTaker::default();
        let prompts = adaptor.prompts.clone();
        let first = summarise(
            &[turn(1, "call_a"), turn(2, "call_b")].concat(),
            &adaptor,
            Meta::new(3, 1),
        )
        .await
        .unwrap()
        .unwrap();
        let mut window = first.window.clone();
        window.extend(turn(3, "call_c"));
        let second = summarise(&window, &adaptor, Meta::new(4, 1))
            .await
            .unwrap()
            .unwrap();

        let prompt = &prompts.lock().unwrap()[1];
        assert!(prompt.contains(
            "<previousHistoryNote>\n<historyNote>note 1</historyNote>\n</previousHistoryNote>"
        ));
        assert!(
            !prompt.contains(FOLDED_CALLS_MARKER),
            "the runtime list is kept by the runtime"
        );
        let AgentEvent::AgentSummary {
            text,
            covers_through,
            ..
        } = &second.summary
        else {
            panic!()
        };
        assert!(
            text.contains("id=call_a") && text.contains("id=call_b"),
            "{text}"
        );
        assert_eq!(text.matches(FOLDED_CALLS_MARKER).count(), 1);
        assert_eq!(*covers_through, Meta::new(2, 2));
        assert_eq!(
            &second.window[1..],
            &window[window.len() - 4..],
            "turn 3 stays verbatim"
        );
    }

    #[tokio::test]
    async fn nothing_cold_means_no_model_call_and_no_summary() {
        let adaptor = NoteTaker::default();
        let window = vec![
            AgentEvent::Input {
                text: "hi".into(),
                source: InputSource::User,
                meta: Meta::new(1, 1),
            },
            AgentEvent::Output {
                text: "yo".into(),
                meta: Meta::new(1, 2),
            },
        ];
        assert_eq!(
            summarise(&window, &adaptor, Meta::new(1, 3)).await.unwrap(),
            None
        );
        assert!(adaptor.prompts.lock().unwrap().is_empty());
    }

    #[test]
    fn xml_groups_events_by_turn_and_step() {
        let xml = events_to_xml(&turn(7, "c"));
        assert!(xml.starts_with(
            "<turn index=\"7\">\n<step index=\"1\">\n<userInput>\nquestion 7\n</userInput>"
        ));
        assert!(xml.contains("</step>\n<step index=\"2\">\n<assistantOutput>"));
        assert!(xml.ends_with("</step>\n</turn>\n"));
    }
}
