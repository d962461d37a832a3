#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The real `light-agent` binary in a pseudo-terminal, read through a vt100
//! screen, against the mock model server: streaming, tool panes, Esc,
//! resume, the bytes written, and terminal restore on panic and SIGTERM.

#[path = "tui_e2e/child.rs"]
pub(crate) mod child;
#[path = "tui_e2e/pty.rs"]
pub(crate) mod pty;
use crate::support;

use std::time::Duration;

use child::{agent_command, fixture, isolate, wait_ready};
use portable_pty::CommandBuilder;
use pty::{
    Key, Pty, SYNC_BEGIN, SYNC_END, WAIT, all_text, find_all, main_screen_clears, outside_sync,
};
use support::child_env::Workspace;
use support::{MockModel, OpenAiStream, Reply};

fn grep_then_answer(answer: &str) -> [Reply; 2] {
    [
        OpenAiStream::new()
            .tool_call(
                "call_grep_1",
                "grep",
                &[
                    r#"{"search_strs":["fn main"],"#,
                    r#""_intent":"find the entry point"}"#,
                ],
            )
            .usage(50, 10)
            .into_reply(),
        OpenAiStream::new().text(answer).usage(80, 12).into_reply(),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_tool_pane_esc_interrupt_quit_and_resume_in_a_pty() {
    let f = fixture();
    const FIRST_PROMPT: &str = "Where is the entry point of this program?";
    const ANSWER: &str = "The entry point is fn main in src/main.rs.";
    const HANGING: &str = "Hanging reply begins here and then stalls forever";
    const FOLLOW_UP: &str = "And what does it print?";
    let [grep, answer] = grep_then_answer(ANSWER);
    let mock = MockModel::start([
        grep,
        answer,
        OpenAiStream::new().text(HANGING).into_reply().hang_after(1),
        Reply::openai_text("It prints hello."),
    ])
    .await;
    let url = mock.openai_base_url();

    let mut pty = Pty::spawn(agent_command(&f, Some(&url)));
    wait_ready(&pty);
    pty.type_text(FIRST_PROMPT);
    pty.wait_for_text(FIRST_PROMPT, WAIT);
    pty.press(Key::Enter);
    pty.wait_for_anywhere(ANSWER, WAIT);
    let all = pty.all_text();
    let pane = all
        .lines()
        .find(|l| l.contains("grep") && l.contains('✓'))
        .unwrap_or_else(|| panic!("no finished grep pane:\n{all}"));
    assert!(
        pane.contains("fn main"),
        "the pane shows the search: {pane}"
    );
    assert!(all.contains("find the entry point"), "intent shown:\n{all}");
    let grep_result = mock.requests()[1].body["messages"].to_string();
    assert!(
        grep_result.contains("src/main.rs"),
        "the grep really ran: {grep_result}"
    );

    // A reply that hangs after its first delta; Esc stops it.
    pty.type_text("Tell me more");
    pty.wait_for_text("Tell me more", WAIT);
    pty.press(Key::Enter);
    let first_delta: String = HANGING
        .chars()
        .take(HANGING.chars().count().div_ceil(3))
        .collect();
    pty.wait_for_text(first_delta.trim_end(), WAIT);
    let pressed = pty.press(Key::Esc);
    let shown = pty.wait_for_anywhere("interrupted", WAIT);
    let idle = pty.wait_for_text("· idle ·", WAIT);
    let latency = shown.saturating_duration_since(pressed);
    let to_idle = idle.saturating_duration_since(pressed);
    println!("Esc → \"interrupted\" visible: {latency:?}; → status idle: {to_idle:?}");
    assert!(
        mock.wait_for_disconnect(WAIT).await,
        "the hanging HTTP stream was dropped"
    );

    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());
    drop(pty);

    // Same repo, same home: the latest session comes back.
    let pty = Pty::spawn(agent_command(&f, Some(&url)));
    wait_ready(&pty);
    pty.wait_for_anywhere(FIRST_PROMPT, WAIT);
    pty.wait_for_anywhere(ANSWER, WAIT);
    pty.type_text(FOLLOW_UP);
    pty.wait_for_text(FOLLOW_UP, WAIT);
    pty.press(Key::Enter);
    pty.wait_for_anywhere("It prints hello.", WAIT);
    let requests = mock.requests();
    assert_eq!(requests.len(), 4, "one request per model call");
    let sent = requests[3].body["messages"].to_string();
    for earlier in [FIRST_PROMPT, ANSWER, "Tell me more", FOLLOW_UP] {
        assert!(sent.contains(earlier), "{earlier:?} missing from {sent}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_never_clears_the_screen_or_scrollback_and_draws_in_synchronized_frames() {
    let f = fixture();
    let lines: Vec<String> = (1..=45)
        .map(|i| format!("Paragraph {i:02} of a long streamed answer."))
        .collect();
    let stream = lines.iter().fold(OpenAiStream::new(), |s, line| {
        s.text(&format!("{line}\n\n"))
    });
    let reply = stream
        .usage(30, 200)
        .into_reply()
        .chunk_delay(Duration::from_millis(8));
    let mock = MockModel::start([reply]).await;
    let mut pty = Pty::spawn(agent_command(&f, Some(&mock.openai_base_url())));
    wait_ready(&pty);
    pty.type_text("Write a long answer");
    pty.wait_for_text("Write a long answer", WAIT);
    let start = pty.raw_len();
    let pressed = pty.press(Key::Enter);
    let first = pty.wait_for_anywhere(&lines[0], WAIT);
    let last = pty.wait_for_anywhere(lines.last().unwrap(), WAIT);
    pty.wait_for_text("idle", WAIT);
    println!(
        "Enter → first line {:?}, → last line {:?}",
        first - pressed,
        last - pressed
    );
    let raw = pty.raw();
    let streaming = &raw[start..];

    assert_eq!(
        find_all(&raw, b"\x1b[3J").len(),
        0,
        "scrollback was erased (ESC[3J)"
    );
    assert_eq!(
        main_screen_clears(&raw),
        0,
        "the screen was cleared (ESC[2J)"
    );
    assert_eq!(
        find_all(&raw, b"\x1bc").len(),
        0,
        "the terminal was reset (RIS)"
    );
    let begins = find_all(streaming, SYNC_BEGIN).len();
    let ends = find_all(streaming, SYNC_END).len();
    println!(
        "frames while streaming: {begins}, bytes: {}",
        streaming.len()
    );
    assert!(begins >= 3, "streaming drew {begins} synchronized frames");
    assert_eq!(begins, ends, "every synchronized update is closed");
    let stray: Vec<String> = outside_sync(streaming)
        .into_iter()
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect();
    assert!(stray.is_empty(), "written outside a frame: {stray:?}");

    // Committed lines were written once each, in order, nothing lost.
    let all = pty.all_text();
    let mut from = 0;
    for line in &lines {
        assert_eq!(all.matches(line.as_str()).count(), 1, "{line:?} in:\n{all}");
        let at = all.find(line.as_str()).unwrap();
        assert!(at > from, "{line:?} out of order in:\n{all}");
        from = at;
    }

    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0);
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

const NO_MODEL: &str = "No model is configured";

/// The terminal as the shell would find it: line editing and echo on,
/// bracketed paste off, cursor shown.
fn assert_cooked(pty: &Pty) {
    let flags = pty.local_flags();
    for flag in ["ICANON", "ECHO", "ISIG"] {
        assert!(flags.iter().any(|f| f == flag), "{flag} is off: {flags:?}");
    }
    let seen = pty.seen();
    let screen = seen.parser.screen();
    assert!(!screen.bracketed_paste(), "bracketed paste left on");
    assert!(!screen.hide_cursor(), "cursor left hidden");
}

#[test]
fn a_pty_left_in_raw_mode_is_detected() {
    let f = fixture();
    let mut cmd = CommandBuilder::new("sh");
    cmd.args(["-c", "stty raw -echo; printf done"]);
    isolate(&mut cmd, &f);
    let mut pty = Pty::spawn(cmd);
    assert_eq!(pty.wait_exit(WAIT), 0);
    let flags = pty.local_flags();
    assert!(
        !flags.iter().any(|f| f == "ICANON" || f == "ECHO"),
        "{flags:?}"
    );
}

#[test]
fn a_panic_after_the_first_frame_leaves_the_pty_in_cooked_mode() {
    let f = fixture();
    without_ollama(&f);
    let mut cmd = agent_command(&f, None);
    cmd.env(light_agent::tui::TEST_PANIC_ENV, "1");
    let mut pty = Pty::spawn(cmd);
    let code = pty.wait_exit(WAIT);
    pty.drain();
    assert_cooked(&pty);
    assert_ne!(code, 0, "a panic is a failure");
    let raw = pty.raw();
    assert!(
        String::from_utf8_lossy(&raw).contains("panicking after the first frame"),
        "the panic message reached the terminal"
    );
    assert!(
        find_all(&raw, SYNC_BEGIN).len() == 1,
        "exactly one frame was drawn before the panic"
    );
}

#[test]
fn sigterm_and_sighup_restore_the_terminal() {
    for (signal, number) in [("TERM", 15), ("HUP", 1)] {
        let f = fixture();
        without_ollama(&f);
        let mut pty = Pty::spawn(agent_command(&f, None));
        pty.wait_for_text(NO_MODEL, WAIT);
        let flags = pty.local_flags();
        assert!(
            !flags.iter().any(|f| f == "ICANON"),
            "the UI runs in raw mode: {flags:?}"
        );
        assert!(pty.seen().parser.screen().bracketed_paste());
        let sent = std::process::Command::new("kill")
            .args([format!("-{signal}"), pty.pid().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let code = pty.wait_exit(WAIT);
        pty.drain();
        assert_eq!(code, 128 + number, "exit status after SIG{signal}");
        assert_cooked(&pty);
    }
}

#[test]
fn without_a_model_the_ui_opens_and_says_what_to_set() {
    let f = fixture();
    without_ollama(&f);
    let mut pty = Pty::spawn(agent_command(&f, None));
    pty.wait_for_text(NO_MODEL, WAIT);
    let screen = pty.screen();
    for hint in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "--base-url"] {
        assert!(screen.contains(hint), "{hint} not named:\n{screen}");
    }
    pty.type_text("hello?");
    pty.wait_for_text("hello?", WAIT);
    pty.press(Key::Enter);
    pty.wait_until("the no-model message again", WAIT, |p| {
        all_text(p).matches(NO_MODEL).count() >= 2
    });
    // The prompt came back into the composer: clear it, then quit.
    pty.send(b"\x03");
    pty.wait_for_text("Ask anything", WAIT);
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());
}
