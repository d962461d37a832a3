#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Notifications in the real binary, in a pty against the mock model: the
//! UI asks for focus reports, and a turn that ends while the terminal is
//! unfocused writes OSC 9 (on a terminal that shows it) — one that ends
//! while focused writes nothing.

use crate::support;
use crate::tui_e2e::child::{agent_command, fixture, wait_ready};
use crate::tui_e2e::pty;

use pty::{Key, Pty, WAIT, find_all};
use support::{MockModel, Reply};

const OSC9: &[u8] = b"\x1b]9;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_ending_unfocused_writes_osc_9_and_a_focused_one_does_not() {
    let f = fixture();
    let mock = MockModel::start([
        Reply::openai_text("first answer"),
        Reply::openai_text("second answer"),
    ])
    .await;
    let mut cmd = agent_command(&f, Some(&mock.openai_base_url()));
    cmd.env("TERM_PROGRAM", "WezTerm");
    cmd.env_remove("TMUX");
    let pty = Pty::spawn(cmd);
    wait_ready(&pty);
    pty.wait_for_bytes(b"\x1b[?1004h", WAIT);

    pty.type_text("one");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("first answer", WAIT);
    pty.wait_for_text("idle", WAIT);
    assert!(
        find_all(&pty.raw(), OSC9).is_empty(),
        "nothing is written while the terminal has the focus"
    );

    // The terminal reports the focus lost (CSI O), as it does when the
    // user switches windows.
    pty.send(b"\x1b[O");
    pty.type_text("two");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("second answer", WAIT);
    pty.wait_for_bytes(b"\x1b]9;turn done\x07", WAIT);
    assert_eq!(find_all(&pty.raw(), OSC9).len(), 1, "one notification");
}
