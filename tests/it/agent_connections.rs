#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Real servers' connection faults against the mock: a connection closed
//! after each response (llama.cpp) costs no retry and no wait; when the
//! retries of a cut stream run out the partial answer is kept, marked as
//! cut, and the next request says so. (A cut retried with its partial
//! dropped is in `agent_retries.rs`, for every wire format.)

use crate::support;

use std::sync::Arc;

use light_agent::agent::Notice;
use light_agent::ai::{CUT_ANSWER_NOTE, HttpOptions, OpenAiAdaptor};
use light_agent::protocol::{AgentEvent, StopCause};
use support::agent_harness::Harness;
use support::{MockModel, OpenAiStream, Reply};
use tokio::sync::mpsc::UnboundedReceiver;

fn adaptor(mock: &MockModel) -> OpenAiAdaptor {
    OpenAiAdaptor::new(
        mock.openai_base_url(),
        None,
        "mock-model",
        HttpOptions::default(),
    )
    .unwrap()
}

async fn harness(replies: Vec<Reply>) -> Harness {
    Harness::start(replies, |mock| Arc::new(adaptor(mock))).await
}

fn notices(rx: &mut UnboundedReceiver<Notice>) -> Vec<Notice> {
    let mut out = Vec::new();
    while let Ok(notice) = rx.try_recv() {
        out.push(notice);
    }
    out
}

fn outputs(log: &[AgentEvent]) -> Vec<String> {
    log.iter()
        .filter_map(|e| match e {
            AgentEvent::Output { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_reused_connection_the_server_closed_is_resent_at_once_without_a_retry() {
    let h = harness(vec![
        Reply::openai_text("first"),
        Reply::openai_text("second"),
    ])
    .await;
    h.mock.close_reused_connections();
    let mut notice_rx = h.agent.subscribe_notices();
    for prompt in ["one", "two"] {
        let outcome = h.agent.prompt(prompt).await.unwrap();
        assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);
    }
    assert_eq!(
        notices(&mut notice_rx),
        [],
        "the resend is not one of the loop's retries"
    );
    assert_eq!(
        h.mock.dropped_on_reuse(),
        1,
        "the second call hit the dead connection"
    );
    assert_eq!(h.mock.request_count(), 2);
    let log = h.session.load_all().await.unwrap();
    assert_eq!(outputs(&log), ["first", "second"]);
}

#[tokio::test]
async fn a_server_closing_after_each_response_costs_the_turn_no_retry_notice() {
    let read = r#"{"path":"src/lib.rs","_intent":"read"}"#;
    let h = harness(vec![
        OpenAiStream::new()
            .tool_call("c1", "read_file", &[read])
            .into_reply(),
        Reply::openai_text("It returns 42."),
        Reply::openai_text("Still 42."),
    ])
    .await;
    h.mock.close_reused_connections();
    let mut notice_rx = h.agent.subscribe_notices();
    for prompt in ["what does answer return?", "sure?"] {
        let outcome = h.agent.prompt(prompt).await.unwrap();
        assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);
    }
    assert_eq!(notices(&mut notice_rx), [], "no retry, no wait");
    assert!(
        h.mock.dropped_on_reuse() >= 1,
        "a pooled connection was reused"
    );
    assert_eq!(h.mock.request_count(), 3);
}

#[tokio::test]
async fn when_retries_run_out_the_cut_answer_is_kept_and_the_next_request_says_it_was_cut() {
    let cut = || {
        OpenAiStream::new()
            .text("half of it")
            .into_reply()
            .cut_after(2)
    };
    let h = harness(vec![cut(), cut(), cut(), cut(), Reply::openai_text("ok")]).await;
    let outcome = h.agent.prompt("answer").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Llm);
    assert!(outcome.message.contains("cut off"), "{}", outcome.message);
    let log = h.session.load_all().await.unwrap();
    let kept = outputs(&log);
    assert_eq!(kept.len(), 1, "only the last attempt's partial: {kept:?}");
    assert!("half of it".starts_with(kept[0].as_str()) && !kept[0].is_empty());

    let outcome = h.agent.prompt("go on").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);
    let sent = h.mock.requests()[4].body["messages"].to_string();
    assert!(sent.contains(&kept[0]), "{sent}");
    let note = serde_json::to_string(CUT_ANSWER_NOTE).unwrap();
    assert!(sent.contains(note.trim_matches('"')), "{sent}");
}
