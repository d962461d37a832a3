//! The transcript overlay (Ctrl+T): the whole session with full tool
//! results and thoughts, on the alternate screen.
//!
//! The session is kept as raw items; opening flattens them into plain
//! source lines (cheap: no markdown, no wrapping), and drawing wraps only
//! the lines that are visible, so a 100k-line session opens at once.
//! Keys: Up/Down/j/k scroll, PgUp/PgDn/space/b page, g/G top/bottom,
//! `/` search (Enter finds, n/N next/previous), q or Esc close.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::bridge::{NoticeLevel, SessionHeader};
use super::wrap::wrap_line;
use crate::protocol::{AgentEvent, InputSource};

/// One thing the transcript shows.
#[derive(Debug, Clone, PartialEq)]
pub enum TranscriptItem {
    /// A session was opened.
    Header(SessionHeader),
    /// A persisted (non-delta) agent event.
    Event(AgentEvent),
    /// A notice shown to the user.
    Notice(NoticeLevel, String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Header,
    User,
    Thought,
    Output,
    Tool,
    ToolError,
    Notice,
}

fn style(kind: Kind) -> Style {
    match kind {
        Kind::Header => Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
        Kind::User => Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
        Kind::Thought => Style::new()
            .fg(Color::DarkGray)
            .add_modifier(Modifier::ITALIC),
        Kind::Output => Style::new(),
        Kind::Tool => Style::new().fg(Color::Gray),
        Kind::ToolError => Style::new().fg(Color::Red),
        Kind::Notice => Style::new().fg(Color::Yellow),
    }
}

/// The open overlay.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptView {
    lines: Vec<(Kind, String)>,
    top: usize,
    page: usize,
    typing: Option<String>,
    query: String,
    message: Option<String>,
}

impl TranscriptView {
    /// Flattens `items` and opens at the end, for a screen `height` rows tall.
    pub fn open(items: &[TranscriptItem], height: u16) -> Self {
        let mut lines = Vec::new();
        let mut push = |kind: Kind, text: &str| {
            for l in text.lines() {
                lines.push((kind, l.to_string()));
            }
        };
        for item in items {
            match item {
                TranscriptItem::Header(h) => push(
                    Kind::Header,
                    &format!("══ session {} · {} ══", h.id, h.title),
                ),
                TranscriptItem::Notice(_, text) => push(Kind::Notice, &format!("• {text}")),
                TranscriptItem::Event(event) => match event {
                    AgentEvent::Input { text, source, meta } => {
                        push(Kind::Output, "");
                        let who = if *source == InputSource::User {
                            "user"
                        } else {
                            "system"
                        };
                        push(Kind::User, &format!("── turn {} · {who} ──", meta.turn));
                        push(Kind::User, text);
                    }
                    AgentEvent::Thought { text, .. } => {
                        push(Kind::Thought, "[thought]");
                        push(Kind::Thought, text);
                    }
                    AgentEvent::Output { text, .. } => push(Kind::Output, text),
                    AgentEvent::ToolCalls { calls, .. } => {
                        for call in calls {
                            push(
                                Kind::Tool,
                                &format!("→ {} {} [{}]", call.name, call.args, call.id),
                            );
                        }
                    }
                    AgentEvent::ToolResult { outcome, .. } => {
                        let kind = if outcome.is_error {
                            Kind::ToolError
                        } else {
                            Kind::Tool
                        };
                        push(
                            kind,
                            &format!(
                                "← {} [{}]{}",
                                outcome.name,
                                outcome.id,
                                if outcome.is_error { " (error)" } else { "" }
                            ),
                        );
                        push(kind, &outcome.result);
                    }
                    AgentEvent::AgentStop { cause, message, .. } => {
                        push(Kind::Notice, &format!("■ stop: {cause:?} {message}"));
                    }
                    AgentEvent::AgentSummary {
                        text,
                        covers_through,
                        ..
                    } => {
                        push(
                            Kind::Notice,
                            &format!(
                                "[summary through turn {} step {}]",
                                covers_through.turn, covers_through.step
                            ),
                        );
                        push(Kind::Thought, text);
                    }
                    AgentEvent::AgentTrace { usage, model, .. } => push(
                        Kind::Thought,
                        &format!(
                            "[{model}: {} in / {} out tokens]",
                            usage.input, usage.output
                        ),
                    ),
                    AgentEvent::ThoughtDelta { .. } | AgentEvent::OutputDelta { .. } => {}
                },
            }
        }
        let page = height.saturating_sub(1).max(1) as usize;
        let top = lines.len().saturating_sub(page);
        Self {
            lines,
            top,
            page,
            typing: None,
            query: String::new(),
            message: None,
        }
    }

