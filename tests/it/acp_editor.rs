#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `light-agent acp` with an editor's own features, driven by the
//! hand-rolled client of `acp.rs`: the client's files (`fs/*`) and where
//! they stop, the plan, the slash commands.

use serde_json::{Value, json};

use crate::acp::{Client, answer_to, chunks, editing_model, updates};
use crate::support::child_env::Workspace;
use crate::support::{MockModel, OpenAiStream, Reply};

/// Lines until the answer to request `id`, answering every `fs/*` request
/// on the way with `answer(method, params)` (a `result` or an `error`
/// member); returns the lines and the `fs/*` requests.
fn serve_fs(
    c: &mut Client,
    id: u64,
    answer: impl Fn(&str, &Value) -> Value,
) -> (Vec<Value>, Vec<Value>) {
    let mut lines = Vec::new();
    let mut asked = Vec::new();
    loop {
        let is_fs = |l: &Value| l["method"].as_str().is_some_and(|m| m.starts_with("fs/"));
        let mut got = c.until(|l| answer_to(id)(l) || is_fs(l));
        let last = got.pop().unwrap();
        lines.extend(got);
        if !is_fs(&last) {
            lines.push(last);
            return (lines, asked);
        }
        let mut reply = answer(last["method"].as_str().unwrap(), &last["params"]);
        reply["jsonrpc"] = json!("2.0");
        reply["id"] = last["id"].clone();
        c.send_line(&reply.to_string());
        asked.push(last);
    }
}

/// A client offering `fs` in a session in `auto` mode, sent `text` as a
/// prompt, its `fs/*` requests answered by `answer` until the prompt's
/// answer; returns the lines, the `fs/*` requests, the client and the
/// session id.
fn prompt_with_fs(
    f: &Workspace,
    mock: &MockModel,
    fs: Value,
    answer: impl Fn(&str, &Value) -> Value,
) -> (Vec<Value>, Vec<Value>, Client, String) {
    let (mut c, session) = Client::offering(f, &mock.openai_base_url(), json!({"fs": fs}));
    c.call(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "auto"}),
    );
    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
    );
    let (lines, asked) = serve_fs(&mut c, id, answer);
    (lines, asked, c, session)
}

/// The results (`tool_call_update`s that are not `in_progress`), by call id.
fn result_of<'a>(lines: &'a [Value], call: &str) -> &'a Value {
    updates(lines)
        .into_iter()
        .find(|u| {
            u["sessionUpdate"] == "tool_call_update"
                && u["toolCallId"] == call
                && u["status"] != "in_progress"
        })
        .unwrap_or_else(|| panic!("no result of {call}: {lines:#?}"))
}

