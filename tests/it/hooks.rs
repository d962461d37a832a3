#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `[[hooks.PreToolUse]]` in `exec` against the mock model: the event as
//! JSON on stdin, exit 2 blocking the call with its stderr as the reason the
//! next request carries, a hook past its timeout killed with its process
//! group while the turn goes on.

use crate::support;

use serde_json::json;
use support::bounded::until;
use support::child_env::{Workspace, run};
use support::{MockModel, OpenAiStream, Reply};

use crate::exec_permissions::{command, config, edit_then_done, text};

/// A model that runs `cmd` in the shell, then says done.
fn shell_then_done(cmd: &str) -> [Reply; 2] {
    let args = json!({"_intent": "run it", "command": cmd}).to_string();
    [
        OpenAiStream::new()
            .tool_call("call_1", "shell", &[&args])
            .into_reply(),
        Reply::openai_text("done"),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pre_tool_use_hook_exiting_2_blocks_the_call_and_the_model_reads_why() {
    let f = Workspace::new("fn main() {}\n");
    config(
        &f,
        r#"
[[hooks.PreToolUse]]
matcher = "Bash|edit"
command = "env > \"$PWD/hook.env\"; cat > \"$PWD/event.json\"; echo 'force pushes are not allowed here' >&2; exit 2"
timeout_sec = 30
"#,
    );
    let mock = MockModel::start(shell_then_done("touch ran.txt")).await;
    let mut cmd = command(
        &f,
        &mock.openai_base_url(),
        &["--permissions", "full", "push it"],
    );
    cmd.env("DEPLOY_TOKEN", "hunter2")
        .env("HOOK_VISIBLE", "yes");
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!f.repo.join("ran.txt").exists(), "the blocked command ran");
    let next = mock.requests()[1].body["messages"].to_string();
    assert!(
        next.contains("a PreToolUse hook blocked this call")
            && next.contains("force pushes are not allowed here"),
        "{next}"
    );

    let event: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.repo.join("event.json")).unwrap()).unwrap();
    assert_eq!(event["hook_event_name"], "PreToolUse");
    assert_eq!(event["tool_name"], "shell");
    assert_eq!(event["tool_input"], json!({"command": "touch ran.txt"}));
    assert_eq!(event["tool_use_id"], "call_1");
    assert_eq!(
        event["cwd"].as_str().unwrap(),
        std::fs::canonicalize(&f.repo).unwrap().to_str().unwrap()
    );
    assert!(!event["session_id"].as_str().unwrap().is_empty(), "{event}");

    // The commands' environment rules: secrets out, the rest in.
    let env = std::fs::read_to_string(f.repo.join("hook.env")).unwrap();
    assert!(env.contains("HOOK_VISIBLE=yes"), "{env}");
    assert!(!env.contains("hunter2"), "{env}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hook_past_its_timeout_is_killed_with_its_group_and_the_call_runs() {
    let f = Workspace::new("fn main() {}\n");
    config(
        &f,
        r#"
[[hooks.PreToolUse]]
matcher = "shell"
command = "sleep 600 & echo $! > \"$PWD/hook.pid\"; wait"
timeout_sec = 1

[[hooks.PreToolUse]]
matcher = "read_file"
command = "exit 2"
"#,
    );
    let mock = MockModel::start(shell_then_done("touch ran.txt")).await;
    let out = run(command(
        &f,
        &mock.openai_base_url(),
        &["--permissions", "full", "run it"],
    ))
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        f.repo.join("ran.txt").exists(),
        "the call went on after the timeout"
    );
    let pid = std::fs::read_to_string(f.repo.join("hook.pid")).unwrap();
    let pid = pid.trim().to_string();
    let gone = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |stat| stat.contains(") Z "))
    };
    until("the hook's sleep to be gone", gone).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_tool_use_hook_sees_the_edits_path_and_its_answer_reaches_the_model() {
    let f = Workspace::new("fn main() {\n    println!(\"old\");\n}\n");
    config(
        &f,
        r#"
[[hooks.PostToolUse]]
matcher = "Edit|Write"
command = "cat > \"$PWD/post.json\"; echo 'now run cargo fmt' >&2; exit 2"
"#,
    );
    let mock = MockModel::start(edit_then_done()).await;
    let out = run(command(
        &f,
        &mock.openai_base_url(),
        &["--permissions", "auto", "edit it"],
    ))
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let source = std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap();
    assert!(source.contains("\"new\""), "the edit ran first: {source}");
    let event: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.repo.join("post.json")).unwrap()).unwrap();
    assert_eq!(event["hook_event_name"], "PostToolUse");
    assert_eq!(event["tool_name"], "edit");
    assert_eq!(event["tool_input"]["path"], "src/main.rs");
    assert_eq!(event["tool_response"]["is_error"], false, "{event}");
    let next = mock.requests()[1].body["messages"].to_string();
    assert!(
        next.contains("[PostToolUse hook]: now run cargo fmt"),
        "{next}"
    );
}
