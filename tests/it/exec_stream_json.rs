#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `light-agent exec --input-format stream-json`, driven as a script drives
//! it: ops as JSON lines on stdin, host events as JSON lines on stdout.

use crate::support;

use std::process::Command;

use serde_json::{Value, json};
use support::child_env::{Workspace, scrub};
use support::json_lines::JsonLines;
use support::{MockModel, OpenAiStream, Reply};

/// `exec --input-format stream-json` in the workspace's repo.
fn session(f: &Workspace, url: &str, args: &[&str]) -> JsonLines {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
    cmd.args(["exec", "--base-url", url, "--model", "mock-model"]);
    cmd.args(["--input-format", "stream-json"]).args(args);
    JsonLines::spawn(cmd)
}

fn job_ended(op: &'static str) -> impl Fn(&Value) -> bool {
    move |line| line["type"] == "job" && line["op"] == op && line["update"] == "ended"
}

#[test]
fn two_prompts_in_one_process_and_a_malformed_line_gets_an_error_line() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([
        Reply::openai_text("first answer"),
        Reply::openai_text("second answer"),
    ]));
    let mut s = session(&f, &mock.openai_base_url(), &[]);
    s.send(r#"{"type":"prompt","id":"p1","text":"one"}"#);
    let first = s.until(job_ended("p1"));
    assert!(
        first
            .iter()
            .any(|l| l["type"] == "job" && l["op"] == "p1" && l["update"] == "queued"),
        "{first:#?}"
    );
    assert!(
        first
            .iter()
            .any(|l| l["type"] == "output" && l["text"] == "first answer")
    );
    assert_eq!(first.last().unwrap()["cause"], "done");

    s.send("this is not json");
    let error = s.until(|l| l["type"] == "error");
    assert_eq!(error.last().unwrap()["line"], 2);

    // Claude Code's user line is a prompt too; its op id is its line's.
    s.send(r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"two"}]}}"#);
    let second = s.until(job_ended("line-3"));
    assert!(
        second
            .iter()
            .any(|l| l["type"] == "output" && l["text"] == "second answer")
    );
    assert_eq!(s.finish(), Some(0));
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("one") && sent.contains("two"),
        "one session: {sent}"
    );
}

#[test]
fn an_interrupt_from_stdin_stops_the_turn_mid_stream() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([OpenAiStream::new()
        .text("never finishes")
        .into_reply()
        .hang_after(1)]));
    let mut s = session(&f, &mock.openai_base_url(), &[]);
    s.send(r#"{"type":"prompt","id":"slow","text":"go"}"#);
    s.until(|l| l["type"] == "output_delta");
    s.send(r#"{"type":"interrupt"}"#);
    let lines = s.until(job_ended("slow"));
    assert_eq!(lines.last().unwrap()["cause"], "user");
    assert_eq!(s.finish(), Some(130));
}

#[test]
fn an_approval_answered_from_stdin_applies_the_edit() {
    let f = Workspace::new("fn main() {\n    println!(\"old\");\n}\n");
    let args = json!({
        "path": "src/main.rs",
        "edits": [{"old_string": "println!(\"old\");", "new_string": "println!(\"new\");"}],
    })
    .to_string();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "edit", &[&args])
            .into_reply(),
        Reply::openai_text("done"),
    ]));
    let mut s = session(&f, &mock.openai_base_url(), &["--permissions", "ask"]);
    s.send(r#"{"type":"prompt","id":"p1","text":"change it"}"#);
    let asked = s.until(|l| l["type"] == "approval_requested");
    let request = asked.last().unwrap();
    assert_eq!(request["request"]["tool"], "edit");
    assert_eq!(request["request"]["detail"]["kind"], "diff");
    let main_rs = f.repo.join("src/main.rs");
    assert!(std::fs::read_to_string(&main_rs).unwrap().contains("old"));
    let id = request["id"].as_str().unwrap();
    s.send(&format!(
        r#"{{"type":"approval","id":"{id}","decision":"allow"}}"#
    ));
    let lines = s.until(job_ended("p1"));
    assert_eq!(lines.last().unwrap()["cause"], "done");
    assert!(std::fs::read_to_string(&main_rs).unwrap().contains("new"));
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn an_interrupt_while_a_prompt_waits_for_a_starting_mcp_server_ends_it_at_once() {
    let f = Workspace::new("fn main() {}\n");
    // A server that never answers, given ten minutes to start: without the
    // interrupt the prompt would wait for it that long.
    std::fs::create_dir_all(&f.home).unwrap();
    let server = support::mcp_server::server_toml("silent", "startup_timeout_sec = 600");
    std::fs::write(
        f.home.join("config.toml"),
        format!("[mcp_servers.slow]\n{server}"),
    )
    .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([Reply::openai_text("never asked")]));
    let mut s = session(&f, &mock.openai_base_url(), &[]);
    s.send(r#"{"type":"prompt","id":"p1","text":"go"}"#);
    s.send(r#"{"type":"interrupt"}"#);
    let lines = s.until(job_ended("p1"));
    assert_eq!(lines.last().unwrap()["cause"], "user");
    assert_eq!(s.finish(), Some(130));
    assert_eq!(mock.request_count(), 0, "the model was never asked");
}
