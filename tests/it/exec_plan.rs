#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `update_plan` through `exec --json`: the plan is a tool call event, and a
//! malformed plan is a tool error the model reads.

use crate::support;

use std::process::{Command, Stdio};

use light_agent::protocol::AgentEvent;
use serde_json::json;
use support::child_env::{Workspace, run, scrub};
use support::{MockModel, OpenAiStream, Reply};

#[tokio::test(flavor = "multi_thread")]
async fn exec_json_shows_the_plan_call_and_a_malformed_plan_gets_a_clear_error() {
    let f = Workspace::new("fn main() {}\n");
    let two_busy = json!({"plan": [
        {"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]});
    let good = json!({"plan": [
        {"step": "a", "status": "completed"}, {"step": "b", "status": "in_progress"}]});
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "update_plan", &[&two_busy.to_string()])
            .into_reply(),
        OpenAiStream::new()
            .tool_call("call_2", "update_plan", &[&good.to_string()])
            .into_reply(),
        Reply::openai_text("done"),
    ])
    .await;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.args(["exec", "--base-url", &mock.openai_base_url()])
        .args(["--model", "mock-model", "--json", "plan it"])
        .stdin(Stdio::null());
    let out = run(cmd).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let events: Vec<AgentEvent> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let plan_args: Vec<_> = events
        .iter()
        .flat_map(|e| match e {
            AgentEvent::ToolCalls { calls, .. } => calls.clone(),
            _ => vec![],
        })
        .filter(|c| c.name == "update_plan")
        .map(|c| c.args["plan"].clone())
        .collect();
    assert_eq!(
        plan_args,
        vec![two_busy["plan"].clone(), good["plan"].clone()]
    );
    let results: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult { outcome, .. } => Some(outcome.clone()),
            _ => None,
        })
        .collect();
    assert!(results[0].is_error, "{results:?}");
    assert!(
        results[0]
            .result
            .contains("2 steps are in_progress: at most one may be"),
        "{}",
        results[0].result
    );
    assert!(!results[1].is_error, "{results:?}");
    assert!(
        results[1].result.starts_with("Plan updated. Now do \"b\""),
        "{}",
        results[1].result
    );
    let second = mock.requests()[1].body["messages"].to_string();
    assert!(
        second.contains("at most one may be"),
        "the model reads why: {second}"
    );
}
