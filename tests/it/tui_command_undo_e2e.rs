#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 27 in the real binary in a pty: in `auto` the approval overlay
//! names what makes a command destructive and `y` runs it; `/undo` puts
//! back what the model's command and the user's own `!cmd` removed.

use crate::support;
use crate::tui_e2e::child::agent_command;
use crate::tui_e2e::pty;

use pty::{Key, Pty, WAIT};
use support::child_env::Workspace;
use support::{MockModel, Reply};

const MAIN: &str = "fn main() {\n    println!(\"keep me\");\n}\n";

fn shell_call(command: &str) -> Reply {
    let args = serde_json::json!({ "_intent": "clean up", "command": command }).to_string();
    support::OpenAiStream::new()
        .tool_call("call_1", "shell", &[&args])
        .into_reply()
}

fn spawn(f: &Workspace, mock: &MockModel) -> Pty {
    std::fs::create_dir_all(&f.home).unwrap();
    let mut cmd = agent_command(f, Some(&mock.openai_base_url()));
    cmd.args(["--new", "--permissions", "auto"]);
    let pty = Pty::spawn(cmd);
    pty.wait_for_text("mock-model", WAIT);
    pty
}

/// `/undo` says it restored `src/main.rs`, and it holds what it held.
fn undo_restores_main(pty: &Pty, f: &Workspace) {
    pty.type_text("/undo");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("restored src/main.rs", WAIT);
    assert_eq!(
        std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap(),
        MAIN
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_asks_about_a_destructive_command_naming_why_and_undo_restores_it() {
    let f = Workspace::new(MAIN);
    let mock = MockModel::start([shell_call("rm -rf src"), Reply::openai_text("Removed.")]).await;
    let pty = spawn(&f, &mock);
    pty.type_text("clean up");
    pty.press(Key::Enter);
    pty.wait_for_text("destructive: `rm -rf src` removes files recursively", WAIT);
    assert!(
        f.repo.join("src/main.rs").exists(),
        "not run before the answer"
    );
    pty.type_text("y");
    pty.wait_for_anywhere("Removed.", WAIT);
    assert!(!f.repo.join("src").exists(), "y ran it");
    undo_restores_main(&pty, &f);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_restores_what_the_users_own_command_removed() {
    let f = Workspace::new(MAIN);
    let mock = MockModel::start([Reply::openai_text("Hello there.")]).await;
    let pty = spawn(&f, &mock);
    // A session is recorded from its first prompt on.
    pty.type_text("hi");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("Hello there.", WAIT);
    pty.type_text("!rm -rf src");
    pty.press(Key::Enter);
    // The pane closes once the change set is recorded.
    pty.wait_for_anywhere("exit 0 after", WAIT);
    assert!(!f.repo.join("src").exists());
    undo_restores_main(&pty, &f);
}
