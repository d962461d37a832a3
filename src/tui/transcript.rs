//! The transcript overlay (Ctrl+T): the whole session with full tool
//! results and thoughts, on the alternate screen.
//!
//! The session is kept as raw items; opening flattens them into plain
//! source lines (cheap: no markdown, no wrapping), and drawing wraps only
//! the lines that are visible, so a 100k-line session opens at once. While
//! open it follows the session ([`TranscriptView::follow`]: new items and
//! the answer streaming now) and stays at the end when it was there.
//! Keys: Up/Down/j/k scroll, PgUp/PgDn/space/b page, g/G top/bottom,
//! `/` search (Enter finds, n/N next/previous; every match highlighted),
//! q or Esc close.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::view::diff_line::DiffLine;
use super::width::str_width;
use super::wrap::wrap_line;
use crate::protocol::{AgentEvent, InputSource};
use crate::protocol::{NoticeLevel, SessionHeader};

/// One thing the transcript shows.
#[derive(Debug, Clone, PartialEq)]
pub enum TranscriptItem {
    /// A session was opened.
    Header(SessionHeader),
    /// A persisted (non-delta) agent event.
    Event(AgentEvent),
    /// A notice shown to the user.
    Notice(NoticeLevel, String),
    /// An event of the subagent that `task` call `call_id` runs, shown
    /// indented under its agent's name.
    Subagent {
        /// The parent's `task` call.
        call_id: String,
        /// The agent definition's name.
        agent: String,
        /// The child's event.
        event: AgentEvent,
    },
}

/// Byte ranges of every match of `query` in `text`, ignoring ASCII case.
fn matches(text: &str, query: &str) -> Vec<(usize, usize)> {
    if query.is_empty() || query.len() > text.len() {
        return Vec::new();
    }
    let hay = text.as_bytes();
    let needle = query.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if hay[i..i + needle.len()].eq_ignore_ascii_case(needle) && text.is_char_boundary(i) {
            out.push((i, i + needle.len()));
            i += needle.len();
        } else {
            i += 1;
        }
    }
    out
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
    /// A `+` line of an applied change's diff.
    Added,
    /// A `-` line of an applied change's diff.
    Removed,
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
        Kind::Added => Style::new().fg(Color::Green),
        Kind::Removed => Style::new().fg(Color::Red),
    }
}

/// The open overlay.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptView {
    lines: Vec<(Kind, String)>,
    /// How many session items `lines` holds.
    items_seen: usize,
    /// The running answer's text so far (shown after `lines`).
    live: Vec<String>,
    top: usize,
    /// Whether the view sticks to the end as the session grows.
    following: bool,
    /// The first line the last frame showed (following computes it).
    shown_top: std::cell::Cell<usize>,
    page: usize,
    typing: Option<String>,
    query: String,
    message: Option<String>,
}

impl TranscriptView {
    /// Flattens `items` and opens at the end, for a screen `height` rows tall.
    pub fn open(items: &[TranscriptItem], height: u16) -> Self {
        let mut view = Self {
            lines: Vec::new(),
            items_seen: 0,
            live: Vec::new(),
            top: 0,
            following: true,
            shown_top: std::cell::Cell::new(0),
            page: height.saturating_sub(1).max(1) as usize,
            typing: None,
            query: String::new(),
            message: None,
        };
        view.follow(items, None);
        view
    }

    /// Takes in what the session gained since the last call — new items and
    /// the running answer's text so far — so the open transcript follows the
    /// live session; a view at the end stays at the end.
    pub fn follow(&mut self, items: &[TranscriptItem], live: Option<&str>) {
        if let Some(new) = items.get(self.items_seen..) {
            for item in new {
                flatten(item, &mut self.lines);
            }
            self.items_seen = items.len();
        } else {
            // The session was replaced (resume, /new): start over.
            self.lines.clear();
            self.items_seen = 0;
            self.follow(items, None);
        }
        self.live.clear();
        if let Some(text) = live {
            self.live.extend(text.lines().map(str::to_string));
        }
    }

    fn total(&self) -> usize {
        self.lines.len() + self.live.len()
    }

    fn line(&self, i: usize) -> Option<(Kind, &str)> {
        match self.lines.get(i) {
            Some((kind, text)) => Some((*kind, text.as_str())),
            None => self
                .live
                .get(i - self.lines.len())
                .map(|t| (Kind::Output, t.as_str())),
        }
    }
}

