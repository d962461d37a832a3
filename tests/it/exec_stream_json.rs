#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `light-agent exec --input-format stream-json`, driven as a script drives
//! it: ops as JSON lines on stdin, host events as JSON lines on stdout.

use crate::support;

use std::process::{Command, Stdio};

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
    cmd.args(["exec", "--base-url", url]);
    if !args.contains(&"--model") {
        cmd.args(["--model", "mock-model"]);
    }
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
    let mock = rt.block_on(MockModel::start([Reply::openai_hanging()]));
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

#[test]
fn an_accepted_plan_is_a_plan_event_and_comes_back_when_the_session_resumes() {
    let f = Workspace::new("fn main() {}\n");
    let plan = json!({"explanation": "two steps", "plan": [
        {"step": "find the callers", "status": "completed"},
        {"step": "rename them", "status": "in_progress"}]});
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "update_plan", &[&plan.to_string()])
            .into_reply(),
        Reply::openai_text("planned"),
    ]));
    let mut s = session(&f, &mock.openai_base_url(), &[]);
    s.send(r#"{"type":"prompt","id":"p1","text":"rename foo"}"#);
    let lines = s.until(job_ended("p1"));
    let shown: Vec<&Value> = lines.iter().filter(|l| l["type"] == "plan").collect();
    assert_eq!(
        shown.len(),
        2,
        "one at the start (none yet), one accepted: {lines:#?}"
    );
    assert_eq!(shown[0]["plan"]["plan"], json!([]));
    assert_eq!(shown[1]["plan"], plan);
    assert_eq!(s.finish(), Some(0));

    let resumed = session(&f, &mock.openai_base_url(), &["--continue"]);
    let lines = resumed.until(|l| l["type"] == "plan");
    assert_eq!(lines.last().unwrap()["plan"], plan, "{lines:#?}");
    assert_eq!(resumed.finish(), Some(0));
}

#[test]
fn set_effort_changes_the_next_requests_wire_field_and_the_status() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([
        Reply::openai_text("one"),
        Reply::openai_text("two"),
        Reply::openai_text("three"),
    ]));
    let mut s = session(&f, &mock.openai_base_url(), &["--model", "gpt-5"]);
    s.send(r#"{"type":"prompt","id":"p1","text":"one"}"#);
    s.until(job_ended("p1"));
    s.send(r#"{"type":"set_effort","effort":"high"}"#);
    let status = s.until(|l| l["type"] == "status");
    assert_eq!(status.last().unwrap()["status"]["effort"], "high");
    s.send(r#"{"type":"prompt","id":"p2","text":"two"}"#);
    s.until(job_ended("p2"));
    s.send(r#"{"type":"set_effort","effort":null}"#);
    s.send(r#"{"type":"prompt","id":"p3","text":"three"}"#);
    s.until(job_ended("p3"));
    assert_eq!(s.finish(), Some(0));
    let sent: Vec<Value> = mock
        .requests()
        .iter()
        .map(|r| r.body["reasoning_effort"].clone())
        .collect();
    assert_eq!(sent, vec![Value::Null, json!("high"), Value::Null]);
}

fn ask_reply() -> Reply {
    let args = json!({"questions": [
        {"question": "Which database?", "options": ["sqlite", "postgres"]},
        {"question": "Anything else?"}]});
    OpenAiStream::new()
        .tool_call("call_1", "ask_user", &[&args.to_string()])
        .into_reply()
}

#[test]
fn a_question_is_printed_and_answered_by_an_answer_line() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([ask_reply(), Reply::openai_text("ok")]));
    let mut s = session(&f, &mock.openai_base_url(), &[]);
    s.send(r#"{"type":"prompt","id":"p1","text":"set it up"}"#);
    let asked = s.until(|l| l["type"] == "question_asked");
    let request = asked.last().unwrap();
    assert_eq!(
        request["questions"][0]["options"],
        json!(["sqlite", "postgres"])
    );
    let id = request["id"].as_str().unwrap();
    s.send(&format!(
        r#"{{"type":"answer","id":"{id}","answers":["postgres","keep it small"]}}"#
    ));
    let lines = s.until(job_ended("p1"));
    assert_eq!(lines.last().unwrap()["cause"], "done");
    assert_eq!(s.finish(), Some(0));
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("answer: postgres") && sent.contains("answer: keep it small"),
        "{sent}"
    );
}

#[test]
fn exec_without_a_front_end_answers_a_question_at_once() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([
        ask_reply(),
        Reply::openai_text("assumed sqlite"),
    ]));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.args(["exec", "--base-url", &mock.openai_base_url()])
        .args(["--model", "mock-model", "set it up"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "assumed sqlite"
    );
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("no user is present: decide and say what you assumed"),
        "{sent}"
    );
}

#[test]
fn an_interrupt_withdraws_a_waiting_question() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([ask_reply(), Reply::openai_text("later")]));
    let mut s = session(&f, &mock.openai_base_url(), &[]);
    s.send(r#"{"type":"prompt","id":"p1","text":"set it up"}"#);
    let asked = s.until(|l| l["type"] == "question_asked");
    let id = asked.last().unwrap()["id"].as_str().unwrap().to_string();
    s.send(r#"{"type":"interrupt"}"#);
    let lines = s.until(job_ended("p1"));
    assert_eq!(lines.last().unwrap()["cause"], "user");
    // A late answer finds nothing waiting; the next prompt runs normally.
    s.send(&format!(
        r#"{{"type":"answer","id":"{id}","answers":["sqlite"]}}"#
    ));
    s.send(r#"{"type":"prompt","id":"p2","text":"again"}"#);
    let lines = s.until(job_ended("p2"));
    assert_eq!(lines.last().unwrap()["cause"], "done");
    assert_eq!(s.finish(), Some(0));
    assert_eq!(mock.requests().len(), 2);
}
