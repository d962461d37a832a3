#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `light-agent acp` driven as an editor drives it: JSON-RPC lines on its
//! stdin, every stdout line parsed as a JSON-RPC message, the model the
//! mock server.

use crate::support;

use std::process::Command;

use serde_json::{Value, json};
use support::child_env::{Workspace, scrub};
use support::json_lines::JsonLines;
use support::{MockModel, OpenAiStream, Reply};

/// The agent process as a client sees it.
pub(crate) struct Client {
    io: JsonLines,
    next_id: u64,
}

impl Client {
    pub(crate) fn start(f: &Workspace, url: &str) -> Client {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
        cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
        scrub(&mut cmd);
        cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
        cmd.args(["acp", "--base-url", url, "--model", "mock-model"]);
        Client {
            io: JsonLines::spawn(cmd),
            next_id: 0,
        }
    }

    /// A client that initialized and opened a session in the repo; returns
    /// the session id too.
    fn with_session(f: &Workspace, url: &str) -> (Client, String) {
        Client::offering(f, url, json!({}))
    }

    /// [`with_session`](Self::with_session) for a client whose
    /// `initialize` offers `capabilities`.
    pub(crate) fn offering(f: &Workspace, url: &str, capabilities: Value) -> (Client, String) {
        let mut c = Client::start(f, url);
        c.call(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": capabilities}),
        );
        let opened = c.call("session/new", json!({"cwd": f.repo, "mcpServers": []}));
        let id = opened["result"]["sessionId"].as_str().unwrap().to_string();
        (c, id)
    }

    pub(crate) fn send_line(&mut self, line: &str) {
        self.io.send(line);
    }

    /// Sends a request; returns its id.
    pub(crate) fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&line.to_string());
        id
    }

    /// Sends a request and waits for its answer.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.until(answer_to(id)).pop().unwrap()
    }

    fn notify(&mut self, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_line(&line.to_string());
    }

    /// Messages until one matches `wanted` (that one included); each is a
    /// JSON-RPC 2.0 message.
    pub(crate) fn until(&self, wanted: impl Fn(&Value) -> bool) -> Vec<Value> {
        let lines = self.io.until(wanted);
        for line in &lines {
            assert_eq!(line["jsonrpc"], "2.0", "{line}");
        }
        lines
    }

    /// Closes stdin and waits for the exit code.
    pub(crate) fn finish(self) -> Option<i32> {
        self.io.finish()
    }
}

pub(crate) fn answer_to(id: u64) -> impl Fn(&Value) -> bool {
    move |line| line["id"] == id && line.get("method").is_none()
}

/// The `session/update` payloads among `lines`.
pub(crate) fn updates(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .filter(|l| l["method"] == "session/update")
        .map(|l| &l["params"]["update"])
        .collect()
}

pub(crate) fn chunks(lines: &[Value], kind: &str) -> String {
    updates(lines)
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .filter_map(|u| u["content"]["text"].as_str())
        .collect()
}

#[test]
fn a_prompt_streams_chunks_and_ends_with_end_turn() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([OpenAiStream::new()
        .text("hello ")
        .text("editor")
        .into_reply()]));
    let mut c = Client::start(&f, &mock.openai_base_url());
    let init = c.call(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    let caps = &init["result"]["agentCapabilities"];
    assert_eq!(init["result"]["protocolVersion"], 1);
    assert_eq!(caps["loadSession"], true, "{init}");
    assert_eq!(caps["promptCapabilities"]["image"], true);
    assert_eq!(caps["promptCapabilities"]["embeddedContext"], true);

    let opened = c.call("session/new", json!({"cwd": f.repo, "mcpServers": []}));
    let modes = &opened["result"]["modes"];
    assert_eq!(modes["currentModeId"], "ask", "{opened}");
    let ids: Vec<&str> = modes["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["read-only", "ask", "auto"]);
    let session = opened["result"]["sessionId"].as_str().unwrap().to_string();

    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}),
    );
    let lines = c.until(answer_to(id));
    assert_eq!(chunks(&lines, "agent_message_chunk"), "hello editor");
    assert!(
        updates(&lines)
            .iter()
            .all(|u| u["sessionUpdate"] != "user_message_chunk"),
        "the prompt is not echoed live: {lines:#?}"
    );
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    assert!(
        lines
            .iter()
            .filter(|l| l["method"] == "session/update")
            .all(|l| l["params"]["sessionId"] == session.as_str())
    );
    assert_eq!(c.finish(), Some(0));
    let sent = mock.requests()[0].body["messages"].to_string();
    assert!(sent.contains("hi"), "{sent}");
}