/// Appends the plain source lines of one session item.
fn flatten(item: &TranscriptItem, lines: &mut Vec<(Kind, String)>) {
    let mut push = |kind: Kind, text: &str| {
        for l in text.lines() {
            lines.push((kind, l.to_string()));
        }
    };
    match item {
        TranscriptItem::Subagent {
            call_id,
            agent,
            event,
        } => {
            let mut child = Vec::new();
            flatten(&TranscriptItem::Event(event.clone()), &mut child);
            lines.extend(
                child
                    .into_iter()
                    .filter(|(_, text)| !text.is_empty())
                    .map(|(kind, text)| (kind, format!("  │ {agent} [{call_id}] {text}"))),
            );
        }
        TranscriptItem::Header(h) => push(
            Kind::Header,
            &format!("══ session {} · {} ══", h.id, h.title),
        ),
        TranscriptItem::Notice(_, text) => push(Kind::Notice, &format!("• {text}")),
        TranscriptItem::Event(event) => match event {
            AgentEvent::Input {
                text, source, meta, ..
            } => {
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
                if let Some(display) = &outcome.display {
                    for line in display.lines() {
                        let kind = match DiffLine::of(line) {
                            DiffLine::Added(_) => Kind::Added,
                            DiffLine::Removed(_) => Kind::Removed,
                            _ => Kind::Tool,
                        };
                        push(kind, line);
                    }
                }
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

impl TranscriptView {
    /// The first line of the last screenful: walks back from the end
    /// adding up wrapped heights (only as many lines as fit are measured).
    fn bottom_top(&self, width: usize, rows: usize) -> usize {
        let mut used = 0;
        let mut top = self.total();
        while top > 0 {
            let Some((_, text)) = self.line(top - 1) else {
                break;
            };
            let height = str_width(text).div_ceil(width.max(1)).max(1);
            if used + height > rows {
                break;
            }
            used += height;
            top -= 1;
        }
        top
    }

    /// One source line, its search matches highlighted.
    fn styled(&self, kind: Kind, text: &str) -> Line<'static> {
        let base = style(kind);
        let hits = if self.query.is_empty() {
            Vec::new()
        } else {
            matches(text, &self.query)
        };
        if hits.is_empty() {
            return Line::from(Span::styled(text.to_string(), base));
        }
        let mark = base.bg(Color::Yellow).fg(Color::Black);
        let mut spans = Vec::new();
        let mut at = 0;
        for (start, end) in hits {
            if start > at {
                spans.push(Span::styled(text[at..start].to_string(), base));
            }
            spans.push(Span::styled(text[start..end].to_string(), mark));
            at = end;
        }
        if at < text.len() {
            spans.push(Span::styled(text[at..].to_string(), base));
        }
        Line::from(spans)
    }

    /// Number of source lines.
    pub fn len(&self) -> usize {
        self.total()
    }

    /// Whether the transcript is empty.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Index of the first visible source line.
    pub fn top(&self) -> usize {
        if self.following {
            self.shown_top.get()
        } else {
            self.top
        }
    }

    fn scroll(&mut self, delta: isize) {
        let max = self.total().saturating_sub(1) as isize;
        let from = self.top() as isize;
        self.top = (from + delta).clamp(0, max.max(0)) as usize;
        self.following = false;
    }

    fn find(&mut self, forward: bool) {
        if self.query.is_empty() {
            return;
        }
        let n = self.total();
        let from = self.top();
        let hit = (1..=n)
            .map(|i| {
                if forward {
                    (from + i) % n
                } else {
                    (from + n - i) % n
                }
            })
            .find(|&i| {
                self.line(i)
                    .is_some_and(|(_, text)| !matches(text, &self.query).is_empty())
            });
        match hit {
            Some(i) => {
                self.top = i;
                self.following = false;
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
            KeyCode::Home | KeyCode::Char('g') => {
                self.top = 0;
                self.following = false;
            }
            KeyCode::End | KeyCode::Char('G') => self.following = true,
            KeyCode::Char('/') => self.typing = Some(String::new()),
            KeyCode::Char('n') => self.find(true),
            KeyCode::Char('N') => self.find(false),
            _ => {}
        }
        false
    }

    /// Draws the visible window: only lines from the top until the screen
    /// is full are wrapped. Following, the window ends at the last line.
    /// Every match of the search is highlighted.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let body_rows = area.height.saturating_sub(1) as usize;
        let width = area.width as usize;
        let top = if self.following {
            self.bottom_top(width, body_rows)
        } else {
            self.top.min(self.total().saturating_sub(1))
        };
        self.shown_top.set(top);
        let mut rows: Vec<Line<'static>> = Vec::with_capacity(body_rows);
        let mut i = top;
        while rows.len() < body_rows {
            let Some((kind, text)) = self.line(i) else {
                break;
            };
            rows.extend(wrap_line(&self.styled(kind, text), width, &[]));
            i += 1;
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
                (self.shown_top.get() + 1).min(self.total()),
                self.total()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Meta;

    fn output(text: &str) -> TranscriptItem {
        TranscriptItem::Event(AgentEvent::Output {
            text: text.into(),
            meta: Meta::new(1, 1),
        })
    }

    fn draw(view: &TranscriptView, width: u16, height: u16) -> Buffer {
        let area = Rect::new(0, 0, width, height);
        let mut buf = Buffer::empty(area);
        view.render(area, &mut buf);
        buf
    }

    fn row_text(buf: &Buffer, y: u16) -> String {
        (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect::<String>()
            .trim_end()
            .to_string()
    }

    fn press(view: &mut TranscriptView, code: KeyCode) {
        view.key(KeyEvent::new(code, KeyModifiers::NONE));
    }

    #[test]
    fn an_open_transcript_follows_new_items_and_the_live_answer_at_the_end() {
        let mut items = vec![output("one\ntwo")];
        let mut view = TranscriptView::open(&items, 4);
        view.follow(&items, Some("streaming so f"));
        let buf = draw(&view, 30, 4);
        assert_eq!(row_text(&buf, 2), "streaming so f");
        items.push(output("streaming so far\nand done"));
        view.follow(&items, None);
        let buf = draw(&view, 30, 4);
        assert_eq!(row_text(&buf, 1), "streaming so far");
        assert_eq!(row_text(&buf, 2), "and done", "still at the end");
        // Scrolled up, it stays where the user put it.
        press(&mut view, KeyCode::Char('g'));
        items.push(output("more"));
        view.follow(&items, None);
        assert_eq!(row_text(&draw(&view, 30, 4), 0), "one");
    }

    #[test]
    fn an_applied_change_shows_its_diff_coloured_after_the_result() {
        let outcome = crate::protocol::ToolOutcome {
            id: "c1".into(),
            name: "edit".into(),
            result: "Edited a.rs (+1 −1)".into(),
            is_error: false,
            display: Some("--- a/a.rs\n+++ b/a.rs\n@@ -2 +2 @@\n-old line\n+new line\n".into()),
        };
        let items = vec![TranscriptItem::Event(AgentEvent::ToolResult {
            outcome,
            meta: Meta::new(1, 1),
        })];
        let view = TranscriptView::open(&items, 10);
        let buf = draw(&view, 40, 10);
        let rows: Vec<String> = (0..10).map(|y| row_text(&buf, y)).collect();
        let at = |text: &str| rows.iter().position(|r| r == text).unwrap();
        assert!(at("Edited a.rs (+1 −1)") < at("-old line"), "{rows:?}");
        assert_eq!(buf[(0, at("-old line") as u16)].fg, Color::Red);
        assert_eq!(buf[(0, at("+new line") as u16)].fg, Color::Green);
        assert_eq!(buf[(0, at("+++ b/a.rs") as u16)].fg, Color::Gray);
    }

    #[test]
    fn search_highlights_every_match_and_n_moves_between_them() {
        let items = vec![output("alpha beta\nnothing\nbeta and BETA\nend")];
        let mut view = TranscriptView::open(&items, 10);
        press(&mut view, KeyCode::Char('/'));
        for c in "beta".chars() {
            press(&mut view, KeyCode::Char(c));
        }
        press(&mut view, KeyCode::Enter);
        let first = view.top();
        let marked = |view: &TranscriptView| -> Vec<(u16, u16)> {
            let buf = draw(view, 30, 10);
            (0..buf.area.height)
                .flat_map(|y| (0..30).map(move |x| (x, y)))
                .filter(|&(x, y)| buf[(x, y)].bg == Color::Yellow)
                .collect()
        };
        assert_eq!(first, 2, "the first match after the top");
        assert_eq!(
            marked(&view).len(),
            8,
            "both matches on the line, either case"
        );
        press(&mut view, KeyCode::Char('g'));
        assert_eq!(
            marked(&view).len(),
            12,
            "every match on screen is highlighted"
        );
        press(&mut view, KeyCode::Char('n'));
        assert_eq!(view.top(), 2);
        press(&mut view, KeyCode::Char('n'));
        assert_eq!(view.top(), 0, "n wraps around to the next matching line");
        press(&mut view, KeyCode::Char('N'));
        assert_eq!(view.top(), 2, "N goes back");
    }
}
