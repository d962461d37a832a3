#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Conformance with the official ACP client: `@agentclientprotocol/sdk`,
//! pinned, installed once with npm into `target/` and reused, drives
//! `light-agent acp` through `acp_sdk/client.mjs` (one scenario a run; the
//! script prints what the client saw as JSON) against the mock model.
//!
//! Without npm each test is skipped, unless `LIGHT_AGENT_REQUIRE_NPM=1`
//! (`support::npm`).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::child_env::{Workspace, run, scrub};
use support::{MockModel, OpenAiStream, Reply};

const PACKAGE: &str = "@agentclientprotocol/sdk";
const VERSION: &str = "2.4.0";

/// The SDK's package folder, or `None` when the test is skipped.
async fn sdk() -> Option<PathBuf> {
    support::npm::package("npm-acp", PACKAGE, VERSION).await
}

/// Runs the SDK client through `scenario` against `light-agent acp` on the
/// mock; returns what it saw.
async fn drive(sdk: &Path, f: &Workspace, mock: &MockModel, scenario: &str) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/acp_sdk/client.mjs");
    let mut cmd = Command::new("node");
    cmd.arg(script)
        .arg(sdk)
        .arg(scenario)
        .arg(&f.repo)
        .arg(env!("CARGO_BIN_EXE_light-agent"))
        .args(["acp", "--base-url", &mock.openai_base_url()])
        .args(["--model", "mock-model"])
        .current_dir(&f.repo)
        .env("LIGHT_AGENT_HOME", &f.home)
        .stdin(Stdio::null());
    scrub(&mut cmd);
    cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
    let out = run(cmd).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the SDK client failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(seen["exit"], 0, "light-agent acp exits 0 when stdin closes");
    seen
}

fn of_kind<'a>(seen: &'a Value, kind: &str) -> Vec<&'a Value> {
    seen["updates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .collect()
}

/// How long call `id` ran as the client saw it: from its `in_progress`
/// update to its result (ms).
fn run_ms(seen: &Value, id: &str) -> f64 {
    let at = |status: &str| {
        let updates = seen["updates"].as_array().unwrap();
        let i = updates
            .iter()
            .position(|u| u["toolCallId"] == id && u["status"] == status)
            .unwrap();
        seen["times"][i].as_f64().unwrap()
    };
    at("completed") - at("in_progress")
}

