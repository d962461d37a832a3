//! The approval overlay: the coloured unified diff of a change waiting for
//! the user, with old and new line numbers, scrollable, answered with
//! `y` (apply), `a` (apply and stop asking for this tool), `n` + reason or
//! Esc (deny). Parsed once when it opens; each frame draws only the rows
//! that fit, so a diff of thousands of lines opens at once.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::diff_line::DiffLine;
use crate::protocol::{ApprovalDecision, ApprovalDetail, ApprovalRequest, OpId};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RowKind {
    File,
    Hunk,
    Added,
    Removed,
    Context,
    Note,
}

#[derive(Debug, Clone)]
struct DiffRow {
    kind: RowKind,
    old: Option<usize>,
    new: Option<usize>,
    text: String,
}

/// One pending approval as shown.
#[derive(Debug, Clone)]
pub struct ApprovalView {
    /// The id its decision answers.
    pub id: OpId,
    /// What is asked.
    pub request: ApprovalRequest,
    rows: Vec<DiffRow>,
    /// Width of each line-number column.
    gutter: usize,
    scroll: usize,
    /// The reason being typed after `n`.
    reason: Option<String>,
}

/// The text the overlay lays out for a subject: a diff as it is, a command
/// with where and how it runs, an MCP call with its arguments, a fetch's URL.
fn subject_text(detail: &ApprovalDetail) -> String {
    match detail {
        ApprovalDetail::Diff { unified } => unified.clone(),
        ApprovalDetail::Command {
            command,
            workdir,
            sandbox,
            destructive,
        } => {
            let mut text = format!("$ {command}\n(in {workdir}, {sandbox})\n");
            for why in destructive {
                text.push_str(&format!("destructive: {why}\n"));
            }
            text
        }
        ApprovalDetail::Mcp { server, tool, args } => format!("{server}.{tool} {args}\n"),
        ApprovalDetail::Web { url, host } => {
            format!("GET {url}\n(`a` allows {host} for the session)\n")
        }
    }
}

/// Rows a page-scroll moves.
const PAGE: usize = 10;

