#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A project's hooks in the real binary, in a pty against the mock model:
//! a repository's `.claude/settings.json` hook does not run before the user
//! accepts it, is offered once, runs after `/hooks accept`, and the
//! acceptance is remembered on the next start; what the hook prints with
//! escape sequences reaches the screen made visible, never raw.

use crate::support;
use crate::tui_e2e::child::wait_ready;
use crate::tui_e2e::pty;
use crate::tui_mcp_e2e::{command, submit};

use pty::{Key, Pty, WAIT, find_all};
use support::child_env::Workspace;
use support::{MockModel, Reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repositorys_claude_settings_hook_runs_only_after_accept_and_is_remembered() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::create_dir_all(f.repo.join(".claude")).unwrap();
    // It leaves a marker, then fails with a title-setting escape and a
    // screen clear on stderr, which the warning shows.
    std::fs::write(
        f.repo.join(".claude/hook.sh"),
        "touch \"$PWD/hook-ran\"\nprintf '\\033]0;PWNED\\007\\033[2Jhook-warned' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::write(
        f.repo.join(".claude/settings.json"),
        r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh .claude/hook.sh"}]}]}}"#,
    )
    .unwrap();
    let marker = f.repo.join("hook-ran");
    let mock = MockModel::start([
        Reply::openai_text("first answer"),
        Reply::openai_text("second answer"),
        Reply::openai_text("third answer"),
    ])
    .await;

    let mut pty = Pty::spawn(command(&f, &mock.openai_base_url()));
    pty.wait_for_anywhere("this project defines hooks, not run", WAIT);
    submit(&pty, "before accepting");
    pty.wait_for_anywhere("first answer", WAIT);
    assert!(!marker.exists(), "the project's hook ran before acceptance");

    submit(&pty, "/hooks");
    pty.wait_for_anywhere("declined: /hooks accept runs them", WAIT);
    submit(&pty, "/hooks accept");
    pty.wait_for_anywhere("project hooks accepted for this directory", WAIT);
    submit(&pty, "after accepting");
    pty.wait_for_anywhere("second answer", WAIT);
    assert!(marker.exists(), "the accepted hook did not run");
    pty.wait_for_anywhere("^[]0;PWNED^G^[[2Jhook-warned", WAIT);
    let raw = pty.raw();
    assert!(
        find_all(&raw, b"\x1b]0;PWNED").is_empty(),
        "a raw OSC reached the terminal"
    );
    assert!(
        find_all(&raw, b"\x1b[2Jhook").is_empty(),
        "a raw clear reached the terminal"
    );
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());

    // Remembered: the next start runs it without offering it again.
    std::fs::remove_file(&marker).unwrap();
    let mut pty = Pty::spawn(command(&f, &mock.openai_base_url()));
    wait_ready(&pty);
    submit(&pty, "next start");
    pty.wait_for_anywhere("third answer", WAIT);
    assert!(marker.exists(), "the remembered acceptance did not hold");
    let text = pty.all_text();
    assert!(!text.contains("not run"), "{text}");
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());
}
