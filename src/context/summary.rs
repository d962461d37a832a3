//! Folding old steps into a history note, in requests that fit the window.
//!
//! The summariser sees the previous note (if any) and the cold steps in
//! their compressed form, rendered as XML. When that is more than one
//! request can hold, the cold steps are folded in slices, oldest first, each
//! slice's note becoming the next one's previous note, so the newest state
//! comes last. The note is held to a share of the window, and the runtime
//! appends a bounded index of folded calls ([`super::folded`]): every folded
//! result stays recallable by id from the log.

use std::fmt::Write as _;

use crate::ai::{Adaptor, TextRequest};
use crate::protocol::{AgentEvent, Meta};

use super::compress::{self, hot_boundary};
use super::estimate;
use super::{ContextError, folded, pinned};

/// The system prompt of every summary request.
const SUMMARY_PROMPT: &str = include_str!("../../assets/prompts/summary.md");

/// How large a summary request and its result may be, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummaryLimits {
    /// The largest request sent (system prompt, previous note and slice).
    pub request_tokens: u64,
    /// The largest note kept (and the room left for the answer).
    pub note_tokens: u64,
    /// The budget of the folded-call index.
    pub index_tokens: u64,
}

/// A summary and the window that replaces the old one.
#[derive(Debug, Clone, PartialEq)]
pub struct Folded {
    /// The `agent_summary` event to commit.
    pub summary: AgentEvent,
    /// The summary followed by the steps it left out.
    pub window: Vec<AgentEvent>,
    /// How many summary requests were sent (one per slice).
    pub requests: usize,
}

/// Summarises every step of `window` but the hot ones. `None` when there is
/// nothing cold to fold.
pub async fn summarise(
    window: &[AgentEvent],
    adaptor: &dyn Adaptor,
    now: Meta,
    limits: SummaryLimits,
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
    let (previous, previous_kept) = previous.map(pinned::split_off).unwrap_or(("", ""));
    let previous = folded::split(previous);

    let mut note = folded::shorten(previous.note.trim(), limits.note_tokens);
    let slices = slices(&compress::compress(&cold), slice_budget(limits));
    let requests = slices.len();
    for slice in slices {
        let mut prompt = String::new();
        if !note.trim().is_empty() {
            let _ = writeln!(
                prompt,
                "<previousHistoryNote>\n{}\n</previousHistoryNote>",
                note.trim()
            );
        }
        prompt.push_str(&slice);
        let _ = write!(
            prompt,
            "\n<noteLimit>Write at most {} characters.</noteLimit>",
            limits.note_tokens * 3
        );
        let response = adaptor
            .generate_text(TextRequest {
                system_prompt: SUMMARY_PROMPT.to_string(),
                prompt,
            })
            .await?;
        note = folded::shorten(response.text.trim(), limits.note_tokens);
    }

    let mut entries = folded::entries(&cold);
    entries.extend(previous.entries.iter().map(|e| e.to_string()));
    let mut text = folded::render(&note, &entries, previous.omitted, limits.index_tokens);
    text.push_str(&pinned::section(window, hot_from, previous_kept));
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
        requests,
    }))
}

/// Tokens of XML one slice may hold: the request minus the system prompt,
/// the previous note, the limit line and the envelope.
fn slice_budget(limits: SummaryLimits) -> u64 {
    limits
        .request_tokens
        .saturating_sub(estimate::text_tokens(SUMMARY_PROMPT))
        .saturating_sub(limits.note_tokens)
        .saturating_sub(96)
        .max(64)
}

