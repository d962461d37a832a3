#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The Agent's three-step tool turn (tree → grep + read_file in parallel →
//! answer) against the Gemini and OpenAI Responses wire formats, with the
//! same expectations as `agent_loop.rs` has for Chat Completions.

use crate::support;

use std::sync::Arc;

use light_agent::ai::gemini::CallIds;
use light_agent::ai::{Adaptor, GeminiAdaptor, HttpOptions, ResponsesAdaptor};
use light_agent::protocol::{AgentEvent, StopCause};
use serde_json::{Value, json};
use support::agent_harness::{Harness, drain};
use support::child_env::{run, scrub};
use support::{GeminiStream, MockModel, Reply, ResponsesStream};

#[derive(Debug, Clone, Copy)]
enum Vendor {
    Gemini,
    Responses,
}

/// The three scripted steps of the turn in `vendor`'s wire format.
fn three_steps(vendor: Vendor) -> Vec<Reply> {
    match vendor {
        Vendor::Gemini => vec![
            GeminiStream::new()
                .text("Looking around.")
                .function_call("tree", json!({"_intent": "see the layout", "path": "."}))
                .usage(100, 10)
                .into_reply(),
            GeminiStream::new()
                .function_call(
                    "grep",
                    json!({"search_strs": ["fn main"], "_intent": "find main"}),
                )
                .function_call(
                    "read_file",
                    json!({"path": "src/lib.rs", "_intent": "read lib"}),
                )
                .usage(200, 20)
                .into_reply(),
            GeminiStream::new()
                .thought("Both found.")
                .text("main is in src/main.rs; answer() returns 42.")
                .usage(300, 30)
                .into_reply(),
        ],
        Vendor::Responses => vec![
            ResponsesStream::new()
                .text("Looking around.")
                .function_call(
                    "call_tree",
                    "tree",
                    &[r#"{"_intent":"see the layout","#, r#""path":"."}"#],
                )
                .usage(100, 10)
                .into_reply(),
            ResponsesStream::new()
                .reasoning("", Some("ENC-2"))
                .function_call(
                    "call_grep",
                    "grep",
                    &[r#"{"search_strs":["fn main"],"_intent":"find main"}"#],
                )
                .function_call(
                    "call_read",
                    "read_file",
                    &[r#"{"path":"src/lib.rs","_intent":"read lib"}"#],
                )
                .usage(200, 20)
                .into_reply(),
            ResponsesStream::new()
                .reasoning("Both found.", Some("ENC-3"))
                .text("main is in src/main.rs; answer() returns 42.")
                .usage(300, 30)
                .into_reply(),
        ],
    }
}

fn adaptor(vendor: Vendor, mock: &MockModel) -> Arc<dyn Adaptor> {
    match vendor {
        Vendor::Gemini => Arc::new(
            GeminiAdaptor::new(
                mock.url(),
                Some("key".into()),
                "gemini-2.5-pro",
                HttpOptions::default(),
            )
            .unwrap()
            .with_call_ids(CallIds::with_token("t")),
        ),
        Vendor::Responses => Arc::new(
            ResponsesAdaptor::new(
                mock.openai_base_url(),
                Some("sk-test".into()),
                "gpt-5",
                HttpOptions::default(),
            )
            .unwrap(),
        ),
    }
}

/// `(call id, result text)` of each tool result in a recorded request.
fn sent_results(vendor: Vendor, body: &Value) -> Vec<(String, String)> {
    match vendor {
        Vendor::Gemini => body["contents"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["parts"].as_array().unwrap().clone())
            .filter_map(|p| {
                let response = p.get("functionResponse")?;
                Some((
                    response["id"].as_str().unwrap().to_owned(),
                    response["response"]["output"].as_str().unwrap().to_owned(),
                ))
            })
            .collect(),
        Vendor::Responses => body["input"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "function_call_output")
            .map(|i| {
                (
                    i["call_id"].as_str().unwrap().to_owned(),
                    i["output"].as_str().unwrap().to_owned(),
                )
            })
            .collect(),
    }
}

/// Tool names offered in a recorded request.
fn sent_tools(vendor: Vendor, body: &Value) -> Vec<String> {
    let tools = match vendor {
        Vendor::Gemini => &body["tools"][0]["functionDeclarations"],
        Vendor::Responses => &body["tools"],
    };
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn three_step_turn(vendor: Vendor) {
    let Harness {
        agent,
        mock,
        session,
        events: mut rx,
        dir: _dir,
    } = Harness::start(three_steps(vendor), |mock| adaptor(vendor, mock)).await;

    let outcome = agent
        .prompt("Where is main and what does answer return?")
        .await
        .unwrap();
    assert_eq!(
        outcome.cause,
        StopCause::Done,
        "{vendor:?}: {}",
        outcome.message
    );

    let events = drain(&mut rx);
    let canonical: Vec<AgentEvent> = events
        .iter()
        .filter(|e| !e.is_transient())
        .cloned()
        .collect();
    let kinds: Vec<&str> = canonical.iter().map(AgentEvent::kind).collect();
    assert_eq!(
        kinds,
        [
            "input",
            "output",
            "tool_calls",
            "agent_trace",
            "tool_result", //
            "tool_calls",
            "agent_trace",
            "tool_result",
            "tool_result", //
            "thought",
            "output",
            "agent_trace",
            "agent_stop",
        ],
        "{vendor:?}"
    );
    let steps: Vec<u32> = canonical.iter().map(|e| e.meta().step).collect();
    assert_eq!(steps, [1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3], "{vendor:?}");
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::OutputDelta { text, meta } if meta.step == 3 => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "main is in src/main.rs; answer() returns 42.");
    let stored = session.load_all().await.unwrap();
    assert_eq!(
        stored, canonical,
        "{vendor:?}: every canonical event is persisted in order"
    );

    let call_ids: Vec<String> = canonical
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCalls { calls, .. } => Some(calls.iter().map(|c| c.id.clone())),
            _ => None,
        })
        .flatten()
        .collect();
    let unique: std::collections::HashSet<&String> = call_ids.iter().collect();
    assert_eq!(unique.len(), 3, "{vendor:?}: {call_ids:?}");

    let requests = mock.requests();
    assert_eq!(requests.len(), 3);
    let results = sent_results(vendor, &requests[2].body);
    let ids: Vec<String> = results.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(ids, call_ids, "{vendor:?}: results in call order");
    assert!(results[1].1.contains("src/main.rs:1"), "{}", results[1].1);
    assert!(results[2].1.contains("42"), "{}", results[2].1);
    assert_eq!(
        sent_tools(vendor, &requests[0].body),
        [
            "recall_indexed",
            "recall_search",
            "tree",
            "grep",
            "read_file"
        ]
    );
    if let Vendor::Responses = vendor {
        let reasoning: Vec<&Value> = requests[2].body["input"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "reasoning")
            .collect();
        assert_eq!(reasoning.len(), 1, "the tool step's reasoning is echoed");
        assert_eq!(reasoning[0]["encrypted_content"], "ENC-2");
    }
}

#[tokio::test]
async fn a_three_step_turn_runs_tools_in_parallel_over_gemini() {
    three_step_turn(Vendor::Gemini).await;
}

#[tokio::test]
async fn a_three_step_turn_runs_tools_in_parallel_over_the_responses_api() {
    three_step_turn(Vendor::Responses).await;
}

/// `light-agent exec` with a config file whose provider has `kind`.
async fn exec_with_kind(kind: &str, base_url: &str, model: &str, reply: Reply) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&repo).unwrap();
    let mock = MockModel::start([reply]).await;
    let base = base_url.replace("{mock}", &mock.url());
    std::fs::write(
        home.join("config.toml"),
        format!(
            "provider = \"vendor\"\nmodel = \"{model}\"\n\n[providers.vendor]\nkind = \"{kind}\"\nbase_url = \"{base}\"\napi_key = \"test-key\"\n"
        ),
    )
    .unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&repo).env("LIGHT_AGENT_HOME", &home);
    scrub(&mut cmd);
    cmd.args(["exec", "What is the answer?"])
        .stdin(std::process::Stdio::null());
    let output = run(cmd).await;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{kind}: {stderr}");
    let path = mock.requests()[0].path.clone();
    (
        String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        path,
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_speaks_both_new_kinds_from_the_config_file() {
    let (answer, path) = exec_with_kind(
        "gemini",
        "{mock}/v1beta",
        "gemini-2.5-flash",
        GeminiStream::new().text("The answer is 42.").into_reply(),
    )
    .await;
    assert_eq!(answer, "The answer is 42.");
    assert_eq!(
        path,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    let (answer, path) = exec_with_kind(
        "openai-responses",
        "{mock}/v1",
        "gpt-5",
        ResponsesStream::new().text("Still 42.").into_reply(),
    )
    .await;
    assert_eq!(answer, "Still 42.");
    assert_eq!(path, "/v1/responses");
}
