#![allow(clippy::unwrap_used, clippy::expect_used, clippy::incompatible_msrv)]
//! Hostile text (model answers, tool names, intents, provider errors, file
//! contents, titles) never reaches the terminal as control sequences, and a
//! closed or full stdout never makes a command panic.

use crate::support;

use std::process::{Command, Output, Stdio};

use light_agent::protocol::AgentEvent;
use serde_json::json;
use support::child_env::{Workspace, run, scrub};
use support::{MockModel, OpenAiStream, Reply};

/// Retitles the window, writes the clipboard, switches screens, and a C1 CSI.
const HOSTILE: &str = "\x1b]0;pwned\x07\x1b]52;c;aGk=\x07\x1b[?1049h\u{9b}31m\x7f";

fn light_agent(f: &Workspace, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo)
        .env("LIGHT_AGENT_HOME", &f.home)
        .args(args)
        .stdin(Stdio::null());
    scrub(&mut cmd);
    cmd
}

fn exec(f: &Workspace, mock: &MockModel, args: &[&str]) -> Command {
    let mut cmd = light_agent(f, &["exec", "--base-url", &mock.openai_base_url()]);
    cmd.args(["--model", "mock-model"]).args(args);
    cmd
}

/// Fails if `bytes` hold ESC, BEL, DEL, a C1 control (raw or UTF-8
/// encoded), or any C0 control other than `\n` and `\t`.
fn assert_terminal_safe(what: &str, bytes: &[u8]) {
    for (at, pair) in bytes.windows(2).enumerate() {
        assert!(
            !(pair[0] == 0xc2 && (0x80..=0x9f).contains(&pair[1])),
            "{what}: UTF-8 C1 control at byte {at}: {}",
            String::from_utf8_lossy(bytes)
        );
    }
    for (at, b) in bytes.iter().enumerate() {
        let control = (*b < 0x20 && *b != b'\n' && *b != b'\t') || *b == 0x7f;
        assert!(
            !control,
            "{what}: control byte {b:#04x} at {at}: {}",
            String::from_utf8_lossy(bytes)
        );
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn hostile_workspace() -> Workspace {
    let f = Workspace::new("fn main() {}\n");
    std::fs::write(f.repo.join("notes.txt"), format!("line {HOSTILE} end\n")).unwrap();
    f
}

/// A step calling `read_file` on the hostile file (with a hostile intent)
/// and a tool whose name is hostile, then a hostile answer.
fn hostile_turn() -> [Reply; 2] {
    let read = json!({"path": "notes.txt", "_intent": format!("intent {HOSTILE}")}).to_string();
    let calls = OpenAiStream::new()
        .tool_call("call_1", "read_file", &[&read])
        .tool_call("call_2", &format!("evil{HOSTILE}"), &[r#"{"_intent":"x"}"#])
        .into_reply();
    let answer = OpenAiStream::new()
        .text(&format!("answer {HOSTILE} done"))
        .into_reply();
    [calls, answer]
}

fn session_id(f: &Workspace) -> String {
    let out = light_agent(f, &["sessions", "--json"]).output().unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    rows[0]["id"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_show_and_sessions_print_no_control_sequence_from_a_hostile_turn() {
    let f = hostile_workspace();
    let mock = MockModel::start(hostile_turn()).await;
    let prompt = format!("title {HOSTILE}");
    let out = run(exec(&f, &mock, &[&prompt])).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_terminal_safe("exec stdout", &out.stdout);
    assert_terminal_safe("exec stderr", &out.stderr);
    assert!(
        text(&out.stdout).contains("answer ^[]0;pwned^G"),
        "shown visibly"
    );
    assert!(
        text(&out.stderr).contains("intent ^[]0;pwned^G"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("evil^[]0;pwned"),
        "{}",
        text(&out.stderr)
    );

    let id = session_id(&f);
    let show = run(light_agent(&f, &["show", &id])).await;
    assert_eq!(show.status.code(), Some(0), "{}", text(&show.stderr));
    assert_terminal_safe("show", &show.stdout);
    let shown = text(&show.stdout);
    assert!(shown.contains("line ^[]0;pwned^G"), "file content: {shown}");
    assert!(shown.contains("<U+009B>31m"), "{shown}");

    let listed = run(light_agent(&f, &["sessions"])).await;
    assert_terminal_safe("sessions", &listed.stdout);
    assert!(text(&listed.stdout).contains("title ^[]0;pwned"));
    let listed_json = run(light_agent(&f, &["sessions", "--json"])).await;
    assert_terminal_safe("sessions --json", &listed_json.stdout);

    // JSON output is escaped, and still the exact text that was stored.
    let json = run(light_agent(&f, &["show", &id, "--json"])).await;
    assert_terminal_safe("show --json", &json.stdout);
    let events: Vec<AgentEvent> = text(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(events.iter().any(|e| matches!(e,
        AgentEvent::Output { text, .. } if *text == format!("answer {HOSTILE} done"))));
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_json_mode_is_exact_json_without_raw_controls() {
    let f = hostile_workspace();
    let mock = MockModel::start(hostile_turn()).await;
    let out = run(exec(&f, &mock, &["--json", "go"])).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_terminal_safe("exec --json", &out.stdout);
    let deltas: String = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<AgentEvent>(l).unwrap())
        .filter_map(|e| match e {
            AgentEvent::OutputDelta { text, .. } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, format!("answer {HOSTILE} done"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hostile_provider_error_is_shown_visibly() {
    let f = hostile_workspace();
    let refusal =
        Reply::status(400).body_json(json!({"error": {"message": format!("bad {HOSTILE}")}}));
    let mock = MockModel::start([refusal]).await;
    let out = run(exec(&f, &mock, &["go"])).await;
    assert_eq!(out.status.code(), Some(1));
    assert_terminal_safe("provider error", &out.stderr);
    assert!(
        text(&out.stderr).contains("bad ^[]0;pwned"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_prints_hostile_file_contents_and_names_visibly() {
    let f = hostile_workspace();
    let read = run(light_agent(
        &f,
        &["tool", "read_file", r#"{"path":"notes.txt","_intent":"x"}"#],
    ))
    .await;
    assert_eq!(read.status.code(), Some(0), "{}", text(&read.stderr));
    assert_terminal_safe("tool read_file", &read.stdout);
    assert!(text(&read.stdout).contains("line ^[]0;pwned^G"));
    let unknown = run(light_agent(&f, &["tool", &format!("x{HOSTILE}"), "{}"])).await;
    assert_eq!(unknown.status.code(), Some(2));
    assert_terminal_safe("unknown tool", &unknown.stderr);
}

/// Runs `cmd` with stdout going to `stdout`; checks it did not panic.
fn run_into(mut cmd: Command, stdout: Stdio) -> Output {
    let out = cmd.stdout(stdout).stderr(Stdio::piped()).output().unwrap();
    let err = text(&out.stderr);
    assert!(
        !err.contains("panicked") && out.status.code() != Some(101),
        "{err}"
    );
    out
}

/// A pipe whose reader is already gone: every write fails with EPIPE.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

fn full_device() -> Stdio {
    Stdio::from(
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_closed_pipe_ends_quietly_and_a_full_device_says_so() {
    let f = hostile_workspace();
    let mock = MockModel::start(hostile_turn()).await;
    assert_eq!(
        run(exec(&f, &mock, &["seed a session"]))
            .await
            .status
            .code(),
        Some(0)
    );
    let id = session_id(&f);
    let commands: [&[&str]; 6] = [
        &["tool", "read_file", r#"{"path":"notes.txt","_intent":"x"}"#],
        &["show", &id],
        &["show", &id, "--json"],
        &["sessions"],
        &["completions", "bash"],
        &["config", "path"],
    ];
    for args in commands {
        let closed = run_into(light_agent(&f, args), closed_pipe());
        assert!(
            matches!(closed.status.code(), Some(0 | 141)),
            "{args:?} into a closed pipe: {:?} {}",
            closed.status,
            text(&closed.stderr)
        );
        assert_eq!(text(&closed.stderr), "", "{args:?}: quiet");
        let full = run_into(light_agent(&f, args), full_device());
        assert_eq!(full.status.code(), Some(1), "{args:?} into /dev/full");
        assert!(
            text(&full.stderr).contains("No space left on device"),
            "{args:?}: {}",
            text(&full.stderr)
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_into_a_closed_pipe_or_a_full_device_stops_the_turn_without_a_panic() {
    let f = hostile_workspace();
    let mock = MockModel::start([
        Reply::openai_text("first answer"),
        Reply::openai_text("second answer"),
    ])
    .await;
    let closed = run_into(exec(&f, &mock, &["go"]), closed_pipe());
    assert!(
        matches!(closed.status.code(), Some(0 | 141)),
        "{:?} {}",
        closed.status,
        text(&closed.stderr)
    );
    let full = run_into(exec(&f, &mock, &["go"]), full_device());
    assert_eq!(full.status.code(), Some(1));
    assert!(text(&full.stderr).contains("No space left on device"));
}

#[test]
fn a_full_disk_at_start_says_so() {
    // A full file system needs a tiny tmpfs, i.e. a private mount namespace.
    let namespaces = Command::new("unshare").args(["-rm", "true"]).status();
    if !matches!(namespaces, Ok(status) if status.success()) {
        eprintln!("skipped: `unshare -rm` is not available here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "mount -t tmpfs -o size=64k tmpfs {mnt} && mkdir {mnt}/home && \
         (dd if=/dev/zero of={mnt}/fill bs=4k 2>/dev/null; true) && \
         LIGHT_AGENT_HOME={mnt}/home {bin} sessions",
        mnt = dir.path().display(),
        bin = env!("CARGO_BIN_EXE_light-agent"),
    );
    let out = Command::new("unshare")
        .args(["-rm", "sh", "-c", &script])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the disk is full"), "{err}");
    assert!(err.contains("free some space"), "{err}");
    assert_eq!(err.lines().count(), 1, "one plain sentence: {err}");
}
