#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `light-agent exec` run as a process against the mock model server.

use crate::support;

use std::process::{Command, Stdio};
use std::time::Duration;

use light_agent::protocol::AgentEvent;
use support::bounded::ends;
use support::child_env::{Workspace, run, scrub};
use support::{MockModel, OpenAiStream, Reply};

fn fixture() -> Workspace {
    Workspace::new("fn main() {}\n")
}

fn command(f: &Workspace, base_url: Option<&str>, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.arg("exec");
    if let Some(url) = base_url {
        cmd.args(["--base-url", url, "--model", "mock-model"]);
    }
    cmd.args(args).stdin(Stdio::null());
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn continue_resumes_the_latest_session_of_the_directory() {
    let f = fixture();
    let mock = MockModel::start([
        Reply::openai_text("The answer is 42."),
        Reply::openai_text("Still 42."),
    ])
    .await;
    let url = mock.openai_base_url();

    let first = run(command(&f, Some(&url), &["What is the answer?"])).await;
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    assert_eq!(text(&first.stdout).trim(), "The answer is 42.");

    let second = run(command(&f, Some(&url), &["--continue", "Are you sure?"])).await;
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("What is the answer?") && sent.contains("The answer is 42."),
        "{sent}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn json_mode_prints_every_event_and_deltas_add_up() {
    let f = fixture();
    let reply = OpenAiStream::new()
        .reasoning("Think first.")
        .text("Streamed answer, in pieces.")
        .usage(12, 7)
        .into_reply();
    let mock = MockModel::start([reply]).await;
    let out = run(command(
        &f,
        Some(&mock.openai_base_url()),
        &["--json", "go"],
    ))
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let events: Vec<AgentEvent> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::OutputDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let full = events.iter().find_map(|e| match e {
        AgentEvent::Output { text, .. } => Some(text.clone()),
        _ => None,
    });
    assert_eq!(Some(deltas), full);
    let kinds: Vec<&str> = events
        .iter()
        .filter(|e| !e.is_transient())
        .map(AgentEvent::kind)
        .collect();
    assert_eq!(
        kinds,
        ["input", "thought", "output", "agent_trace", "agent_stop"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_can_come_from_stdin() {
    let f = fixture();
    let mock = MockModel::start([Reply::openai_text("ok")]).await;
    let mut cmd = command(&f, Some(&mock.openai_base_url()), &["-"]);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = tokio::task::spawn_blocking(move || {
        let mut child = cmd.spawn().unwrap();
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"prompt from a pipe")
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        mock.requests()[0].body["messages"]
            .to_string()
            .contains("prompt from a pipe")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_model_configured_says_what_to_set_and_exits_2() {
    let f = fixture();
    let out = run(command(&f, None, &["hello"])).await;
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("OPENAI_API_KEY") && err.contains("config init"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rejected_key_exits_1_without_echoing_it() {
    let f = fixture();
    let mock = MockModel::start([Reply::status(401)]).await;
    let mut cmd = command(&f, None, &["--provider", "openai", "hello"]);
    cmd.env("OPENAI_API_KEY", "sk-very-secret-key")
        .env("OPENAI_BASE_URL", mock.openai_base_url());
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.to_lowercase().contains("api key"), "{err}");
    assert!(
        !err.contains("sk-very-secret-key") && !text(&out.stdout).contains("sk-very-secret-key")
    );
    assert_eq!(mock.request_count(), 1, "401 is not retried");
    let db = std::fs::read(f.home.join("sessions.sqlite3")).unwrap();
    assert!(
        !String::from_utf8_lossy(&db).contains("sk-very-secret-key"),
        "the key never reaches the database"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sigint_interrupts_the_turn_exits_130_and_keeps_the_session() {
    let f = fixture();
    let hanging = OpenAiStream::new()
        .text("half of an answer")
        .into_reply()
        .hang_after(3);
    let mock = MockModel::start([hanging, Reply::openai_text("resumed")]).await;
    let url = mock.openai_base_url();
    let mut cmd = command(&f, Some(&url), &["--json", "start"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let pid = child.id();
    // SIGINT once the whole partial answer is on stdout (every delta the
    // mock sends before it hangs), so what the session keeps is known.
    let stdout = child.stdout.take().unwrap();
    let (shown_tx, shown_rx) = tokio::sync::oneshot::channel();
    let drain = tokio::task::spawn_blocking(move || {
        let mut shown = Some(shown_tx);
        let mut answer = String::new();
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)).map_while(Result::ok) {
            let event: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
            if event["type"] == "output_delta" {
                answer.push_str(event["text"].as_str().unwrap_or_default());
            }
            if answer.contains("half of an answer")
                && let Some(tx) = shown.take()
            {
                let _ = tx.send(());
            }
        }
    });
    ends("the partial answer on stdout", shown_rx)
        .await
        .unwrap();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    drain.await.unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert!(mock.wait_for_disconnect(Duration::from_secs(2)).await);

    let again = run(command(&f, Some(&url), &["--continue", "go on"])).await;
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("half of an answer") && sent.contains("interrupted"),
        "{sent}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn trace_logs_hold_request_bodies_but_never_the_key() {
    let f = fixture();
    let mock = MockModel::start([Reply::openai_text("logged answer")]).await;
    let mut cmd = command(
        &f,
        None,
        &[
            "--provider",
            "openai",
            "--log-level",
            "trace",
            "a logged prompt",
        ],
    );
    cmd.env("OPENAI_API_KEY", "sk-log-secret")
        .env("OPENAI_BASE_URL", mock.openai_base_url());
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let logs: String = std::fs::read_dir(f.home.join("logs"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(
        logs.contains("model request") && logs.contains("a logged prompt"),
        "{logs}"
    );
    assert!(logs.contains("turn ended"), "{logs}");
    assert!(!logs.contains("sk-log-secret"));
    assert!(
        !text(&out.stderr).contains("model request"),
        "logs never reach the terminal"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn continue_refuses_a_session_another_process_is_running() {
    let f = fixture();
    let hanging = OpenAiStream::new().text("busy").into_reply().hang_after(2);
    let mock = MockModel::start([hanging]).await;
    let url = mock.openai_base_url();
    let mut first = command(&f, Some(&url), &["start"]);
    first.stdout(Stdio::null()).stderr(Stdio::null());
    let mut first = first.spawn().unwrap();
    assert!(mock.wait_for_requests(1, Duration::from_secs(10)).await);

    let second = run(command(&f, Some(&url), &["--continue", "me too"])).await;
    let err = text(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(
        err.contains("in use by another light-agent process"),
        "{err}"
    );
    assert!(
        err.contains("without --continue") && !err.contains("--new"),
        "the hint names only options exec accepts: {err}"
    );
    assert_eq!(mock.request_count(), 1, "the second process sent nothing");

    Command::new("kill")
        .args(["-INT", &first.id().to_string()])
        .status()
        .unwrap();
    let status = tokio::task::spawn_blocking(move || first.wait().unwrap())
        .await
        .unwrap();
    assert_eq!(status.code(), Some(130));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slash_prompt_naming_a_command_runs_it_and_any_other_goes_to_the_model() {
    let f = fixture();
    let dir = f.repo.join(".claude/commands");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("fix.md"), "Fix $ARGUMENTS with care.\n").unwrap();
    let mock = MockModel::start([Reply::openai_text("fixed"), Reply::openai_text("a path")]).await;
    let url = mock.openai_base_url();

    let fixed = run(command(&f, Some(&url), &["/fix issue-12"])).await;
    assert_eq!(fixed.status.code(), Some(0), "{}", text(&fixed.stderr));
    let sent = mock.requests()[0].body.to_string();
    assert!(sent.contains("Fix issue-12 with care."), "{sent}");

    // Outside a repository `/review` says so and asks no model.
    let review = run(command(&f, Some(&url), &["/review"])).await;
    assert_eq!(review.status.code(), Some(0), "{}", text(&review.stderr));
    assert!(
        text(&review.stdout).contains("not inside a git work tree"),
        "{}",
        text(&review.stdout)
    );
    assert_eq!(mock.request_count(), 1);

    let path = run(command(&f, Some(&url), &["/usr/bin/env fails"])).await;
    assert_eq!(path.status.code(), Some(0), "{}", text(&path.stderr));
    let sent = mock.requests()[1].body.to_string();
    assert!(sent.contains("/usr/bin/env fails"), "{sent}");
}