/// The events rendered as XML, step by step, in slices of at most
/// `budget` tokens each, oldest first; a step larger than half a slice (the
/// newest cold steps travel with their results whole) is shortened to that,
/// so one long result does not cost a request of its own.
fn slices(events: &[AgentEvent], budget: u64) -> Vec<String> {
    let step_budget = (budget / 2).max(64);
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut current_tokens = 0;
    for step in compress::steps(events) {
        let mut xml = events_to_xml_of(step.iter().copied());
        let mut tokens = estimate::text_tokens(&xml);
        if tokens > step_budget {
            xml = folded::shorten(&xml, step_budget);
            tokens = estimate::text_tokens(&xml);
        }
        if current_tokens + tokens > budget && !current.is_empty() {
            out.push(std::mem::take(&mut current));
            current_tokens = 0;
        }
        current.push_str(&xml);
        current_tokens += tokens;
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Renders events as the XML the summariser reads: turns, then steps.
pub fn events_to_xml(events: &[AgentEvent]) -> String {
    events_to_xml_of(events.iter())
}

fn events_to_xml_of<'a>(events: impl IntoIterator<Item = &'a AgentEvent>) -> String {
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
        AgentEvent::Input { text, images, .. } => {
            // Images reach the summary as their placeholders only.
            let text = crate::protocol::text_with_images(text, images);
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
    use crate::protocol::{InputSource, ToolCall, ToolOutcome};

    #[test]
    fn a_prompt_image_reaches_the_summary_as_its_placeholder() {
        let input = AgentEvent::Input {
            text: "what is this?".into(),
            source: InputSource::User,
            meta: Meta::new(1, 1),
            images: vec![crate::protocol::ImageRef {
                hash: "ab".into(),
                media_type: "image/png".into(),
                name: "shot.png".into(),
                bytes: 12_000,
            }],
        };
        let xml = events_to_xml_of([&input]);
        assert!(
            xml.contains("<userInput>\nwhat is this?\n[image shot.png, 12 KB]\n</userInput>"),
            "{xml}"
        );
    }

    const LIMITS: SummaryLimits = SummaryLimits {
        request_tokens: 100_000,
        note_tokens: 2_000,
        index_tokens: 1_000,
    };

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
                images: Vec::new(),
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
                    display: None,
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
        let folded = summarise(&window, &adaptor, Meta::new(3, 1), LIMITS)
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
            LIMITS,
        )
        .await
        .unwrap()
        .unwrap();
        let mut window = first.window.clone();
        window.extend(turn(3, "call_c"));
        let second = summarise(&window, &adaptor, Meta::new(4, 1), LIMITS)
            .await
            .unwrap()
            .unwrap();

        let prompt = &prompts.lock().unwrap()[1];
        assert!(prompt.contains(
            "<previousHistoryNote>\n<historyNote>note 1</historyNote>\n</previousHistoryNote>"
        ));
        assert!(
            !prompt.contains(folded::MARKER),
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
        assert_eq!(text.matches(folded::MARKER).count(), 1);
        assert_eq!(*covers_through, Meta::new(2, 2));
        assert_eq!(
            &second.window[1..],
            &window[window.len() - 4..],
            "turn 3 stays verbatim"
        );
    }

    /// Step `step` of turn 1: a grep call and its result.
    fn step(step: u32) -> Vec<AgentEvent> {
        let meta = Meta::new(1, step);
        let id = format!("call_{step}");
        vec![
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: id.clone(),
                    name: "grep".into(),
                    args: json!({}),
                }],
                meta,
            },
            AgentEvent::ToolResult {
                outcome: ToolOutcome {
                    id,
                    name: "grep".into(),
                    result: "r".repeat(300),
                    is_error: false,
                    display: None,
                },
                meta,
            },
        ]
    }

    #[tokio::test]
    async fn the_request_and_the_plan_survive_every_summary_word_for_word() {
        let adaptor = NoteTaker::default();
        let prompts = adaptor.prompts.clone();
        let meta = Meta::new(1, 1);
        let mut window = vec![
            AgentEvent::Input {
                images: Vec::new(),
                text: "rename foo to bar everywhere".into(),
                source: InputSource::User,
                meta,
            },
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: "plan_1".into(),
                    name: "update_plan".into(),
                    args: json!({"plan": [
                        {"step": "find callers", "status": "completed"},
                        {"step": "rename", "status": "in_progress"}]}),
                }],
                meta,
            },
            AgentEvent::ToolResult {
                outcome: ToolOutcome {
                    id: "plan_1".into(),
                    name: "update_plan".into(),
                    result: "Plan updated.".into(),
                    is_error: false,
                    display: None,
                },
                meta,
            },
        ];
        for n in 2..6 {
            window.extend(step(n));
        }
        let kept = "<userRequest>\nrename foo to bar everywhere\n</userRequest>\n<plan>\n[x] find callers\n[>] rename\n</plan>";
        let first = summarise(&window, &adaptor, Meta::new(1, 6), LIMITS)
            .await
            .unwrap()
            .unwrap();
        let AgentEvent::AgentSummary { text, .. } = &first.summary else {
            panic!()
        };
        assert!(text.ends_with(kept), "{text}");

        let mut window = first.window.clone();
        for n in 6..10 {
            window.extend(step(n));
        }
        let second = summarise(&window, &adaptor, Meta::new(1, 10), LIMITS)
            .await
            .unwrap()
            .unwrap();
        let AgentEvent::AgentSummary { text, .. } = &second.summary else {
            panic!()
        };
        assert!(text.ends_with(kept), "{text}");
        assert_eq!(text.matches(pinned::MARKER).count(), 1);
        assert!(
            prompts
                .lock()
                .unwrap()
                .iter()
                .all(|p| !p.contains(pinned::MARKER)),
            "the summariser never rewrites the kept section"
        );
    }

    #[tokio::test]
    async fn nothing_cold_means_no_model_call_and_no_summary() {
        let adaptor = NoteTaker::default();
        let window = vec![
            AgentEvent::Input {
                images: Vec::new(),
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
            summarise(&window, &adaptor, Meta::new(1, 3), LIMITS)
                .await
                .unwrap(),
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

    #[tokio::test]
    async fn a_long_stretch_is_folded_in_slices_that_each_fit_newest_last() {
        let adaptor = NoteTaker::default();
        let prompts = adaptor.prompts.clone();
        let window: Vec<AgentEvent> = (1..=60)
            .flat_map(|t| turn(t, &format!("call_{t}")))
            .collect();
        let limits = SummaryLimits {
            request_tokens: 2_000,
            note_tokens: 200,
            index_tokens: 300,
        };
        let folded = summarise(&window, &adaptor, Meta::new(61, 1), limits)
            .await
            .unwrap()
            .unwrap();
        let prompts = prompts.lock().unwrap();
        assert!(prompts.len() > 3, "{} slices", prompts.len());
        assert_eq!(folded.requests, prompts.len());
        for prompt in prompts.iter() {
            let tokens = estimate::text_tokens(prompt) + estimate::text_tokens(SUMMARY_PROMPT);
            assert!(tokens <= limits.request_tokens, "{tokens}");
        }
        // Each slice reads the note of the one before; the last holds the newest steps.
        assert!(prompts[1].contains("<previousHistoryNote>\n<historyNote>note 1</historyNote>"));
        assert!(prompts.last().unwrap().contains("question 59"));
        assert!(!prompts[0].contains("question 59"));
        let AgentEvent::AgentSummary { text, .. } = &folded.summary else {
            panic!()
        };
        assert!(text.starts_with(&format!(
            "<historyNote>note {}</historyNote>",
            prompts.len()
        )));
        assert!(estimate::text_tokens(text) <= limits.note_tokens + limits.index_tokens + 20);
        assert!(
            text.contains("id=call_59 "),
            "the newest folded call is listed"
        );
    }
}
