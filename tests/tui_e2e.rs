#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The real `light-agent` binary in a pseudo-terminal, read through a vt100
//! screen, against the mock model server: streaming, tool panes, Esc,
//! resume, the bytes written, and terminal restore on panic and SIGTERM.

mod support;

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, SlavePty, native_pty_system};
use support::{MockModel, OpenAiStream, Reply};

const ROWS: u16 = 30;
const COLS: u16 = 100;
const WAIT: Duration = Duration::from_secs(5);

/// What the reader thread has seen so far.
struct Seen {
    parser: vt100::Parser,
    raw: Vec<u8>,
    /// Where the scan for control sequences resumes in `raw`.
    scanned: usize,
    /// Inside a synchronized update (DEC 2026): a real terminal would
    /// still show the previous frame, so waits do not look yet.
    in_sync: bool,
    closed: bool,
}

struct Shared {
    seen: Mutex<Seen>,
    changed: Condvar,
}

/// A key the tests press.
#[derive(Debug, Clone, Copy)]
enum Key {
    Enter,
    Esc,
    CtrlD,
}

impl Key {
    fn bytes(self) -> &'static [u8] {
        match self {
            Key::Enter => b"\r",
            Key::Esc => b"\x1b",
            Key::CtrlD => b"\x04",
        }
    }
}

/// The binary running in a pty of `ROWS`×`COLS`.
struct Pty {
    child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
    /// Held open so the terminal modes the child leaves behind stay
    /// readable after it exits (the kernel resets them on the last close).
    slave: Option<Box<dyn SlavePty + Send>>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    shared: Arc<Shared>,
}

