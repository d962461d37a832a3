#![allow(clippy::unwrap_used, clippy::expect_used)]
//! An interrupt ends a turn even while a tool's blocking thread is stuck in
//! the kernel (nothing ever waits for that thread), and SIGINT ends `exec`
//! while a tool is working on a FIFO.

use crate::support;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use std::sync::{Arc, Mutex};

use light_agent::ai::{HttpOptions, INTERRUPTED_CALL_RESULT, OpenAiAdaptor};
use light_agent::protocol::{AgentEvent, StopCause};
use light_agent::tool::{ToolDefinition, ToolOutput};
use support::agent_harness::Harness;
use support::child_env::{Workspace, scrub};
use support::{MockModel, OpenAiStream, Reply};

/// Waits for `child` to exit; `None` if it is still running after `limit`
/// (a hang guard, not a timing assertion: the bound is far above normal).
fn wait_exit(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

fn sigint(child: &Child) {
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// A `read_file` of the FIFO `pipe`.
fn fifo_tool_call() -> Reply {
    OpenAiStream::new()
        .tool_call(
            "c1",
            "read_file",
            &[r#"{"path":"pipe","_intent":"read the pipe"}"#],
        )
        .into_reply()
}

#[tokio::test(flavor = "multi_thread")]
async fn sigint_ends_exec_during_a_tool_call_on_a_fifo() {
    let f = Workspace::new("fn main() {}\n");
    let fifo = f.repo.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // The model would be asked again after the tool; it never gets there.
    let mock = MockModel::start([fifo_tool_call(), Reply::openai_text("never")]).await;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.args(["exec", "--base-url", &mock.openai_base_url()])
        .args(["--model", "mock-model", "--json", "read the pipe"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    // The tool is running once its `tool_calls` event is printed.
    let stdout = child.stdout.take().unwrap();
    let (seen_tx, seen_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if line.contains("\"tool_calls\"") {
                let _ = seen_tx.send(());
            }
        }
    });
    let seen = tokio::task::spawn_blocking(move || seen_rx.recv_timeout(Duration::from_secs(20)))
        .await
        .unwrap();
    assert!(seen.is_ok(), "the tool call started");
    sigint(&child);
    let status = tokio::task::spawn_blocking(move || {
        let status = wait_exit(&mut child, Duration::from_secs(20));
        if status.is_none() {
            let _ = child.kill();
        }
        status
    })
    .await
    .unwrap();
    let status = status.expect("exec exits after SIGINT");
    assert!(
        matches!(status.code(), Some(0 | 130)),
        "interrupted or done: {status:?}"
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_ends_the_turn_while_a_blocking_thread_is_stuck() {
    let h = Harness::start(
        vec![
            OpenAiStream::new()
                .tool_call("c1", "stuck", &[r#"{"_intent":"block"}"#])
                .into_reply(),
        ],
        |mock| {
            Arc::new(
                OpenAiAdaptor::new(mock.openai_base_url(), None, "m", HttpOptions::default())
                    .unwrap(),
            )
        },
    )
    .await;
    // The thread blocks in the kernel (a futex wait) until the test ends.
    let (release, blocked) = std::sync::mpsc::channel::<()>();
    let blocked = Arc::new(Mutex::new(blocked));
    let (entered_tx, entered_rx) = tokio::sync::oneshot::channel();
    let entered = Arc::new(Mutex::new(Some(entered_tx)));
    h.agent
        .tool()
        .register(ToolDefinition::new(
            "stuck",
            "Blocks a thread.",
            move |_: NoArgs, _ctx| {
                let blocked = blocked.clone();
                let entered = entered.clone();
                async move {
                    let stuck = tokio::task::spawn_blocking(move || {
                        if let Some(tx) = entered.lock().unwrap().take() {
                            let _ = tx.send(());
                        }
                        let _ = blocked.lock().unwrap().recv();
                    });
                    let _ = stuck.await;
                    ToolOutput::ok("released")
                }
            },
        ))
        .unwrap();
    let agent = h.agent.clone();
    let turn = tokio::spawn(async move { agent.prompt("block").await });
    entered_rx.await.unwrap();
    h.agent.interrupt("stop");
    let outcome = tokio::time::timeout(Duration::from_secs(20), turn)
        .await
        .expect("the turn ends without waiting for the stuck thread")
        .unwrap()
        .unwrap();
    assert_eq!(outcome.cause, StopCause::User);
    let results: Vec<String> = h
        .session
        .load_all()
        .await
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult { outcome, .. } => Some(outcome.result),
            _ => None,
        })
        .collect();
    assert_eq!(results, [INTERRUPTED_CALL_RESULT]);
    drop(release);
}
