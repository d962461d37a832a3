#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Approvals in the real binary, in a pty against the mock model: the
//! overlay shows the diff, `y` applies, `n` denies with a reason the next
//! request carries, `a` stops asking for the tool; `/undo` restores every
//! byte and the mode, `/diff` shows the session's changes.

use crate::support;
use crate::tui_e2e::child::agent_command;
use crate::tui_e2e::pty;

use std::os::unix::fs::PermissionsExt;

use portable_pty::CommandBuilder;
use pty::{Key, Pty, WAIT};
use serde_json::json;
use support::child_env::Workspace;
use support::{MockModel, OpenAiStream, Reply};

const MAIN: &str = "fn main() {\n    println!(\"hello\");\n}\n";

fn edit(id: &str, from: &str, to: &str) -> Reply {
    let args = json!({
        "_intent": "change the greeting",
        "path": "src/main.rs",
        "edits": [{"old_string": from, "new_string": to}],
    })
    .to_string();
    OpenAiStream::new()
        .tool_call(id, "edit", &[&args])
        .into_reply()
}

/// The agent in the TUI's own default permission mode.
fn command(f: &Workspace, url: &str) -> CommandBuilder {
    let mut cmd = agent_command(f, Some(url));
    cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
    cmd
}

fn main_rs(f: &Workspace) -> String {
    std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap()
}

/// Types a prompt or command and sends it.
fn submit(pty: &Pty, text: &str) {
    pty.type_text(text);
    pty.wait_for_text(text, WAIT);
    pty.press(Key::Enter);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approve_deny_always_then_undo_and_diff_in_a_pty() {
    let f = Workspace::new(MAIN);
    std::fs::create_dir_all(&f.home).unwrap();
    let main = f.repo.join("src/main.rs");
    std::fs::set_permissions(&main, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mock = MockModel::start([
        edit("call_1", "hello", "bye"),
        Reply::openai_text("Applied the first change."),
        edit("call_2", "bye", "ciao"),
        Reply::openai_text("Understood, not changed."),
        edit("call_3", "bye", "hej"),
        edit("call_4", "hej", "hallo"),
        Reply::openai_text("Both changes are in."),
    ])
    .await;
    let mut pty = Pty::spawn(command(&f, &mock.openai_base_url()));
    pty.wait_for_text("mock-model", WAIT);

    // y: the overlay shows the diff; the edit applies.
    submit(&pty, "Say bye");
    pty.wait_for_text("approve?", WAIT);
    pty.wait_for_text("│-    println!(\"hello\");", WAIT);
    pty.wait_for_text("│+    println!(\"bye\");", WAIT);
    pty.type_text("y");
    pty.wait_for_anywhere("Applied the first change.", WAIT);
    assert_eq!(main_rs(&f), MAIN.replace("hello", "bye"));

    // n + reason: nothing changes, and the model is told why.
    submit(&pty, "Say ciao");
    pty.wait_for_text("│+    println!(\"ciao\");", WAIT);
    pty.type_text("n");
    pty.wait_for_text("reason:", WAIT);
    pty.type_text("keep it short");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("Understood, not changed.", WAIT);
    assert_eq!(main_rs(&f), MAIN.replace("hello", "bye"));
    let denial = mock.requests()[3].body["messages"].to_string();
    assert!(
        denial.contains("denied by the user: keep it short"),
        "{denial}"
    );

    // a: applies, and the next edit in the same session is not asked.
    submit(&pty, "Two more");
    pty.wait_for_text("│+    println!(\"hej\");", WAIT);
    pty.type_text("a");
    pty.wait_for_anywhere("Both changes are in.", WAIT);
    assert_eq!(main_rs(&f), MAIN.replace("hello", "hallo"));
    assert!(!pty.screen().contains("approve?"), "{}", pty.screen());

    // /undo: the latest turn (two edits) back to what turn one left.
    submit(&pty, "/undo");
    pty.wait_for_anywhere("undid turn 3:", WAIT);
    assert_eq!(main_rs(&f), MAIN.replace("hello", "bye"));

    // /diff: what the session changed so far.
    submit(&pty, "/diff");
    pty.wait_for_anywhere("+++ b/src/main.rs", WAIT);
    pty.wait_for_anywhere("+    println!(\"bye\");", WAIT);

    // Undo again: the original bytes and mode.
    submit(&pty, "/undo");
    pty.wait_for_anywhere("undid turn 1:", WAIT);
    assert_eq!(main_rs(&f), MAIN);
    assert_eq!(
        std::fs::metadata(&main).unwrap().permissions().mode() & 0o777,
        0o755
    );

    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());
}