impl Pty {
    fn spawn(cmd: CommandBuilder) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let child = pair.slave.spawn_command(cmd).unwrap();
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = Arc::new(Mutex::new(pair.master.take_writer().unwrap()));
        let shared = Arc::new(Shared {
            seen: Mutex::new(Seen {
                parser: vt100::Parser::new(nonzero(ROWS), nonzero(COLS), 10_000),
                raw: Vec::new(),
                scanned: 0,
                in_sync: false,
                closed: false,
            }),
            changed: Condvar::new(),
        });
        let (reader_shared, answer) = (shared.clone(), writer.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let replies = {
                    let mut seen = reader_shared.seen.lock().unwrap();
                    seen.raw.extend_from_slice(&buf[..n]);
                    seen.parser.process(&buf[..n]);
                    scan_controls(&mut seen)
                };
                reader_shared.changed.notify_all();
                if !replies.is_empty() {
                    let mut w = answer.lock().unwrap();
                    let _ = w.write_all(&replies);
                    let _ = w.flush();
                }
            }
            reader_shared.seen.lock().unwrap().closed = true;
            reader_shared.changed.notify_all();
        });
        Pty {
            child,
            master: pair.master,
            slave: Some(pair.slave),
            writer,
            shared,
        }
    }

    fn seen(&self) -> MutexGuard<'_, Seen> {
        self.shared.seen.lock().unwrap()
    }

    /// The visible screen.
    fn screen(&self) -> String {
        self.seen().parser.screen().contents()
    }

    /// Scrollback and screen, oldest line first.
    fn all_text(&self) -> String {
        all_text(&mut self.seen().parser)
    }

    /// Every byte the child wrote so far.
    fn raw(&self) -> Vec<u8> {
        self.seen().raw.clone()
    }

    fn raw_len(&self) -> usize {
        self.seen().raw.len()
    }

    /// Waits until `done` holds for a finished frame (never in the middle
    /// of a synchronized update); returns when that was first seen. Panics
    /// with everything on the terminal after `timeout`.
    fn wait_until(
        &self,
        what: &str,
        timeout: Duration,
        mut done: impl FnMut(&mut vt100::Parser) -> bool,
    ) -> Instant {
        let deadline = Instant::now() + timeout;
        let mut seen = self.seen();
        loop {
            if !seen.in_sync && done(&mut seen.parser) {
                return Instant::now();
            }
            let now = Instant::now();
            if now >= deadline || seen.closed {
                let text = all_text(&mut seen.parser);
                drop(seen);
                panic!("waited {timeout:?} for {what}; the terminal shows:\n{text}");
            }
            seen = self
                .shared
                .changed
                .wait_timeout(seen, deadline - now)
                .unwrap()
                .0;
        }
    }

    /// Waits until `needle` is on the visible screen.
    fn wait_for_text(&self, needle: &str, timeout: Duration) -> Instant {
        self.wait_until(&format!("{needle:?} on screen"), timeout, |p| {
            p.screen().contents().contains(needle)
        })
    }

    /// Waits until `needle` is on the screen or in the scrollback.
    fn wait_for_anywhere(&self, needle: &str, timeout: Duration) -> Instant {
        self.wait_until(
            &format!("{needle:?} on screen or in scrollback"),
            timeout,
            |p| all_text(p).contains(needle),
        )
    }

    fn type_text(&self, text: &str) {
        self.send(text.as_bytes());
    }

    fn press(&self, key: Key) -> Instant {
        self.send(key.bytes());
        Instant::now()
    }

    fn send(&self, bytes: &[u8]) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    /// Waits for the child to exit; its exit code.
    fn wait_exit(&mut self, timeout: Duration) -> u32 {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            if Instant::now() >= deadline {
                panic!(
                    "the binary did not exit within {timeout:?}; the terminal shows:\n{}",
                    self.all_text()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until every byte the exited child wrote has been read: a
    /// second process prints a marker on the same pty, after which nothing
    /// of the first can still be in flight.
    fn drain(&mut self) {
        let marker = format!("<drained {}>", self.raw_len());
        let mut cmd = CommandBuilder::new("printf");
        cmd.args(["%s", marker.as_str()]);
        let slave = self.slave.as_ref().expect("slave held open");
        let mut printer = slave.spawn_command(cmd).unwrap();
        assert!(printer.wait().unwrap().success());
        let needle = marker.into_bytes();
        let deadline = Instant::now() + WAIT;
        let mut seen = self.seen();
        while rfind(&seen.raw, &needle).is_none() {
            let now = Instant::now();
            assert!(now < deadline, "the drain marker never arrived");
            seen = self
                .shared
                .changed
                .wait_timeout(seen, deadline - now)
                .unwrap()
                .0;
        }
    }

    /// The pty's local mode flags by name (ICANON, ECHO, …).
    fn local_flags(&self) -> Vec<String> {
        let termios = self.master.get_termios().expect("termios of the pty");
        // `LocalFlags(ECHO | ICANON | …)`: the names are all a test needs,
        // and reading them avoids depending on nix directly.
        let shown = format!("{:?}", termios.local_flags);
        let inner = shown
            .split_once('(')
            .and_then(|(_, rest)| rest.rsplit_once(')'))
            .map_or("", |(inner, _)| inner);
        inner.split('|').map(|f| f.trim().to_owned()).collect()
    }

    fn pid(&self) -> u32 {
        self.child.process_id().expect("child pid")
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        // Closing our slave lets the reader thread see the end.
        self.slave.take();
    }
}

fn nonzero(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap()
}

const SYNC_BEGIN: &[u8] = b"\x1b[?2026h";
const SYNC_END: &[u8] = b"\x1b[?2026l";

/// Tracks synchronized updates in the bytes read since the last call, and
/// answers each new `ESC[6n` (cursor position query) with the emulated
/// cursor, as a real terminal would; crossterm waits for it at start-up.
fn scan_controls(seen: &mut Seen) -> Vec<u8> {
    const QUERY: &[u8] = b"\x1b[6n";
    let mut out = Vec::new();
    let from = seen.scanned.saturating_sub(SYNC_BEGIN.len() - 1);
    let fresh = &seen.raw[from..];
    let query_from = seen.scanned.saturating_sub(QUERY.len() - 1);
    let count = find_all(&seen.raw[query_from..], QUERY).len();
    let last_begin = rfind(fresh, SYNC_BEGIN);
    let last_end = rfind(fresh, SYNC_END);
    match (last_begin, last_end) {
        (Some(b), Some(e)) => seen.in_sync = b > e,
        (Some(_), None) => seen.in_sync = true,
        (None, Some(_)) => seen.in_sync = false,
        (None, None) => {}
    }
    seen.scanned = seen.raw.len();
    for _ in 0..count {
        let (row, col) = seen.parser.screen().cursor_position();
        out.extend_from_slice(format!("\x1b[{};{}R", row + 1, col + 1).as_bytes());
    }
    out
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

fn find_all(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    haystack
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .collect()
}

/// Every line of the scrollback, then the screen.
fn all_text(parser: &mut vt100::Parser) -> String {
    let screen = parser.screen_mut();
    screen.set_scrollback(usize::MAX);
    let total = screen.scrollback();
    let mut lines: Vec<String> = Vec::new();
    let mut offset = total;
    while offset > 0 {
        screen.set_scrollback(offset);
        let take = offset.min(usize::from(ROWS));
        lines.extend(screen.rows(0, COLS).take(take));
        offset -= take;
    }
    screen.set_scrollback(0);
    lines.extend(screen.rows(0, COLS));
    lines.join("\n")
}

/// A temp dir holding a git repo (`repo/`) and a light-agent home (`home/`).
struct Fixture {
    _dir: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        repo.join("src/main.rs"),
        "fn main() {\n    println!(\"hello\");\n}\n",
    )
    .unwrap();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status();
    if !git.is_ok_and(|s| s.success()) {
        std::fs::create_dir_all(repo.join(".git")).unwrap();
    }
    Fixture {
        home,
        repo,
        _dir: dir,
    }
}

/// The environment every child gets: an isolated home, xterm, and none of
/// the variables that would pick a real provider.
fn isolate(cmd: &mut CommandBuilder, f: &Fixture) {
    cmd.cwd(&f.repo);
    cmd.env("LIGHT_AGENT_HOME", &f.home);
    cmd.env("TERM", "xterm-256color");
    for var in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "DEEPSEEK_API_KEY",
        "GEMINI_API_KEY",
        "LIGHT_AGENT_PROVIDER",
        "LIGHT_AGENT_MODEL",
        "LIGHT_AGENT_BASE_URL",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
        "LIGHT_AGENT_TEST_PANIC",
        "RUST_LOG",
        "NO_COLOR",
    ] {
        cmd.env_remove(var);
    }
}

fn agent_command(f: &Fixture, base_url: Option<&str>) -> CommandBuilder {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_light-agent"));
    isolate(&mut cmd, f);
    if let Some(url) = base_url {
        cmd.args(["--base-url", url, "--model", "mock-model"]);
    }
    cmd
}

/// The status line names the model once the UI has drawn its first frame.
fn wait_ready(pty: &Pty) {
    pty.wait_for_text("mock-model", WAIT);
}

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
    assert!(latency < Duration::from_secs(1), "{latency:?}");
    assert!(to_idle < Duration::from_secs(1), "{to_idle:?}");
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

/// Byte ranges of `raw` that lie outside every synchronized update.
fn outside_sync(raw: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let Some(begin) = find_all(&raw[at..], SYNC_BEGIN).first().map(|b| at + b) else {
            out.push(&raw[at..]);
            return out;
        };
        out.push(&raw[at..begin]);
        match find_all(&raw[begin..], SYNC_END).first() {
            Some(end) => at = begin + end + SYNC_END.len(),
            None => return out,
        }
    }
}

/// Full-screen clears (`ESC[2J`) written while the main screen was shown.
fn main_screen_clears(raw: &[u8]) -> usize {
    let mut alt = false;
    let mut clears = 0;
    for i in 0..raw.len() {
        let rest = &raw[i..];
        if rest.starts_with(b"\x1b[?1049h") {
            alt = true;
        } else if rest.starts_with(b"\x1b[?1049l") {
            alt = false;
        } else if rest.starts_with(b"\x1b[2J") && !alt {
            clears += 1;
        }
    }
    clears
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
fn without_ollama(f: &Fixture) {
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
    for signal in ["TERM", "HUP"] {
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
        println!("exit code after SIG{signal}: {code}");
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
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());
}
