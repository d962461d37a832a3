#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The examples run as a user would run them.

use crate::support;

use std::path::PathBuf;
use std::process::Command;

use support::{MockModel, OpenAiStream, Reply};

/// `target/<profile>/examples/<name>`; `cargo test` builds examples first.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join(name);
    assert!(
        path.exists(),
        "{} is missing: plain `cargo test` builds it (or run `cargo build --examples`)",
        path.display()
    );
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn weather_example_runs_its_tool_against_the_mock() {
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call(
                "call_w",
                "weather",
                &[r#"{"city":"London","_intent":"user asked"}"#],
            )
            .into_reply(),
        Reply::openai_text("It is sunny in London."),
    ])
    .await;
    let url = mock.openai_base_url();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(example("weather"))
            .env("OPENAI_BASE_URL", url)
            .env("OPENAI_API_KEY", "sk-x")
            .env("MODEL", "mock-model")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("It is sunny in London.") && stdout.contains("turn ended: Done"),
        "{stdout}"
    );
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(sent.contains("London: sunny"), "{sent}");
    let tools: Vec<String> = mock.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        tools,
        [
            "recall_indexed",
            "recall_search",
            "tree",
            "grep",
            "read_file",
            "weather"
        ]
    );
}

#[test]
fn custom_session_example_round_trips() {
    let out = Command::new(example("custom_session")).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("\"type\":\"output\"") && stdout.contains("1 turns, 3 events"),
        "{stdout}"
    );
}