    /// Number of source lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether the transcript is empty.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Index of the first visible source line.
    pub fn top(&self) -> usize {
        self.top
    }

    fn scroll(&mut self, delta: isize) {
        let max = self.lines.len().saturating_sub(1) as isize;
        self.top = (self.top as isize + delta).clamp(0, max.max(0)) as usize;
    }

    fn find(&mut self, forward: bool) {
        if self.query.is_empty() {
            return;
        }
        let needle = self.query.to_lowercase();
        let n = self.lines.len();
        let hit = (1..=n)
            .map(|i| {
                if forward {
                    (self.top + i) % n
                } else {
                    (self.top + n - i) % n
                }
            })
            .find(|&i| self.lines[i].1.to_lowercase().contains(&needle));
        match hit {
            Some(i) => {
                self.top = i;
                self.message = None;
            }
            None => self.message = Some(format!("not found: {}", self.query)),
        }
    }

    /// Handles a key; returns true when the overlay should close.
    pub fn key(&mut self, key: KeyEvent) -> bool {
        if let Some(typing) = self.typing.as_mut() {
            match key.code {
                KeyCode::Esc => self.typing = None,
                KeyCode::Enter => {
                    self.query = std::mem::take(typing);
                    self.typing = None;
                    self.find(true);
                }
                KeyCode::Backspace => {
                    typing.pop();
                }
                KeyCode::Char(c) => typing.push(c),
                _ => {}
            }
            return false;
        }
        let page = self.page as isize;
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => return true,
            KeyCode::Char('t') if key.modifiers.contains(KeyModifiers::CONTROL) => return true,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => return true,
            KeyCode::Up | KeyCode::Char('k') => self.scroll(-1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll(1),
            KeyCode::PageUp | KeyCode::Char('b') => self.scroll(-page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll(page),
            KeyCode::Home | KeyCode::Char('g') => self.top = 0,
            KeyCode::End | KeyCode::Char('G') => {
                self.top = self.lines.len().saturating_sub(self.page)
            }
            KeyCode::Char('/') => self.typing = Some(String::new()),
            KeyCode::Char('n') => self.find(true),
            KeyCode::Char('N') => self.find(false),
            _ => {}
        }
        false
    }

    /// Draws the visible window: only lines from `top` until the screen is full are wrapped.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let body_rows = area.height.saturating_sub(1) as usize;
        let mut rows: Vec<Line<'static>> = Vec::with_capacity(body_rows);
        for (kind, text) in self.lines.iter().skip(self.top) {
            if rows.len() >= body_rows {
                break;
            }
            let line = Line::from(Span::styled(text.clone(), style(*kind)));
            rows.extend(wrap_line(&line, area.width as usize, &[]));
        }
        rows.truncate(body_rows);
        Paragraph::new(rows).render(
            Rect {
                height: body_rows as u16,
                ..area
            },
            buf,
        );
        let footer = match (&self.typing, &self.message) {
            (Some(q), _) => format!("/{q}"),
            (None, Some(m)) => m.clone(),
            (None, None) => format!(
                "transcript · line {}/{} · ↑↓ PgUp PgDn g G · / search · n N · q close",
                (self.top + 1).min(self.lines.len()),
                self.lines.len()
            ),
        };
        let footer_area = Rect {
            y: area.bottom().saturating_sub(1),
            height: 1.min(area.height),
            ..area
        };
        Paragraph::new(Line::from(Span::styled(
            footer,
            Style::new().add_modifier(Modifier::REVERSED),
        )))
        .render(footer_area, buf);
    }
}
