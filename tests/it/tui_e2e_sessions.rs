#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The real binary in a pty (issue #14): the UI's state comes from the
//! runtime's job updates (no model → idle with the prompt back, Esc right
//! after Enter interrupts), sessions are written with their first prompt
//! and named by short ids everywhere, and the composer edits like readline
//! (history through slash commands, Ctrl+U, paste chips, Up on a queued
//! prompt).

use crate::support;
use crate::tui_e2e::pty;

use std::path::Path;

use portable_pty::CommandBuilder;
use pty::{Key, Pty, WAIT};
use support::child_env::{PROVIDER_VARS, Workspace};
use support::{MockModel, OpenAiStream, Reply};

const UP: &[u8] = b"\x1b[A";
const DOWN: &[u8] = b"\x1b[B";
const CTRL_U: &[u8] = b"\x15";
const CTRL_C: &[u8] = b"\x03";

fn fixture() -> Workspace {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    f
}

fn isolate(cmd: &mut CommandBuilder, f: &Workspace) {
    cmd.cwd(&f.repo);
    cmd.env("LIGHT_AGENT_HOME", &f.home);
    cmd.env("TERM", "xterm-256color");
    for var in PROVIDER_VARS
        .into_iter()
        .chain(["LIGHT_AGENT_TEST_PANIC", "NO_COLOR"])
    {
        cmd.env_remove(var);
    }
}

fn agent_command(f: &Workspace, base_url: Option<&str>, args: &[&str]) -> CommandBuilder {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_light-agent"));
    isolate(&mut cmd, f);
    if let Some(url) = base_url {
        cmd.args(["--base-url", url, "--model", "mock-model"]);
    }
    cmd.args(args);
    cmd
}

/// The same binary outside a pty (exec, show, sessions).
fn run(f: &Workspace, args: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    for var in PROVIDER_VARS {
        cmd.env_remove(var);
    }
    cmd.args(args).output().unwrap()
}

/// Points the Ollama probe at a closed port so "no model" does not depend
/// on what runs on this machine.
fn without_ollama(f: &Workspace) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        f.home.join("config.toml"),
        format!("[providers.ollama]\nbase_url = \"http://127.0.0.1:{port}/v1\"\n"),
    )
    .unwrap();
}

/// The composer's line: the last line on screen that starts with the prompt
/// marker (committed prompts above it start with it too).
fn composer(screen: &str) -> String {
    screen
        .lines()
        .rfind(|l| l.starts_with("› "))
        .unwrap_or("")
        .trim_end()
        .to_string()
}

fn wait_composer(pty: &Pty, expected: &str) -> std::time::Instant {
    pty.wait_until(&format!("composer {expected:?}"), WAIT, |p| {
        composer(&p.screen().contents()) == expected
    })
}

/// The composer shows its placeholder.
fn wait_empty_composer(pty: &Pty) {
    pty.wait_until("an empty composer", WAIT, |p| {
        composer(&p.screen().contents()).contains("Ask anything")
    });
}

/// Rows in the sessions table, written or not.
fn session_rows(home: &Path) -> i64 {
    let db = rusqlite::Connection::open(home.join("sessions.sqlite3")).unwrap();
    db.query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn without_a_model_enter_leaves_the_ui_idle_with_the_prompt_back() {
    let f = fixture();
    without_ollama(&f);
    let mut pty = Pty::spawn(agent_command(&f, None, &[]));
    pty.wait_for_text("No model is configured", WAIT);
    pty.type_text("hello?");
    wait_composer(&pty, "› hello?");
    let pressed = pty.press(Key::Enter);
    // The frame before Enter shows the prompt too: wait for the reason.
    let idle = pty.wait_until("idle with the prompt back and the reason", WAIT, |p| {
        let screen = p.screen().contents();
        let status = screen.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
        pty::all_text(p).contains("✗ No model is configured")
            && status.contains("idle")
            && composer(&screen) == "› hello?"
    });
    // The figure is printed, not asserted (scripts/measure.py measures).
    let took = idle.saturating_duration_since(pressed);
    println!("Enter → idle with the prompt back: {took:?}");
    assert!(!pty.screen().contains("thinking"), "{}", pty.screen());
    pty.send(CTRL_C);
    wait_empty_composer(&pty);
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0);
    assert_eq!(session_rows(&f.home), 0, "no session was written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_pressed_right_after_enter_interrupts() {
    let f = fixture();
    let mock = MockModel::start([OpenAiStream::new()
        .text("never finishes")
        .into_reply()
        .hang_after(0)])
    .await;
    let mut pty = Pty::spawn(agent_command(&f, Some(&mock.openai_base_url()), &[]));
    pty.wait_for_text("mock-model", WAIT);
    pty.type_text("go");
    wait_composer(&pty, "› go");
    // One write: the Esc reaches the UI in the same read as the Enter,
    // before any job update can have come back.
    pty.send(b"\r\x1b");
    pty.wait_for_anywhere("⚠ interrupted", WAIT);
    pty.wait_for_text("· idle ·", WAIT);
    assert!(!pty.screen().contains("thinking"), "{}", pty.screen());
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0);
}