fn text_of(result: &Value) -> String {
    result["content"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_path_outside_the_directory_is_never_sent_to_the_client() {
    let f = Workspace::new("fn main() {}\n");
    let secret = f.dir.path().join("secret.txt");
    std::fs::write(&secret, "top secret").unwrap();
    std::os::unix::fs::symlink(&secret, f.repo.join("link.txt")).unwrap();
    let calls = [
        ("read_file", json!({"path": secret.to_str().unwrap()})),
        ("read_file", json!({"path": "link.txt"})),
        (
            "write",
            json!({"path": "link.txt", "content": "overwritten"}),
        ),
        (
            "edit",
            json!({"path": "../secret.txt", "edits": [{"old_string": "top", "new_string": "no"}]}),
        ),
        ("read_file", json!({"path": "src/main.rs"})),
    ];
    let mut replies: Vec<Reply> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            OpenAiStream::new()
                .tool_call(&format!("call_{i}"), name, &[&args.to_string()])
                .into_reply()
        })
        .collect();
    replies.push(Reply::openai_text("done"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start(replies));
    let fs = json!({"readTextFile": true, "writeTextFile": true});
    let (lines, asked, c, session) = prompt_with_fs(
        &f,
        &mock,
        fs,
        |_, _| json!({"result": {"content": "// the editor's buffer\n"}}),
    );
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    // Only the file inside went to the client, by its real path.
    let main_rs = std::fs::canonicalize(f.repo.join("src/main.rs")).unwrap();
    let paths: Vec<&Value> = asked.iter().map(|a| &a["params"]["path"]).collect();
    assert_eq!(paths, [&json!(main_rs.to_str().unwrap())], "{asked:#?}");
    assert_eq!(asked[0]["method"], "fs/read_text_file");
    assert_eq!(asked[0]["params"]["sessionId"], session.as_str());
    for call in ["call_0", "call_1", "call_2", "call_3"] {
        assert_eq!(result_of(&lines, call)["status"], "failed", "{call}");
    }
    assert!(text_of(result_of(&lines, "call_4")).contains("the editor's buffer"));
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "top secret");
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn a_client_error_on_write_is_a_tool_error_and_the_file_stays() {
    let before = "fn main() {\n    println!(\"old\");\n}\n";
    let f = Workspace::new(before);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = editing_model(&rt);
    // Writes only: the file is read from disk, written through the client.
    let fs = json!({"readTextFile": false, "writeTextFile": true});
    let (lines, asked, c, _) = prompt_with_fs(
        &f,
        &mock,
        fs,
        |_, _| json!({"error": {"code": -32000, "message": "the buffer is read-only"}}),
    );
    let methods: Vec<&Value> = asked.iter().map(|a| &a["method"]).collect();
    assert_eq!(methods, [&json!("fs/write_text_file")]);
    assert!(
        asked[0]["params"]["content"]
            .as_str()
            .unwrap()
            .contains("println!(\"new\");")
    );
    let result = result_of(&lines, "call_1");
    assert_eq!(result["status"], "failed", "{result}");
    assert!(
        text_of(result).contains("the buffer is read-only"),
        "{result}"
    );
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    let main_rs = std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap();
    assert_eq!(main_rs, before);
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn the_plan_and_the_slash_commands_reach_the_editor() {
    let f = Workspace::new("fn main() {}\n");
    let plan = json!({"plan": [
        {"step": "read main", "status": "completed"},
        {"step": "change it", "status": "in_progress"},
    ]})
    .to_string();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "update_plan", &[&plan])
            .into_reply(),
        Reply::openai_text("planned"),
    ]));
    let mut c = Client::start(&f, &mock.openai_base_url());
    c.call(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    let opened = c.send("session/new", json!({"cwd": f.repo, "mcpServers": []}));
    let lines = c.until(|l| l["params"]["update"]["sessionUpdate"] == "available_commands_update");
    assert!(lines.iter().any(answer_to(opened)), "answered first");
    let session = lines.iter().find(|l| answer_to(opened)(l)).unwrap()["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let commands = &lines.last().unwrap()["params"]["update"]["availableCommands"];
    let names: Vec<&str> = commands
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["compact", "undo", "diff", "init", "review"]);
    assert!(
        commands
            .as_array()
            .unwrap()
            .iter()
            .all(|c| !c["description"].as_str().unwrap().is_empty())
    );

    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "plan it"}]}),
    );
    let lines = c.until(answer_to(id));
    let plan = updates(&lines)
        .into_iter()
        .find(|u| u["sessionUpdate"] == "plan")
        .unwrap_or_else(|| panic!("no plan: {lines:#?}"));
    assert_eq!(
        plan["entries"],
        json!([
            {"content": "read main", "status": "completed", "priority": "medium"},
            {"content": "change it", "status": "in_progress", "priority": "medium"},
        ])
    );

    // A command prompt runs the command; the model is not asked. `/undo`
    // is answered by its own outcome, not by the notice of the mode change
    // sent while it runs.
    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "/undo"}]}),
    );
    c.send(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "auto"}),
    );
    let lines = c.until(answer_to(id));
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    let undo = chunks(&lines, "agent_message_chunk");
    assert!(
        !undo.is_empty() && !undo.contains("permission mode"),
        "{undo}"
    );
    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "/compact"}]}),
    );
    let lines = c.until(answer_to(id));
    // Its job is stamped with the prompt's op, so its end answers it.
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "/diff"}]}),
    );
    let lines = c.until(answer_to(id));
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    assert!(
        !chunks(&lines, "agent_message_chunk").is_empty(),
        "{lines:#?}"
    );
    assert_eq!(
        mock.request_count(),
        2,
        "only the planning prompt's two steps"
    );
    assert_eq!(c.finish(), Some(0));
}

#[test]
fn prompt_files_reach_the_editor_and_run_as_commands() {
    let f = Workspace::new("fn main() {}\n");
    let dir = f.repo.join(".claude/commands");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("fix.md"),
        "---\ndescription: Fix a tracked issue\nargument-hint: [issue]\n---\nFix $ARGUMENTS carefully.\n",
    )
    .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mock = rt.block_on(MockModel::start([Reply::openai_text("fixed")]));
    let mut c = Client::start(&f, &mock.openai_base_url());
    c.call(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    let opened = c.send("session/new", json!({"cwd": f.repo, "mcpServers": []}));
    // The first update has ours; the one after the host's listing the file.
    let lines = c.until(|l| {
        l["params"]["update"]["availableCommands"]
            .as_array()
            .is_some_and(|all| all.iter().any(|c| c["name"] == "fix"))
    });
    let session = lines.iter().find(|l| answer_to(opened)(l)).unwrap()["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let fix = lines.last().unwrap()["params"]["update"]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "fix")
        .unwrap()
        .clone();
    assert_eq!(fix["description"], "Fix a tracked issue");
    assert_eq!(fix["input"]["hint"], "[issue]");

    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "/fix issue-12"}]}),
    );
    let lines = c.until(answer_to(id));
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    let sent = mock.requests()[0].body.to_string();
    assert!(sent.contains("Fix issue-12 carefully."), "{sent}");

    // Outside a repository `/review` is answered without the model.
    let id = c.send(
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "/review"}]}),
    );
    let lines = c.until(answer_to(id));
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    let said = chunks(&lines, "agent_message_chunk");
    assert!(said.contains("not inside a git work tree"), "{said}");
    assert_eq!(mock.request_count(), 1);
    assert_eq!(c.finish(), Some(0));
}
