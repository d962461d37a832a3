#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Rewind and fork (issue #24 item 3) in the real binary in a pty against
//! the mock: Esc Esc → the second-to-last prompt → both puts every file
//! back byte for byte as before it, the next request no longer holds the
//! rewound steps, `show` still lists them; `/fork` and `--fork` copy the
//! session's history into a new session and leave the original alone.

use crate::support;
use crate::tui_e2e::child::agent_command;
use crate::tui_e2e::pty;

use std::collections::BTreeMap;
use std::path::Path;

use pty::{Key, Pty, WAIT};
use support::child_env::{PROVIDER_VARS, Workspace};
use support::{MockModel, OpenAiStream, Reply};

const MAIN: &str = "fn main() {}\n";
const DOWN: &[u8] = b"\x1b[B";
const CTRL_U: &[u8] = b"\x15";

fn write(id: &str, path: &str, content: &str) -> Reply {
    let args = serde_json::json!({ "_intent": "write", "path": path, "content": content });
    OpenAiStream::new()
        .tool_call(id, "write", &[&args.to_string()])
        .into_reply()
}

/// Four turns: alpha writes a.txt; bravo rewrites it and adds b.txt;
/// charlie rewrites a.txt again; delta only answers.
fn script() -> Vec<Reply> {
    vec![
        write("c1", "a.txt", "one\n"),
        Reply::openai_text("Reply-alpha"),
        write("c2", "a.txt", "two\n"),
        write("c3", "b.txt", "bee\n"),
        Reply::openai_text("Reply-bravo"),
        write("c4", "a.txt", "three\n"),
        Reply::openai_text("Reply-charlie"),
        Reply::openai_text("Reply-delta"),
    ]
}

/// Every file of the repository and its bytes.
fn files(repo: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(repo, repo, &mut out);
    out
}

fn db(home: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(home.join("sessions.sqlite3")).unwrap()
}

