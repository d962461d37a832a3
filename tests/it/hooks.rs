#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Hooks in `exec` against the mock model: the event as JSON on stdin, exit
//! 2 blocking a call with its stderr as the reason the next request carries
//! (or refusing a prompt, or making a turn go on), stdout reaching the
//! request where Claude Code adds it, a hook past its timeout killed with
//! its process group while the turn goes on, a project's hooks run only
//! once accepted.

use crate::support;

use serde_json::json;
use support::bounded::{pid_in, process_gone};
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

/// Runs `exec` with `args` against `mock`; it must succeed.
async fn exec_ok(f: &Workspace, mock: &MockModel, args: &[&str]) -> std::process::Output {
    let out = run(command(f, &mock.openai_base_url(), args)).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out
}

/// Waits until the process whose pid the file `pid_file` holds is gone.
async fn pid_gone(pid_file: &std::path::Path) {
    process_gone(&pid_in(pid_file).await).await;
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
    exec_ok(&f, &mock, &["--permissions", "full", "run it"]).await;
    assert!(
        f.repo.join("ran.txt").exists(),
        "the call went on after the timeout"
    );
    pid_gone(&f.repo.join("hook.pid")).await;
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
    exec_ok(&f, &mock, &["--permissions", "auto", "edit it"]).await;
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

#[tokio::test(flavor = "multi_thread")]
async fn a_user_prompt_submit_hooks_stdout_reaches_the_request() {
    let f = Workspace::new("fn main() {}\n");
    config(
        &f,
        r#"
[[hooks.UserPromptSubmit]]
command = "cat > \"$PWD/prompt.json\"; echo 'the build on main is green'"
"#,
    );
    let mock = MockModel::start([Reply::openai_text("done")]).await;
    exec_ok(&f, &mock, &["how is the build?"]).await;
    let sent = mock.requests()[0].body["messages"].to_string();
    assert!(
        sent.contains("[UserPromptSubmit hook]") && sent.contains("the build on main is green"),
        "{sent}"
    );
    let event: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.repo.join("prompt.json")).unwrap()).unwrap();
    assert_eq!(event["hook_event_name"], "UserPromptSubmit");
    assert_eq!(event["prompt"], "how is the build?");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_user_prompt_submit_hook_exiting_2_refuses_the_prompt_and_tells_the_user() {
    let f = Workspace::new("fn main() {}\n");
    config(
        &f,
        r#"
[[hooks.UserPromptSubmit]]
command = "echo 'no secrets in prompts' >&2; exit 2"
"#,
    );
    let mock = MockModel::start([Reply::openai_text("done")]).await;
    let out = run(command(&f, &mock.openai_base_url(), &["my key is hunter2"])).await;
    let stderr = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("refused the prompt: no secrets in prompts"),
        "{stderr}"
    );
    assert_eq!(mock.request_count(), 0, "the refused prompt was sent");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_start_hooks_stdout_reaches_the_first_request_once() {
    let f = Workspace::new("fn main() {}\n");
    config(
        &f,
        r#"
[[hooks.SessionStart]]
matcher = "startup"
command = "cat >> \"$PWD/starts.json\"; echo >> \"$PWD/starts.json\"; echo 'open issues: #12 flaky test'"
"#,
    );
    let mock = MockModel::start(shell_then_done("true")).await;
    exec_ok(&f, &mock, &["--permissions", "full", "what is open?"]).await;
    let first = mock.requests()[0].body["messages"].to_string();
    assert!(
        first.contains("[SessionStart hook]") && first.contains("open issues: #12 flaky test"),
        "{first}"
    );
    let starts = std::fs::read_to_string(f.repo.join("starts.json")).unwrap();
    let events: Vec<serde_json::Value> = starts
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 1, "it ran once for two requests: {starts}");
    assert_eq!(events[0]["hook_event_name"], "SessionStart");
    assert_eq!(events[0]["source"], "startup");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stop_hook_exiting_2_makes_the_turn_go_on_once() {
    let f = Workspace::new("fn main() {}\n");
    config(
        &f,
        r#"
[[hooks.Stop]]
command = "if [ -e \"$PWD/stopped\" ]; then cat > \"$PWD/second_stop.json\"; exit 0; fi; touch \"$PWD/stopped\"; echo 'run the tests before you stop' >&2; exit 2"
"#,
    );
    let mock = MockModel::start([
        Reply::openai_text("done"),
        Reply::openai_text("tests ran, now done"),
    ])
    .await;
    let stdout = text(&exec_ok(&f, &mock, &["fix it"]).await.stdout);
    assert_eq!(mock.request_count(), 2, "{stdout}");
    let next = mock.requests()[1].body["messages"].to_string();
    assert!(next.contains("run the tests before you stop"), "{next}");
    assert!(stdout.contains("tests ran, now done"), "{stdout}");
    let event: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.repo.join("second_stop.json")).unwrap()).unwrap();
    assert_eq!(event["hook_event_name"], "Stop");
    assert_eq!(event["stop_hook_active"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stop_hook_past_its_timeout_is_killed_and_the_turn_ends() {
    let f = Workspace::new("fn main() {}\n");
    config(
        &f,
        r#"
[[hooks.Stop]]
command = "sleep 600 & echo $! > \"$PWD/stop.pid\"; wait"
timeout_sec = 1
"#,
    );
    let mock = MockModel::start([Reply::openai_text("done")]).await;
    let stderr = text(&exec_ok(&f, &mock, &["fix it"]).await.stderr);
    assert!(stderr.contains("Stop hook"), "{stderr}");
    assert!(stderr.contains("timed out; killed"), "{stderr}");
    pid_gone(&f.repo.join("stop.pid")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_runs_a_projects_hooks_only_once_accepted_and_says_why_not() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::create_dir_all(f.repo.join(".claude")).unwrap();
    std::fs::write(
        f.repo.join(".claude/settings.json"),
        r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch \"$CLAUDE_PROJECT_DIR/project-hook-ran\""}]}]}}"#,
    )
    .unwrap();
    let marker = f.repo.join("project-hook-ran");

    let mock = MockModel::start([Reply::openai_text("done")]).await;
    let out = run(command(&f, &mock.openai_base_url(), &["hello"])).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("this project's hooks were not run"),
        "{stderr}"
    );
    assert!(stderr.contains("/hooks accept"), "{stderr}");
    assert!(!marker.exists(), "a project's hook ran before acceptance");

    // Accepted for these hooks (what `/hooks accept` records): run.
    let hooks = light_agent::host::project_hooks::read(&f.repo)
        .unwrap()
        .unwrap();
    let manager =
        light_agent::session::SessionManager::open(&f.home.join("sessions.sqlite3")).unwrap();
    light_agent::host::project_hooks::decide(&manager, &f.repo, &hooks, true)
        .await
        .unwrap();
    drop(manager);
    let mock = MockModel::start([Reply::openai_text("done")]).await;
    let stderr = text(&exec_ok(&f, &mock, &["hello"]).await.stderr);
    assert!(!stderr.contains("were not run"), "{stderr}");
    assert!(marker.exists(), "the accepted hook did not run");
}