#[test]
fn a_read_file_call_shows_as_a_read_tool_call_with_its_location() {
    let f = Workspace::new("fn main() {}\n");
    let args = json!({"path": "src/main.rs", "start_line": 1, "_intent": "see main"}).to_string();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "read_file", &[&args])
            .into_reply(),
        Reply::openai_text("it is empty"),
    ]));
    let (mut c, session) = Client::with_session(&f, &mock.openai_base_url());
    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "read main"}]}),
    );
    let lines = c.until(answer_to(id));
    let all = updates(&lines);
    let call = all
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call")
        .unwrap_or_else(|| panic!("no tool_call: {lines:#?}"));
    assert_eq!(call["toolCallId"], "call_1");
    assert_eq!(call["kind"], "read");
    // `pending` is the default, which the schema leaves out.
    assert!(
        call.get("status").is_none() || call["status"] == "pending",
        "{call}"
    );
    assert_eq!(
        call["locations"],
        json!([{"path": std::fs::canonicalize(&f.repo).unwrap().join("src/main.rs"), "line": 1}])
    );
    let results: Vec<&&Value> = all
        .iter()
        .filter(|u| u["sessionUpdate"] == "tool_call_update")
        .collect();
    // Running as soon as it is made, then its result.
    assert_eq!(results[0]["status"], "in_progress", "{results:?}");
    let done = results[1];
    assert_eq!(done["toolCallId"], "call_1");
    assert_eq!(done["status"], "completed");
    assert!(
        done["content"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("fn main")
    );
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    assert_eq!(c.finish(), Some(0));
}

/// A model that edits `src/main.rs` (old → new) and then says done.
pub(crate) fn editing_model(rt: &tokio::runtime::Runtime) -> MockModel {
    let args = json!({
        "path": "src/main.rs",
        "edits": [{"old_string": "println!(\"old\");", "new_string": "println!(\"new\");"}],
    })
    .to_string();
    rt.block_on(MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "edit", &[&args])
            .into_reply(),
        Reply::openai_text("done"),
    ]))
}

/// Prompts for the edit, answers the permission request with `option`;
/// returns the lines up to the prompt's answer and the request.
fn edit_answered_with(option: &str) -> (Workspace, Vec<Value>, Value) {
    let f = Workspace::new("fn main() {\n    println!(\"old\");\n}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = editing_model(&rt);
    let (mut c, session) = Client::with_session(&f, &mock.openai_base_url());
    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "change it"}]}),
    );
    let asked = c
        .until(|l| l["method"] == "session/request_permission")
        .pop()
        .unwrap();
    let main_rs = f.repo.join("src/main.rs");
    assert!(std::fs::read_to_string(&main_rs).unwrap().contains("old"));
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"],
        "result": {"outcome": {"outcome": "selected", "optionId": option}}});
    c.send_line(&answer.to_string());
    let lines = c.until(answer_to(id));
    assert_eq!(c.finish(), Some(0));
    (f, lines, asked)
}

#[test]
fn an_edit_in_ask_mode_asks_the_editor_and_applies_only_after_allow() {
    let (f, lines, asked) = edit_answered_with("allow_once");
    let params = &asked["params"];
    assert_eq!(params["toolCall"]["toolCallId"], "call_1");
    assert_eq!(params["toolCall"]["kind"], "edit");
    let diff = &params["toolCall"]["content"][0];
    assert_eq!(diff["type"], "diff", "{diff}");
    let main_rs = std::fs::canonicalize(f.repo.join("src/main.rs")).unwrap();
    assert_eq!(diff["path"], main_rs.to_str().unwrap());
    assert!(
        diff["oldText"]
            .as_str()
            .unwrap()
            .contains("println!(\"old\");"),
        "{diff}"
    );
    assert!(
        diff["newText"]
            .as_str()
            .unwrap()
            .contains("println!(\"new\");"),
        "{diff}"
    );
    let kinds: Vec<&str> = params["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["allow_once", "allow_always", "reject_once", "reject_always"]
    );
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    let main_rs = std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap();
    assert!(main_rs.contains("new"), "{main_rs}");
}