/// Session ids, oldest first.
fn sessions(home: &Path) -> Vec<String> {
    let db = db(home);
    let mut statement = db
        .prepare("SELECT id FROM sessions WHERE event_count > 0 ORDER BY created_at, rowid")
        .unwrap();
    statement
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A session's log: each event's type, turn, step and payload, in order.
fn history(home: &Path, id: &str) -> Vec<(String, i64, i64, String)> {
    let db = db(home);
    let mut statement = db
        .prepare("SELECT type, turn, step, payload FROM events WHERE session_id = ?1 ORDER BY seq")
        .unwrap();
    statement
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn send_prompt(pty: &Pty, text: &str, answer: &str) {
    pty.type_text(text);
    pty.press(Key::Enter);
    pty.wait_for_anywhere(answer, WAIT);
    // The answer shows before the turn ends; an Esc pressed before then
    // interrupts the turn instead of arming the rewind.
    pty.wait_for_text("· idle ·", WAIT);
}

/// The binary outside a pty, stdin closed.
fn run(f: &Workspace, args: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    for var in PROVIDER_VARS {
        cmd.env_remove(var);
    }
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn show(f: &Workspace, id: &str) -> String {
    let out = run(f, &["show", id]);
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fork_without_a_terminal_is_a_usage_error_and_copies_nothing() {
    let f = Workspace::new(MAIN);
    let mock = MockModel::start([Reply::openai_text("Hello.")]).await;
    let url = mock.openai_base_url();
    let exec = run(
        &f,
        &["--base-url", &url, "--model", "mock-model", "exec", "hi"],
    );
    assert!(exec.status.success(), "{exec:?}");
    assert_eq!(sessions(&f.home).len(), 1);
    let fork = run(&f, &["--fork"]);
    assert_eq!(fork.status.code(), Some(2), "{fork:?}");
    assert!(String::from_utf8_lossy(&fork.stderr).contains("needs a terminal"));
    assert_eq!(sessions(&f.home).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_esc_rewinds_conversation_and_code_to_before_the_second_to_last_prompt() {
    let f = Workspace::new(MAIN);
    std::fs::create_dir_all(&f.home).unwrap();
    let mock = MockModel::start(script()).await;
    let mut cmd = agent_command(&f, Some(&mock.openai_base_url()));
    cmd.args(["--new", "--permissions", "auto"]);
    let mut pty = Pty::spawn(cmd);
    pty.wait_for_text("mock-model", WAIT);

    send_prompt(&pty, "prompt-alpha", "Reply-alpha");
    let before_bravo = files(&f.repo);
    send_prompt(&pty, "prompt-bravo", "Reply-bravo");
    send_prompt(&pty, "prompt-charlie", "Reply-charlie");
    assert_eq!(std::fs::read(f.repo.join("a.txt")).unwrap(), b"three\n");
    assert_ne!(files(&f.repo), before_bravo);

    pty.press(Key::Esc);
    pty.wait_for_text("press Esc again to rewind", WAIT);
    pty.press(Key::Esc);
    pty.wait_for_text("rewind ›", WAIT);
    // Newest first: charlie, then bravo (the second-to-last prompt).
    pty.send(DOWN);
    pty.press(Key::Enter);
    pty.wait_for_text("before turn 2: prompt-bravo", WAIT);
    pty.press(Key::Enter);
    pty.wait_for_anywhere("rewound the conversation and code to before turn 2", WAIT);
    pty.wait_until("the rewound prompt back in the composer", WAIT, |p| {
        p.screen()
            .contents()
            .lines()
            .any(|l| l.trim_end() == "› prompt-bravo")
    });
    assert_eq!(
        files(&f.repo),
        before_bravo,
        "byte for byte as before bravo"
    );

    pty.send(CTRL_U);
    send_prompt(&pty, "prompt-delta", "Reply-delta");
    let last = mock.requests().last().unwrap().body.to_string();
    for kept in ["prompt-alpha", "Reply-alpha", "prompt-delta"] {
        assert!(last.contains(kept), "{kept} missing from {last}");
    }
    for gone in [
        "prompt-bravo",
        "Reply-bravo",
        "prompt-charlie",
        "Reply-charlie",
        "bee",
    ] {
        assert!(!last.contains(gone), "{gone} still sent: {last}");
    }

    let original = sessions(&f.home);
    assert_eq!(original.len(), 1);
    let shown = show(&f, &original[0]);
    for listed in [
        "## Turn 1\n",
        "## Turn 2 (rewound)",
        "Reply-bravo",
        "## Turn 3 (rewound)",
        "Reply-charlie",
        "rewound to before turn 2",
        "## Turn 4\n",
        "Reply-delta",
    ] {
        assert!(shown.contains(listed), "{listed} not in show:\n{shown}");
    }

    // `/fork`: a new session with the same history; the original as it was.
    let logged = history(&f.home, &original[0]);
    pty.type_text("/fork");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("forked session", WAIT);
    let both = sessions(&f.home);
    assert_eq!(both.len(), 2, "{both:?}");
    assert_ne!(both[1], both[0]);
    assert_eq!(history(&f.home, &both[1]), logged);
    assert_eq!(history(&f.home, &both[0]), logged);
    assert!(show(&f, &both[1]).contains("## Turn 3 (rewound)"));
    pty.press(Key::CtrlD);
    pty.wait_exit(WAIT);

    // `--fork ID`: the same, from the command line, opened in the TUI.
    let mut cmd = agent_command(&f, Some(&mock.openai_base_url()));
    cmd.args(["--fork", &original[0]]);
    let mut pty = Pty::spawn(cmd);
    pty.wait_for_text("mock-model", WAIT);
    let all = sessions(&f.home);
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(!both.contains(&all[2]));
    assert_eq!(history(&f.home, &all[2]), logged);
    assert_eq!(history(&f.home, &original[0]), logged);
    let short = &all[2][all[2].len() - 8..];
    pty.wait_for_text(short, WAIT);
    pty.press(Key::CtrlD);
    pty.wait_exit(WAIT);
}