#[test]
fn a_bad_resume_exits_2_before_the_ui_opens() {
    let f = fixture();
    for args in [&["--resume", "nope"][..], &["resume", "zzzz"][..]] {
        let mut pty = Pty::spawn(agent_command(&f, Some("http://127.0.0.1:9/v1"), args));
        assert_eq!(pty.wait_exit(WAIT), 2, "{args:?}: {}", pty.all_text());
        pty.drain();
        let text = pty.all_text();
        assert!(text.contains("session does not exist"), "{text}");
        assert!(!text.contains("mock-model"), "the UI never opened:\n{text}");
    }
}

#[test]
fn new_then_quit_leaves_no_session_and_the_latest_real_one_stays_latest() {
    let f = fixture();
    let made = run(
        &f,
        &[
            "exec",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "first real prompt",
        ],
    );
    assert_eq!(made.status.code(), Some(1), "the model is unreachable");
    assert_eq!(session_rows(&f.home), 1);
    let mut pty = Pty::spawn(agent_command(&f, Some("http://127.0.0.1:9/v1"), &["--new"]));
    pty.wait_for_text("untitled session", WAIT);
    pty.type_text("/new");
    pty.press(Key::Enter);
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());
    assert_eq!(session_rows(&f.home), 1, "neither --new nor /new wrote one");
    let mut pty = Pty::spawn(agent_command(&f, Some("http://127.0.0.1:9/v1"), &[]));
    pty.wait_for_anywhere("first real prompt", WAIT);
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_short_id_works_with_show_resume_and_exec_resume() {
    let f = fixture();
    let mock = MockModel::start([
        Reply::openai_text("first answer"),
        Reply::openai_text("second answer"),
        Reply::openai_text("third answer"),
    ])
    .await;
    let url = mock.openai_base_url();
    let model = ["--base-url", url.as_str(), "--model", "mock-model"];
    let exec = |args: &[&str]| {
        let mut all = model.to_vec();
        all.extend_from_slice(args);
        run(&f, &all)
    };
    assert_eq!(
        exec(&["exec", "remember the parrot"]).status.code(),
        Some(0)
    );
    let listed = run(&f, &["sessions", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let id = rows[0]["id"].as_str().unwrap().to_string();
    let short = &id[id.len() - 8..];

    let shown = run(&f, &["show", short]);
    assert_eq!(shown.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&shown.stdout).contains("remember the parrot"));

    let again = exec(&["exec", "--resume", &short[..5], "and the second?"]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(sent.contains("remember the parrot"), "{sent}");

    let mut pty = Pty::spawn(agent_command(&f, Some(&url), &["--resume", short]));
    pty.wait_for_anywhere("and the second?", WAIT);
    pty.wait_for_text(short, WAIT);
    // /export without a file writes to the state directory, not the repo.
    pty.type_text("/export");
    wait_composer(&pty, "› /export");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("exported to", WAIT);
    let exported = f.home.join("exports").join(format!("{id}.md"));
    assert!(
        std::fs::read_to_string(&exported)
            .unwrap()
            .contains("remember the parrot")
    );
    assert!(
        !std::fs::read_dir(&f.repo).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".md")),
        "nothing written into the repository"
    );
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn composer_history_ctrl_u_paste_chip_and_queued_edit() {
    let f = fixture();
    let rows: String = (1..=200).map(|i| format!("row {i:03}\n")).collect();
    let mock = MockModel::start([
        Reply::openai_text("first answer"),
        Reply::openai_text("pasted answer"),
        OpenAiStream::new()
            .text("slow answer begins")
            .into_reply()
            .hang_after(1),
    ])
    .await;
    let mut pty = Pty::spawn(agent_command(&f, Some(&mock.openai_base_url()), &[]));
    pty.wait_for_text("mock-model", WAIT);

    // History with a slash command in it.
    pty.type_text("first prompt");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("first answer", WAIT);
    pty.type_text("/status");
    wait_composer(&pty, "› /status");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("• status", WAIT);
    pty.send(UP);
    wait_composer(&pty, "› /status");
    pty.send(UP);
    wait_composer(&pty, "› first prompt");
    pty.send(DOWN);
    wait_composer(&pty, "› /status");
    pty.send(DOWN);
    wait_empty_composer(&pty);

    // Ctrl+U deletes to the line start.
    pty.type_text("delete me");
    wait_composer(&pty, "› delete me");
    pty.send(CTRL_U);
    pty.type_text("kept");
    wait_composer(&pty, "› kept");
    pty.send(CTRL_U);

    // A 200-line paste is a chip; the model gets every line.
    pty.type_text("count these: ");
    // A person's paste comes long after their typing was read; a paste
    // written in the same instant as typed keys was seen to be dropped.
    wait_composer(&pty, "› count these:");
    let mut paste = b"\x1b[200~".to_vec();
    paste.extend_from_slice(rows.as_bytes());
    paste.extend_from_slice(b"\x1b[201~");
    pty.send(&paste);
    wait_composer(&pty, "› count these: [Pasted text #1 +200 lines]");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("pasted answer", WAIT);
    let sent = mock.requests()[1].body["messages"].to_string();
    for i in 1..=200 {
        assert!(sent.contains(&format!("row {i:03}")), "row {i} missing");
    }

    // Up on an empty composer takes the queued prompt back.
    pty.type_text("slow one");
    pty.press(Key::Enter);
    pty.wait_for_text("streaming", WAIT);
    pty.type_text("queued one");
    pty.press(Key::Enter);
    pty.wait_for_text("queued › queued one", WAIT);
    pty.send(UP);
    wait_composer(&pty, "› queued one");
    pty.wait_until("the queued line gone", WAIT, |p| {
        !p.screen().contents().contains("queued › queued one")
    });
    pty.press(Key::Esc);
    pty.wait_for_text("· idle ·", WAIT);
    assert_eq!(mock.request_count(), 3, "the withdrawn prompt never ran");
    pty.send(CTRL_C);
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_without_a_name_opens_a_picker_with_the_providers_models() {
    let f = fixture();
    let mock = MockModel::start([
        Reply::json(serde_json::json!({
            "object": "list",
            "data": [{ "id": "beta-2" }, { "id": "alpha-1" }, { "id": "mock-model" }],
        })),
        Reply::openai_text("answered by alpha"),
    ])
    .await;
    let mut pty = Pty::spawn(agent_command(&f, Some(&mock.openai_base_url()), &[]));
    pty.wait_for_text("mock-model", WAIT);
    pty.type_text("/model");
    wait_composer(&pty, "› /model");
    pty.press(Key::Enter);
    pty.wait_for_text("beta-2", WAIT);
    let screen = pty.screen();
    assert!(
        screen.contains("mock-model") && screen.contains("(current)"),
        "{screen}"
    );
    // The current model is selected; alpha-1 sorts after it in the list.
    pty.send(DOWN);
    pty.wait_for_text("› alpha-1", WAIT);
    pty.press(Key::Enter);
    pty.wait_for_anywhere("model set to alpha-1", WAIT);
    pty.type_text("who are you?");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("answered by alpha", WAIT);
    let requests = mock.requests();
    assert_eq!(requests[0].method, "GET");
    assert!(
        requests[0].path.ends_with("/models"),
        "{}",
        requests[0].path
    );
    assert_eq!(requests[1].body["model"], "alpha-1");
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0);
}
