#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Tool-call ids a model repeats within a step or reuses from an earlier
//! step are made unique when recorded: the log, the next request and
//! recall all use the unique id.

use crate::support;

use std::collections::HashSet;
use std::sync::Arc;

use light_agent::ai::{HttpOptions, OpenAiAdaptor};
use light_agent::protocol::{AgentEvent, StopCause};
use serde_json::Value;
use support::agent_harness::Harness;
use support::{OpenAiStream, Reply};

async fn harness(replies: Vec<Reply>) -> Harness {
    Harness::start(replies, |mock| {
        Arc::new(
            OpenAiAdaptor::new(
                mock.openai_base_url(),
                None,
                "mock-model",
                HttpOptions::default(),
            )
            .unwrap(),
        )
    })
    .await
}

fn read(path: &str) -> String {
    format!(r#"{{"path":"{path}","_intent":"read {path}"}}"#)
}

/// Every `tool_call_id` of the tool messages and of the assistant's calls
/// in a recorded OpenAI request.
fn request_ids(body: &Value) -> (Vec<String>, Vec<String>) {
    let messages = body["messages"].as_array().unwrap();
    let calls = messages
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    let results = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["tool_call_id"].as_str().unwrap().to_owned())
        .collect();
    (calls, results)
}

#[tokio::test]
async fn repeated_and_reused_call_ids_are_made_unique_in_the_log_requests_and_recall() {
    let step1 = OpenAiStream::new()
        .tool_call("call_0", "read_file", &[&read("src/main.rs")])
        .tool_call("call_0", "read_file", &[&read("src/lib.rs")])
        .into_reply();
    let step2 = OpenAiStream::new()
        .tool_call("call_0", "read_file", &[&read("README.md")])
        .tool_call(
            "",
            "recall_indexed",
            &[r#"{"id":"call_0-2","_intent":"again"}"#],
        )
        .into_reply();
    let h = harness(vec![step1, step2, Reply::openai_text("done")]).await;
    let outcome = h.agent.prompt("read them").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);

    let log = h.session.load_all().await.unwrap();
    let call_ids: Vec<String> = log
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCalls { calls, .. } => Some(calls.iter().map(|c| c.id.clone())),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(call_ids[..3], ["call_0", "call_0-2", "call_0-3"]);
    let recall_id = call_ids[3].clone();
    assert_eq!(
        call_ids.iter().collect::<HashSet<_>>().len(),
        4,
        "{call_ids:?}"
    );
    let results: Vec<(String, String)> = log
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult { outcome, .. } => {
                Some((outcome.id.clone(), outcome.result.clone()))
            }
            _ => None,
        })
        .collect();
    let result_ids: HashSet<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(result_ids, call_ids.iter().map(String::as_str).collect());
    let result_of = |id: &str| &results.iter().find(|(i, _)| i == id).unwrap().1;
    assert!(result_of("call_0").contains("fn main"));
    assert!(result_of("call_0-2").contains("42"));
    assert!(
        result_of(&recall_id).contains("42"),
        "recall finds the second call's result by its new id: {}",
        result_of(&recall_id)
    );

    // Each later request names every call and result by its unique id.
    let requests = h.mock.requests();
    let (calls, results) = request_ids(&requests[2].body);
    assert_eq!(calls, call_ids);
    assert_eq!(results, call_ids);
    let (calls, _) = request_ids(&requests[1].body);
    assert_eq!(calls, ["call_0", "call_0-2"]);
}

#[tokio::test]
async fn an_id_reused_in_a_later_turn_is_renamed_too() {
    let step = |path: &str| {
        OpenAiStream::new()
            .tool_call("call_1", "read_file", &[&read(path)])
            .into_reply()
    };
    let h = harness(vec![
        step("src/main.rs"),
        Reply::openai_text("first"),
        step("src/lib.rs"),
        Reply::openai_text("second"),
    ])
    .await;
    h.agent.prompt("one").await.unwrap();
    h.agent.prompt("two").await.unwrap();
    let (calls, results) = request_ids(&h.mock.requests()[3].body);
    assert_eq!(calls, ["call_1", "call_1-2"]);
    assert_eq!(results, ["call_1", "call_1-2"]);
}
