#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The user's own commands in the real binary in a pty: `!echo hi` shows
//! its output in a pane and reaches the model with the next prompt; live
//! output streams into the pane while the command runs; Esc stops it and
//! leaves no process.

use crate::support;
use crate::tui_e2e::child::agent_command;
use crate::tui_e2e::pty;

use portable_pty::CommandBuilder;
use pty::{Key, Pty, WAIT, all_text};
use support::child_env::Workspace;
use support::shell_harness::unique_sleep;
use support::{MockModel, Reply};

fn agent(f: &Workspace, url: &str) -> CommandBuilder {
    std::fs::create_dir_all(&f.home).unwrap();
    let mut cmd = agent_command(f, Some(url));
    cmd.arg("--new");
    cmd
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bang_echo_shows_its_output_and_reaches_the_model() {
    let f = Workspace::new("fn main() {}\n");
    let mock = MockModel::start([Reply::openai_text("It printed hi.")]).await;
    let pty = Pty::spawn(agent(&f, &mock.openai_base_url()));
    pty.wait_for_text("mock-model", WAIT);
    pty.type_text("!echo hi-from-the-user");
    pty.press(Key::Enter);
    pty.wait_until("a finished ! pane with the output", WAIT, |screen| {
        let text = all_text(screen);
        text.lines()
            .any(|l| l.contains('✓') && l.contains("echo hi-from-the-user"))
            && text.contains("│ hi-from-the-user")
    });
    assert!(mock.requests().is_empty(), "a !command asks no model");
    pty.type_text("what did it print?");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("It printed hi.", WAIT);
    let sent = mock.requests()[0].body["messages"].to_string();
    assert!(sent.contains("I ran this command myself"), "{sent}");
    assert!(sent.contains("hi-from-the-user"), "{sent}");
    assert!(sent.contains("what did it print?"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_output_streams_into_the_pane_and_esc_stops_the_command() {
    let f = Workspace::new("fn main() {}\n");
    let mock = MockModel::start(Vec::<Reply>::new()).await;
    let pty = Pty::spawn(agent(&f, &mock.openai_base_url()));
    pty.wait_for_text("mock-model", WAIT);
    let nap = unique_sleep(60);
    pty.type_text(&format!(
        "!echo first-live-line; echo second-live-line; sleep {nap}"
    ));
    pty.press(Key::Enter);
    // Shown while it still runs: the command has not ended, its sleep is alive.
    pty.wait_for_text("second-live-line", WAIT);
    assert!(
        !support::shell_harness::wait_until_running(&nap)
            .await
            .is_empty(),
        "the command still runs"
    );
    pty.press(Key::Esc);
    pty.wait_until("the pane ended as stopped", WAIT, |screen| {
        all_text(screen).contains("stopped: it and everything")
    });
    assert_eq!(
        support::shell_harness::wait_until_gone(&nap).await,
        Vec::<u32>::new()
    );
}

fn shell_call(id: &str, command: &str) -> Reply {
    let args = serde_json::json!({ "_intent": "run it", "command": command }).to_string();
    support::OpenAiStream::new()
        .tool_call(id, "shell", &[&args])
        .into_reply()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_are_approved_or_denied_in_the_overlay_and_stream_live() {
    let f = Workspace::new("fn main() {}\n");
    let nap = unique_sleep(60);
    let mock = MockModel::start([
        shell_call("call_1", "echo approved > marker.txt"),
        Reply::openai_text("Ran it."),
        shell_call("call_2", "echo nope > denied.txt"),
        Reply::openai_text("Not run."),
        shell_call(
            "call_3",
            &format!("echo tick-one; echo tick-two; sleep {nap}"),
        ),
        Reply::openai_text("never sent"),
    ])
    .await;
    let mut cmd = agent(&f, &mock.openai_base_url());
    cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
    let pty = Pty::spawn(cmd);
    pty.wait_for_text("mock-model", WAIT);

    // y: the overlay shows the command, where and how it runs; it runs.
    pty.type_text("run one");
    pty.press(Key::Enter);
    pty.wait_for_text("$ echo approved > marker.txt", WAIT);
    pty.wait_for_text("sandboxed", WAIT);
    pty.type_text("y");
    pty.wait_for_anywhere("Ran it.", WAIT);
    assert_eq!(
        std::fs::read_to_string(f.repo.join("marker.txt")).unwrap(),
        "approved\n"
    );

    // n: nothing runs, and the model is told.
    pty.type_text("run two");
    pty.press(Key::Enter);
    pty.wait_for_text("$ echo nope > denied.txt", WAIT);
    pty.type_text("n");
    pty.wait_for_text("reason:", WAIT);
    pty.press(Key::Enter);
    pty.wait_for_anywhere("Not run.", WAIT);
    assert!(!f.repo.join("denied.txt").exists());
    let denial = mock.requests()[3].body["messages"].to_string();
    assert!(denial.contains("denied by the user"), "{denial}");

    // Live output shows in the pane while the command runs; Esc ends it.
    pty.type_text("run three");
    pty.press(Key::Enter);
    pty.wait_for_text("$ echo tick-one", WAIT);
    pty.type_text("y");
    pty.wait_for_text("tick-two", WAIT);
    assert!(
        !support::shell_harness::wait_until_running(&nap)
            .await
            .is_empty(),
        "still running"
    );
    pty.press(Key::Esc);
    pty.wait_for_anywhere("interrupted", WAIT);
    assert_eq!(
        support::shell_harness::wait_until_gone(&nap).await,
        Vec::<u32>::new()
    );
}
