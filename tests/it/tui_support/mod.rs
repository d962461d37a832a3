//! Helpers shared by the TUI tests: a clock, event builders, key presses
//! and a way to see what the App committed and shows.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use light_agent::protocol::HostEvent;
use light_agent::protocol::{
    AgentEvent, InputSource, JobId, JobKind, JobUpdate, Meta, StopCause, ToolCall, ToolOutcome,
};
use light_agent::tui::inline_terminal::Surface;
use light_agent::tui::runner::Screen;
use light_agent::tui::wrap::plain;
use light_agent::tui::{App, AppMsg, TuiOptions};
use serde_json::json;

/// Wall clock used by every test (2026-01-01T00:00:00Z).
pub const NOW_MS: u64 = 1_767_225_600_000;

pub fn app(width: u16, height: u16) -> (App, Instant) {
    app_with(TuiOptions::default(), width, height)
}

pub fn app_with(opts: TuiOptions, width: u16, height: u16) -> (App, Instant) {
    let t0 = Instant::now();
    (App::new(opts, width, height, t0, NOW_MS), t0)
}

pub fn at(app: &mut App, t0: Instant, secs: f64) {
    app.set_time(
        t0 + Duration::from_secs_f64(secs),
        NOW_MS + (secs * 1000.0) as u64,
    );
}

pub fn meta() -> Meta {
    Meta::new(1, 1)
}

pub fn ev(app: &mut App, event: AgentEvent) {
    app.update(AppMsg::Input(HostEvent::Agent { event }));
}

pub fn input(app: &mut App, input: HostEvent) {
    app.update(AppMsg::Input(input));
}

pub fn user_input(text: &str) -> AgentEvent {
    AgentEvent::Input {
        images: Vec::new(),
        text: text.into(),
        source: InputSource::User,
        meta: meta(),
    }
}

pub fn stop(cause: StopCause) -> AgentEvent {
    AgentEvent::AgentStop {
        cause,
        message: String::new(),
        meta: meta(),
    }
}

pub fn grep_call(id: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "grep".into(),
        args: json!({"search_strs": ["fn main", "Tool"], "scope": "src", "_intent": "find the entry point"}),
    }
}

pub fn result(id: &str, name: &str, text: &str, is_error: bool) -> AgentEvent {
    AgentEvent::ToolResult {
        outcome: ToolOutcome {
            id: id.into(),
            name: name.into(),
            result: text.into(),
            is_error,
            display: None,
        },
        meta: meta(),
    }
}

/// Feeds `text` as output deltas of `size` characters.
pub fn stream_output(app: &mut App, text: &str, size: usize) {
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(size) {
        ev(
            app,
            AgentEvent::OutputDelta {
                text: piece.iter().collect(),
                meta: meta(),
            },
        );
    }
}

/// Feeds `text` as thought deltas of `size` characters.
pub fn stream_thought(app: &mut App, text: &str, size: usize) {
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(size) {
        ev(
            app,
            AgentEvent::ThoughtDelta {
                text: piece.iter().collect(),
                meta: meta(),
            },
        );
    }
}

pub fn key(app: &mut App, code: KeyCode) {
    key_mod(app, code, KeyModifiers::NONE);
}

pub fn key_mod(app: &mut App, code: KeyCode, modifiers: KeyModifiers) {
    app.update(AppMsg::Terminal(Event::Key(KeyEvent::new(code, modifiers))));
}

pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// Plain text of the lines committed since the last call.
pub fn committed(app: &mut App) -> Vec<String> {
    app.take_committed().iter().map(plain).collect()
}

/// A terminal emulated by vt100: what the UI writes lands on its screen
/// and in its scrollback, as on a real terminal.
pub struct VtScreen {
    pub parser: vt100::Parser,
}

impl VtScreen {
    pub fn new(width: u16, height: u16) -> Self {
        Self {
            parser: vt100::Parser::new(
                std::num::NonZeroU16::new(height).unwrap(),
                std::num::NonZeroU16::new(width).unwrap(),
                100_000,
            ),
        }
    }

    /// The visible screen, one line a row (trailing blanks trimmed).
    pub fn text(&self) -> String {
        let screen = self.parser.screen();
        let (_, cols) = screen.size();
        screen
            .rows(0, cols.get())
            .map(|r| r.trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Scrollback and screen, oldest line first.
    pub fn all_text(&mut self) -> String {
        let screen = self.parser.screen_mut();
        let (rows, cols) = screen.size();
        screen.set_scrollback(usize::MAX);
        let mut offset = screen.scrollback();
        let mut lines: Vec<String> = Vec::new();
        while offset > 0 {
            screen.set_scrollback(offset);
            let take = offset.min(usize::from(rows.get()));
            lines.extend(
                screen
                    .rows(0, cols.get())
                    .take(take)
                    .map(|r| r.trim_end().to_string()),
            );
            offset -= take;
        }
        screen.set_scrollback(0);
        lines.extend(screen.rows(0, cols.get()).map(|r| r.trim_end().to_string()));
        lines.join("\n")
    }

    /// Resizes the emulated screen, as a terminal window resize does.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.parser.screen_mut().set_size(
            std::num::NonZeroU16::new(height).unwrap(),
            std::num::NonZeroU16::new(width).unwrap(),
        );
    }
}

impl std::io::Write for VtScreen {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.parser.process(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Surface for VtScreen {
    fn size(&self) -> std::io::Result<(u16, u16)> {
        let (rows, cols) = self.parser.screen().size();
        Ok((cols.get(), rows.get()))
    }
}

/// Draws the app on a fresh emulated terminal and returns the screen text.
pub fn screen(app: &mut App, width: u16, height: u16) -> String {
    let mut screen = Screen::new(VtScreen::new(width, height)).unwrap();
    screen.draw(app).unwrap();
    screen.surface().text()
}

/// The host reports a prompt job queued, answering the oldest prompt the
/// app sent (as a host does: prompts queue in the order they came).
pub fn job_queued(app: &mut App, id: u64, text: &str) {
    let op = app.awaiting().first().cloned();
    input(
        app,
        HostEvent::Job {
            op,
            update: JobUpdate::Queued {
                id: JobId(id),
                kind: JobKind::Prompt,
                text: text.into(),
            },
        },
    );
}

/// The runtime reports a prompt job started.
pub fn job_started(app: &mut App, id: u64) {
    input(
        app,
        HostEvent::Job {
            op: None,
            update: JobUpdate::Started {
                id: JobId(id),
                kind: JobKind::Prompt,
            },
        },
    );
}

/// The runtime reports a prompt job ended.
pub fn job_ended(app: &mut App, id: u64, cause: StopCause) {
    input(
        app,
        HostEvent::Job {
            op: None,
            update: JobUpdate::Ended {
                id: JobId(id),
                kind: JobKind::Prompt,
                cause,
                message: String::new(),
                window_tokens: 0,
            },
        },
    );
}

/// What the runtime says when prompt `id` is submitted while idle: queued,
/// started, and its input event.
pub fn turn_begins(app: &mut App, id: u64, text: &str) {
    job_queued(app, id, text);
    job_started(app, id);
    ev(app, user_input(text));
}

/// The host's answer to `Op::ListFiles`: these paths, of these kinds.
pub fn listing(entries: &[(&str, light_agent::protocol::EntryKind)]) -> HostEvent {
    HostEvent::Files {
        entries: entries
            .iter()
            .map(|&(path, kind)| light_agent::protocol::WorkspaceEntry {
                path: path.into(),
                kind,
            })
            .collect(),
        truncated: false,
    }
}