#[test]
fn a_rejected_edit_leaves_the_file_unchanged() {
    let (f, lines, _) = edit_answered_with("reject_once");
    let failed = updates(&lines)
        .into_iter()
        .find(|u| u["sessionUpdate"] == "tool_call_update" && u["status"] != "in_progress")
        .unwrap()
        .clone();
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    let main_rs = std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap();
    assert_eq!(main_rs, "fn main() {\n    println!(\"old\");\n}\n");
}

#[test]
fn session_cancel_during_a_slow_stream_ends_the_prompt_cancelled() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([Reply::openai_hanging()]));
    let (mut c, session) = Client::with_session(&f, &mock.openai_base_url());
    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
    );
    c.until(|l| l["params"]["update"]["sessionUpdate"] == "agent_message_chunk");
    c.notify("session/cancel", json!({"sessionId": session}));
    let lines = c.until(answer_to(id));
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "cancelled");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn set_mode_switches_the_permission_mode_and_says_so() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([]));
    let (mut c, session) = Client::with_session(&f, &mock.openai_base_url());
    let id = c.send(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "read-only"}),
    );
    let lines = c.until(answer_to(id));
    let update = updates(&lines)
        .into_iter()
        .find(|u| u["sessionUpdate"] == "current_mode_update")
        .unwrap()
        .clone();
    assert_eq!(update["currentModeId"], "read-only");
    assert!(lines.last().unwrap().get("result").is_some());
    let refused = c.call(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "yolo"}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn session_load_replays_the_stored_session() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([Reply::openai_text("stored answer")]));
    let (mut c, session) = Client::with_session(&f, &mock.openai_base_url());
    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "remember me"}]}),
    );
    c.until(answer_to(id));
    assert_eq!(c.finish(), Some(0));

    let mut c = Client::start(&f, &mock.openai_base_url());
    c.call(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    let id = c.send(
        "session/load",
        json!({"sessionId": session, "cwd": f.repo, "mcpServers": []}),
    );
    let lines = c.until(answer_to(id));
    assert!(lines.last().unwrap().get("result").is_some(), "{lines:#?}");
    assert_eq!(chunks(&lines, "user_message_chunk"), "remember me");
    assert_eq!(chunks(&lines, "agent_message_chunk"), "stored answer");
    let missing = c.call(
        "session/load",
        json!({"sessionId": "sess_nope", "cwd": f.repo, "mcpServers": []}),
    );
    assert!(missing.get("error").is_some(), "{missing}");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn a_hostile_client_gets_errors_and_the_agent_keeps_serving() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::write(f.dir.path().join("secret.txt"), "top secret").unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([]));
    let mut c = Client::start(&f, &mock.openai_base_url());
    let alive = |c: &mut Client| {
        let init = c.call("initialize", json!({"protocolVersion": 1}));
        assert!(init.get("result").is_some(), "{init}");
    };

    c.send_line("{this is not json");
    let parse = c.until(|l| l.get("error").is_some()).pop().unwrap();
    assert_eq!(parse["error"]["code"], -32700);
    assert_eq!(parse["id"], Value::Null);
    alive(&mut c);

    let unknown = c.call("session/fly", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    alive(&mut c);

    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"initialize\",\"params\":{{\"x\":\"{}\"}}}}",
        "a".repeat(50 * 1024 * 1024)
    );
    c.send_line(&huge);
    let too_big = c.until(|l| l.get("error").is_some()).pop().unwrap();
    assert_eq!(too_big["error"]["code"], -32600, "{too_big}");
    alive(&mut c);

    let early = c.call(
        "session/prompt",
        json!({"sessionId": "sess_none", "prompt": [{"type": "text", "text": "hi"}]}),
    );
    assert_eq!(early["error"]["code"], -32602, "{early}");
    let cancel = c.call("session/cancel", json!({"sessionId": "sess_none"}));
    assert_eq!(cancel["error"]["code"], -32602, "{cancel}");
    c.notify("session/cancel", json!({"sessionId": "sess_none"}));
    alive(&mut c);

    let opened = c.call("session/new", json!({"cwd": f.repo, "mcpServers": []}));
    let session = opened["result"]["sessionId"].as_str().unwrap().to_string();
    let secret = f.dir.path().join("secret.txt");
    for uri in [
        format!("file://{}", secret.display()),
        format!("file://{}/../secret.txt", f.repo.display()),
    ] {
        let outside = c.call(
            "session/prompt",
            json!({"sessionId": session, "prompt": [
                {"type": "text", "text": "read this"},
                {"type": "resource_link", "name": "secret", "uri": uri},
            ]}),
        );
        assert_eq!(outside["error"]["code"], -32602, "{outside}");
    }
    let embedded = c.call(
        "session/prompt",
        json!({"sessionId": session, "prompt": [
            {"type": "resource", "resource": {"uri": format!("file://{}", secret.display()), "text": "x"}},
        ]}),
    );
    assert_eq!(embedded["error"]["code"], -32602, "{embedded}");
    alive(&mut c);
    assert_eq!(c.finish(), Some(0));
    assert!(mock.requests().is_empty(), "no prompt reached the model");
}