/// `-12,3` or `+7` → 12 / 7.
fn range_start(field: &str) -> usize {
    field[1..]
        .split(',')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

impl ApprovalView {
    /// Lays out request `id`'s subject: a diff as numbered rows, a command
    /// or an MCP call as its text.
    pub fn new(id: OpId, request: ApprovalRequest) -> Self {
        let mut rows = Vec::new();
        let (mut old, mut new) = (0usize, 0usize);
        for line in subject_text(&request.detail).lines() {
            let row = |kind, old, new, text: &str| DiffRow {
                kind,
                old,
                new,
                text: text.to_string(),
            };
            match DiffLine::of(line) {
                DiffLine::File(text) => rows.push(row(RowKind::File, None, None, text)),
                DiffLine::Hunk(text) => {
                    let ranges = text.strip_prefix("@@ ").unwrap_or(text);
                    let mut fields = ranges.split_whitespace();
                    old = fields.next().map_or(0, range_start);
                    new = fields.next().map_or(0, range_start);
                    rows.push(row(RowKind::Hunk, None, None, text));
                }
                DiffLine::Added(text) => {
                    rows.push(row(RowKind::Added, None, Some(new), text));
                    new += 1;
                }
                DiffLine::Removed(text) => {
                    rows.push(row(RowKind::Removed, Some(old), None, text));
                    old += 1;
                }
                DiffLine::Context(text) => {
                    rows.push(row(RowKind::Context, Some(old), Some(new), text));
                    old += 1;
                    new += 1;
                }
                DiffLine::Note(text) => rows.push(row(RowKind::Note, None, None, text)),
            }
        }
        let widest = rows
            .iter()
            .flat_map(|r| [r.old, r.new])
            .flatten()
            .max()
            .unwrap_or(0);
        Self {
            id,
            request,
            rows,
            gutter: widest.to_string().len(),
            scroll: 0,
            reason: None,
        }
    }

    /// Lines of the diff.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the diff is empty.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Rows the overlay needs to show all of its subject: the title, the
    /// subject's rows and the keys.
    pub fn height(&self) -> u16 {
        u16::try_from(self.rows.len())
            .unwrap_or(u16::MAX)
            .saturating_add(2)
    }

    /// Handles a key; `Some` when the user answered.
    pub fn key(&mut self, key: KeyEvent) -> Option<ApprovalDecision> {
        if let Some(reason) = self.reason.as_mut() {
            match key.code {
                KeyCode::Enter => {
                    let reason = reason.trim().to_string();
                    return Some(ApprovalDecision::Deny {
                        reason: (!reason.is_empty()).then_some(reason),
                    });
                }
                KeyCode::Esc => self.reason = None,
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    reason.push(c)
                }
                _ => {}
            }
            return None;
        }
        let last = self.rows.len().saturating_sub(1);
        match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => return Some(ApprovalDecision::Approve),
            KeyCode::Char('a') | KeyCode::Char('A') => {
                return Some(ApprovalDecision::ApproveForSession);
            }
            KeyCode::Char('n') | KeyCode::Char('N') => self.reason = Some(String::new()),
            KeyCode::Esc => return Some(ApprovalDecision::Deny { reason: None }),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Some(ApprovalDecision::Deny { reason: None });
            }
            KeyCode::Up | KeyCode::Char('k') => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll = (self.scroll + 1).min(last),
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(PAGE),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll = (self.scroll + PAGE).min(last),
            KeyCode::Home | KeyCode::Char('g') => self.scroll = 0,
            KeyCode::End | KeyCode::Char('G') => self.scroll = last,
            _ => {}
        }
        None
    }

    /// Draws the overlay into `area`: title, diff rows from the scroll
    /// position, then the keys (or the reason being typed).
    pub fn render(&self, area: Rect, buf: &mut Buffer, queued: usize) {
        if area.height == 0 || area.width == 0 {
            return;
        }
        let width = area.width;
        let clear = Style::default();
        for y in area.top()..area.bottom() {
            buf.set_line(area.x, y, &Line::default(), width);
            for x in area.left()..area.right() {
                if let Some(cell) = buf.cell_mut((x, y)) {
                    cell.reset();
                    cell.set_style(clear);
                }
            }
        }
        let more = if queued > 0 {
            format!("  (+{queued} waiting)")
        } else {
            String::new()
        };
        let title = Line::from(vec![
            Span::styled(
                " approve? ",
                Style::default()
                    .fg(Color::Black)
                    .bg(Color::Yellow)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!(" {}{more}", self.request.title),
                Style::default().add_modifier(Modifier::BOLD),
            ),
        ]);
        buf.set_line(area.x, area.y, &title, width);
        if area.height < 2 {
            return;
        }
        let footer_y = area.bottom() - 1;
        let body = (area.height as usize).saturating_sub(2);
        for (i, row) in self.rows.iter().skip(self.scroll).take(body).enumerate() {
            let y = area.y + 1 + i as u16;
            buf.set_line(area.x, y, &self.row_line(row), width);
        }
        let footer = match &self.reason {
            Some(reason) => Line::from(vec![
                Span::styled("reason: ", Style::default().fg(Color::Yellow)),
                Span::raw(format!("{reason}▏")),
                Span::styled(
                    "  Enter deny · Esc back",
                    Style::default().add_modifier(Modifier::DIM),
                ),
            ]),
            None => Line::from(vec![
                Span::styled(
                    "y",
                    Style::default()
                        .fg(Color::Green)
                        .add_modifier(Modifier::BOLD),
                ),
                Span::raw(" apply  "),
                Span::styled(
                    "a",
                    Style::default()
                        .fg(Color::Green)
                        .add_modifier(Modifier::BOLD),
                ),
                Span::raw(format!(" always {}  ", self.request.tool)),
                Span::styled(
                    "n",
                    Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
                ),
                Span::raw(" deny (reason)  "),
                Span::styled(
                    "Esc",
                    Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
                ),
                Span::raw(" deny  "),
                Span::styled(
                    format!(
                        "↑↓ PgUp PgDn  {}-{}/{}",
                        (self.scroll + 1).min(self.rows.len()),
                        (self.scroll + body).min(self.rows.len()),
                        self.rows.len()
                    ),
                    Style::default().add_modifier(Modifier::DIM),
                ),
            ]),
        };
        buf.set_line(area.x, footer_y, &footer, width);
    }

    fn row_line(&self, row: &DiffRow) -> Line<'static> {
        let number = |n: Option<usize>| match n {
            Some(n) => format!("{n:>w$}", w = self.gutter),
            None => " ".repeat(self.gutter),
        };
        let gutter_style = Style::default().add_modifier(Modifier::DIM);
        let (sign, style) = match row.kind {
            RowKind::File => {
                return Line::from(Span::styled(
                    row.text.clone(),
                    Style::default().add_modifier(Modifier::BOLD),
                ));
            }
            RowKind::Hunk => {
                return Line::from(Span::styled(
                    row.text.clone(),
                    Style::default().fg(Color::Cyan),
                ));
            }
            RowKind::Note => {
                return Line::from(Span::styled(row.text.clone(), gutter_style));
            }
            RowKind::Added => ("+", Style::default().fg(Color::Green)),
            RowKind::Removed => ("-", Style::default().fg(Color::Red)),
            RowKind::Context => (" ", Style::default()),
        };
        Line::from(vec![
            Span::styled(
                format!("{} {} │", number(row.old), number(row.new)),
                gutter_style,
            ),
            Span::styled(format!("{sign}{}", row.text), style),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl ApprovalView {
        fn from_pair((id, request): (OpId, ApprovalRequest)) -> Self {
            Self::new(id, request)
        }
    }

    fn prompt(diff: &str) -> (OpId, ApprovalRequest) {
        let request = ApprovalRequest {
            call_id: "c".into(),
            tool: "edit".into(),
            title: "edit: Edited a.rs (+1 −1)".into(),
            detail: ApprovalDetail::Diff {
                unified: diff.into(),
            },
        };
        (OpId::new("approval-1"), request)
    }

    fn text(buf: &Buffer) -> String {
        let area = buf.area;
        (area.top()..area.bottom())
            .map(|y| {
                (area.left()..area.right())
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn rows_carry_old_and_new_line_numbers() {
        let view = ApprovalView::from_pair(prompt(
            "--- a/a.rs\n+++ b/a.rs\n@@ -9,3 +9,3 @@\n keep\n-old\n+new\n tail\n",
        ));
        let area = Rect::new(0, 0, 60, 9);
        let mut buf = Buffer::empty(area);
        view.render(area, &mut buf, 2);
        let shown = text(&buf);
        assert!(
            shown.contains("approve?  edit: Edited a.rs (+1 −1)  (+2 waiting)"),
            "{shown}"
        );
        assert!(shown.contains(" 9  9 │ keep"), "{shown}");
        assert!(shown.contains("10    │-old"), "{shown}");
        assert!(shown.contains("   10 │+new"), "{shown}");
        assert!(shown.contains("11 11 │ tail"), "{shown}");
        assert!(
            shown.lines().last().unwrap().starts_with("y apply"),
            "{shown}"
        );
    }

    #[test]
    fn keys_answer_and_n_takes_a_reason() {
        let mut view = ApprovalView::from_pair(prompt("+x\n"));
        let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
        assert_eq!(
            view.key(key(KeyCode::Char('y'))),
            Some(ApprovalDecision::Approve)
        );
        assert_eq!(
            view.key(key(KeyCode::Char('a'))),
            Some(ApprovalDecision::ApproveForSession)
        );
        assert_eq!(
            view.key(key(KeyCode::Esc)),
            Some(ApprovalDecision::Deny { reason: None })
        );
        assert_eq!(view.key(key(KeyCode::Char('n'))), None);
        for c in "not now".chars() {
            assert_eq!(
                view.key(key(KeyCode::Char(c))),
                None,
                "typing is not an answer"
            );
        }
        assert_eq!(
            view.key(key(KeyCode::Enter)),
            Some(ApprovalDecision::Deny {
                reason: Some("not now".into())
            })
        );
    }

    #[test]
    fn scrolling_stops_at_both_ends() {
        let diff: String = (0..50).map(|i| format!("+line {i}\n")).collect();
        let mut view = ApprovalView::from_pair(prompt(&diff));
        let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
        view.key(key(KeyCode::Up));
        assert_eq!(view.scroll, 0);
        view.key(key(KeyCode::PageDown));
        assert_eq!(view.scroll, PAGE);
        view.key(key(KeyCode::End));
        assert_eq!(view.scroll, 49);
        view.key(key(KeyCode::Down));
        assert_eq!(view.scroll, 49);
    }
}