fn text_of(seen: &Value, kind: &str) -> String {
    of_kind(seen, kind)
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sdk_client_streams_a_prompt_to_end_turn_and_loads_it_back() {
    let Some(sdk) = sdk().await else { return };
    let f = Workspace::new("fn main() {}\n");
    let args = json!({"path": "src/main.rs", "start_line": 1}).to_string();
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "read_file", &[&args])
            .into_reply(),
        OpenAiStream::new()
            .text("hello ")
            .text("editor")
            .into_reply(),
    ])
    .await;
    let seen = drive(&sdk, &f, &mock, "prompt").await;
    assert_eq!(seen["init"]["agentCapabilities"]["loadSession"], true);
    assert_eq!(seen["answer"]["stopReason"], "end_turn", "{seen}");
    assert_eq!(text_of(&seen, "agent_message_chunk"), "hello editor");
    let call = of_kind(&seen, "tool_call")[0];
    assert_eq!(call["kind"], "read");
    assert_eq!(
        call["locations"],
        json!([{"path": std::fs::canonicalize(&f.repo).unwrap().join("src/main.rs"), "line": 1}])
    );
    let statuses: Vec<&Value> = of_kind(&seen, "tool_call_update")
        .iter()
        .map(|u| &u["status"])
        .collect();
    assert_eq!(statuses, [&json!("in_progress"), &json!("completed")]);
    assert_eq!(
        of_kind(&seen, "available_commands_update")[0]["availableCommands"][0]["name"],
        "compact"
    );

    // Measured, never asserted (docs/PERFORMANCE.md).
    eprintln!("read_file from disk: {:.1} ms", run_ms(&seen, "call_1"));

    let session = seen["session"]["sessionId"].as_str().unwrap();
    let loaded = drive(&sdk, &f, &mock, &format!("load:{session}")).await;
    assert_eq!(text_of(&loaded, "user_message_chunk"), "say hello");
    assert_eq!(text_of(&loaded, "agent_message_chunk"), "hello editor");
    assert_eq!(of_kind(&loaded, "tool_call")[0]["kind"], "read");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sdk_client_approves_an_edit_and_rejects_another() {
    let Some(sdk) = sdk().await else { return };
    for (scenario, expected) in [("edit-allow", "new"), ("edit-reject", "old")] {
        let f = Workspace::new("fn main() {\n    println!(\"old\");\n}\n");
        let args = json!({
            "path": "src/main.rs",
            "edits": [{"old_string": "println!(\"old\");", "new_string": "println!(\"new\");"}],
        })
        .to_string();
        let mock = MockModel::start([
            OpenAiStream::new()
                .tool_call("call_1", "edit", &[&args])
                .into_reply(),
            Reply::openai_text("done"),
        ])
        .await;
        let seen = drive(&sdk, &f, &mock, scenario).await;
        assert_eq!(seen["permissions"][0]["toolCall"]["kind"], "edit", "{seen}");
        assert_eq!(seen["answer"]["stopReason"], "end_turn");
        let main_rs = std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap();
        assert!(
            main_rs.contains(&format!("println!(\"{expected}\")")),
            "{scenario}: {main_rs}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sdk_client_cancels_a_slow_stream() {
    let Some(sdk) = sdk().await else { return };
    let f = Workspace::new("fn main() {}\n");
    let mock = MockModel::start([Reply::openai_hanging()]).await;
    let seen = drive(&sdk, &f, &mock, "cancel").await;
    assert_eq!(seen["answer"]["stopReason"], "cancelled", "{seen}");
    // The time is measured, never asserted (docs/PERFORMANCE.md).
    eprintln!("cancel answered after {} ms", seen["cancelMs"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sdk_clients_files_are_read_and_written_through_fs_when_offered() {
    let Some(sdk) = sdk().await else { return };
    // On disk "old"; the client's unsaved buffer says "unsaved".
    let f = Workspace::new("fn main() {\n    println!(\"old\");\n}\n");
    let read = json!({"path": "src/main.rs"}).to_string();
    let edit = json!({
        "path": "src/main.rs",
        "edits": [{"old_string": "println!(\"unsaved\");", "new_string": "println!(\"new\");"}],
    })
    .to_string();
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "read_file", &[&read])
            .into_reply(),
        OpenAiStream::new()
            .tool_call("call_2", "edit", &[&edit])
            .into_reply(),
        Reply::openai_text("done"),
    ])
    .await;
    let seen = drive(&sdk, &f, &mock, "fs").await;
    assert_eq!(seen["answer"]["stopReason"], "end_turn", "{seen}");
    let main_rs = std::fs::canonicalize(f.repo.join("src/main.rs")).unwrap();
    let path = main_rs.to_str().unwrap();
    let calls = seen["fsCalls"].as_array().unwrap();
    // read_file, edit's load, the check before writing, then the write.
    let methods: Vec<&str> = calls
        .iter()
        .map(|c| c["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["read", "read", "read", "write"], "{seen}");
    assert!(calls.iter().all(|c| c["path"] == path), "{calls:?}");
    assert_eq!(
        calls[3]["content"],
        "fn main() {\n    println!(\"new\");\n}\n"
    );
    // Measured, never asserted (docs/PERFORMANCE.md).
    eprintln!(
        "read_file through the client: {:.1} ms",
        run_ms(&seen, "call_1")
    );
    // read_file saw the buffer, not the disk.
    let results = of_kind(&seen, "tool_call_update");
    let read_result = results
        .iter()
        .find(|u| u["toolCallId"] == "call_1" && u["status"] == "completed")
        .unwrap();
    let read_text = read_result["content"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(read_text.contains("unsaved"), "{read_text}");
    // The edit ran, then completed with the change as a diff.
    let edit_statuses: Vec<&Value> = results
        .iter()
        .filter(|u| u["toolCallId"] == "call_2")
        .map(|u| &u["status"])
        .collect();
    assert_eq!(edit_statuses, [&json!("in_progress"), &json!("completed")]);
    let done = results
        .iter()
        .find(|u| u["toolCallId"] == "call_2" && u["status"] == "completed")
        .unwrap();
    let diff = done["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "diff")
        .unwrap_or_else(|| panic!("no diff: {done}"));
    assert_eq!(diff["path"], path);
    assert!(
        diff["oldText"].as_str().unwrap().contains("unsaved"),
        "{diff}"
    );
    assert!(diff["newText"].as_str().unwrap().contains("new"), "{diff}");
    // The permission request showed the same diff.
    assert_eq!(
        seen["permissions"][0]["toolCall"]["content"][0]["type"],
        "diff"
    );
    // `/undo` restores what the editor held before the edit (the journal
    // kept the buffer's text), on disk.
    assert_eq!(seen["undo"]["stopReason"], "end_turn", "{seen}");
    let undone = std::fs::read_to_string(&main_rs).unwrap();
    assert_eq!(undone, "fn main() {\n    println!(\"unsaved\");\n}\n");
}