#[test]
fn an_image_block_and_a_file_link_reach_the_model() {
    let f = Workspace::new("fn main() { marker_in_main(); }\n");
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::write(
        f.home.join("config.toml"),
        "[models.\"mock-model\"]\nimages = true\n",
    )
    .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([Reply::openai_text("a square")]));
    let (mut c, session) = Client::with_session(&f, &mock.openai_base_url());
    let png = support::images::png(4, 4);
    let data = support::images::base64(&png);
    let link = format!("file://{}", f.repo.join("src/main.rs").display());
    let answer = c.call(
        "session/prompt",
        json!({"sessionId": session, "prompt": [
            {"type": "text", "text": "what is this?"},
            {"type": "image", "mimeType": "image/png", "data": data},
            {"type": "resource_link", "name": "main.rs", "uri": link},
        ]}),
    );
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let body = &mock.requests()[0].body;
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap();
    let sent = user.to_string();
    assert!(
        sent.contains(&format!("data:image/png;base64,{data}")),
        "{sent}"
    );
    assert!(
        sent.contains("marker_in_main"),
        "the linked file's text: {sent}"
    );
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn acp_help_says_what_it_serves_and_how_an_editor_starts_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_light-agent"))
        .args(["acp", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("Agent Client Protocol"), "{help}");
    assert!(help.contains("agent_servers"), "{help}");
    assert!(help.contains("read-only, ask"), "{help}");
}

#[test]
fn an_mcp_server_the_client_sends_joins_the_session() {
    let f = Workspace::new("fn main() {}\n");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let args = json!({"_intent": "try the server", "text": "hi"}).to_string();
    let mock = rt.block_on(MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "mcp__editor__echo", &[&args])
            .into_reply(),
        Reply::openai_text("done"),
    ]));
    let mut c = Client::start(&f, &mock.openai_base_url());
    c.call("initialize", json!({"protocolVersion": 1}));
    let exe = std::env::current_exe().unwrap();
    let server = json!({
        "name": "editor",
        "command": exe,
        "args": ["mcp::server_role", "--exact", "--ignored"],
        "env": [{"name": support::mcp_server::MODE_ENV, "value": "normal"}],
    });
    let opened = c.call(
        "session/new",
        json!({"cwd": f.repo, "mcpServers": [server]}),
    );
    let session = opened["result"]["sessionId"].as_str().unwrap().to_string();
    c.call(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "auto"}),
    );
    let answer = c.call(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "echo"}]}),
    );
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(sent.contains("echo: hi"), "{sent}");
    let sse = c.call(
        "session/new",
        json!({"cwd": f.repo, "mcpServers": [{"type": "sse", "name": "s", "url": "http://127.0.0.1:9/", "headers": []}]}),
    );
    assert_eq!(sse["error"]["code"], -32602, "{sse}");
    assert_eq!(c.finish(), Some(0));
}
