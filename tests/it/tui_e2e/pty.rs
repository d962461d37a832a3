#![allow(dead_code)]
//! The pty harness of `tui_e2e.rs`: a child process in a pseudo-terminal
//! whose output feeds a vt100 screen (answering cursor-position queries and
//! honouring synchronized updates as a real terminal does), with every raw
//! byte kept for inspection.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, SlavePty, native_pty_system};

pub const ROWS: u16 = 30;
pub const COLS: u16 = 100;
/// How long a wait on the screen may take before the test fails: a hang
/// guard, not a deadline (every wait returns as soon as its condition holds).
/// A step of the real binary can take seconds on a loaded 2-core machine.
pub const WAIT: Duration = Duration::from_secs(20);

/// What the reader thread has seen so far.
pub struct Seen {
    pub parser: vt100::Parser,
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
pub enum Key {
    Enter,
    Esc,
    CtrlD,
    CtrlT,
}

impl Key {
    fn bytes(self) -> &'static [u8] {
        match self {
            Key::Enter => b"\r",
            Key::Esc => b"\x1b",
            Key::CtrlD => b"\x04",
            Key::CtrlT => b"\x14",
        }
    }
}

/// The binary running in a pty of `ROWS`×`COLS`.
pub struct Pty {
    child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
    /// Held open so the terminal modes the child leaves behind stay
    /// readable after it exits (the kernel resets them on the last close).
    slave: Option<Box<dyn SlavePty + Send>>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    shared: Arc<Shared>,
}

impl Pty {
    pub fn spawn(cmd: CommandBuilder) -> Pty {
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

    pub fn seen(&self) -> MutexGuard<'_, Seen> {
        self.shared.seen.lock().unwrap()
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        self.seen().parser.screen().contents()
    }

    /// Scrollback and screen, oldest line first.
    pub fn all_text(&self) -> String {
        all_text(&mut self.seen().parser)
    }

    /// Every byte the child wrote so far.
    pub fn raw(&self) -> Vec<u8> {
        self.seen().raw.clone()
    }

    pub fn raw_len(&self) -> usize {
        self.seen().raw.len()
    }

    /// Waits until `done` holds for a finished frame (never in the middle
    /// of a synchronized update); returns when that was first seen. Panics
    /// with everything on the terminal after `timeout`.
    pub fn wait_until(
        &self,
        what: &str,
        timeout: Duration,
        mut done: impl FnMut(&mut vt100::Parser) -> bool,
    ) -> Instant {
        self.wait_on(what, timeout, |seen| {
            !seen.in_sync && done(&mut seen.parser)
        })
    }

    /// Waits until the bytes the program wrote hold `needle` (escape
    /// sequences included); returns when that was first seen.
    pub fn wait_for_bytes(&self, needle: &[u8], timeout: Duration) -> Instant {
        let what = format!("{needle:?} in the output");
        self.wait_on(&what, timeout, |seen| {
            !find_all(&seen.raw, needle).is_empty()
        })
    }

    /// Waits until `done` holds for what was seen so far.
    fn wait_on(
        &self,
        what: &str,
        timeout: Duration,
        mut done: impl FnMut(&mut Seen) -> bool,
    ) -> Instant {
        let deadline = Instant::now() + timeout;
        let mut seen = self.seen();
        loop {
            if done(&mut seen) {
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
    pub fn wait_for_text(&self, needle: &str, timeout: Duration) -> Instant {
        self.wait_until(&format!("{needle:?} on screen"), timeout, |p| {
            p.screen().contents().contains(needle)
        })
    }

    /// Waits until `needle` is on the screen or in the scrollback.
    pub fn wait_for_anywhere(&self, needle: &str, timeout: Duration) -> Instant {
        self.wait_until(
            &format!("{needle:?} on screen or in scrollback"),
            timeout,
            |p| all_text(p).contains(needle),
        )
    }

    pub fn type_text(&self, text: &str) {
        self.send(text.as_bytes());
    }

    pub fn press(&self, key: Key) -> Instant {
        self.send(key.bytes());
        Instant::now()
    }

    pub fn send(&self, bytes: &[u8]) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    /// Waits for the child to exit; its exit code.
    pub fn wait_exit(&mut self, timeout: Duration) -> u32 {
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
    pub fn drain(&mut self) {
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
    pub fn local_flags(&self) -> Vec<String> {
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

    /// Resizes the terminal as a window resize does: the screen first
    /// (vt100 keeps the cursor with its text, like xterm), then the pty,
    /// whose new size reaches the child as SIGWINCH.
    pub fn resize(&self, cols: u16, rows: u16) {
        self.seen()
            .parser
            .screen_mut()
            .set_size(nonzero(rows), nonzero(cols));
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
    }

    /// Whether the child is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    pub fn pid(&self) -> u32 {
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

pub const SYNC_BEGIN: &[u8] = b"\x1b[?2026h";
pub const SYNC_END: &[u8] = b"\x1b[?2026l";

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

pub fn find_all(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    haystack
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .collect()
}

/// Every line of the scrollback, then the screen.
pub fn all_text(parser: &mut vt100::Parser) -> String {
    let screen = parser.screen_mut();
    let (rows, cols) = screen.size();
    let (rows, cols) = (rows.get(), cols.get());
    screen.set_scrollback(usize::MAX);
    let total = screen.scrollback();
    let mut lines: Vec<String> = Vec::new();
    let mut offset = total;
    while offset > 0 {
        screen.set_scrollback(offset);
        let take = offset.min(usize::from(rows));
        lines.extend(screen.rows(0, cols).take(take));
        offset -= take;
    }
    screen.set_scrollback(0);
    lines.extend(screen.rows(0, cols));
    lines.join("\n")
}

/// The visible rows, trailing blanks trimmed.
pub fn screen_rows(parser: &vt100::Parser) -> Vec<String> {
    let screen = parser.screen();
    let (_, cols) = screen.size();
    screen
        .rows(0, cols.get())
        .map(|r| r.trim_end().to_owned())
        .collect()
}
/// Byte ranges of `raw` that lie outside every synchronized update.
pub fn outside_sync(raw: &[u8]) -> Vec<&[u8]> {
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
pub fn main_screen_clears(raw: &[u8]) -> usize {
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
