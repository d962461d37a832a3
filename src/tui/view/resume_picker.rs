//! The session picker opened by `/resume` and `/sessions`: type to filter,
//! Up/Down to choose, Enter to resume, Esc to close.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::format_age;
use super::notice::truncate;
use super::session_header::{short_id, turns};
use crate::tui::bridge::SessionRow;

const VISIBLE_ROWS: usize = 8;

/// Picker state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResumePicker {
    /// Every session offered.
    pub rows: Vec<SessionRow>,
    /// Typed filter (matches title, id or cwd, case-insensitively).
    pub filter: String,
    /// Index into the filtered rows.
    pub selected: usize,
}

impl ResumePicker {
    /// A picker over `rows`.
    pub fn new(rows: Vec<SessionRow>) -> Self {
        Self {
            rows,
            filter: String::new(),
            selected: 0,
        }
    }

    /// The rows that match the filter.
    pub fn filtered(&self) -> Vec<&SessionRow> {
        let needle = self.filter.to_lowercase();
        self.rows
            .iter()
            .filter(|r| {
                needle.is_empty()
                    || r.title.to_lowercase().contains(&needle)
                    || r.id.to_lowercase().contains(&needle)
                    || r.cwd.to_lowercase().contains(&needle)
            })
            .collect()
    }

    /// The row Enter would resume.
    pub fn chosen(&self) -> Option<&SessionRow> {
        self.filtered().get(self.selected).copied()
    }

    /// Moves the selection by `delta`, staying within the filtered rows.
    pub fn step(&mut self, delta: isize) {
        let len = self.filtered().len();
        if len == 0 {
            self.selected = 0;
            return;
        }
        self.selected = (self.selected as isize + delta).clamp(0, len as isize - 1) as usize;
    }

    /// Adds a character to the filter.
    pub fn type_char(&mut self, c: char) {
        self.filter.push(c);
        self.selected = 0;
    }

    /// Removes the last filter character.
    pub fn backspace(&mut self) {
        self.filter.pop();
        self.selected = 0;
    }

    /// The picker's lines: a filter line, then a window of rows around the selection.
    pub fn lines(&self, now_ms: u64, width: u16) -> Vec<Line<'static>> {
        let w = width as usize;
        let dim = Style::new().fg(Color::DarkGray);
        let mut out = vec![Line::from(vec![
            Span::styled(
                "resume › ",
                Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            ),
            Span::raw(self.filter.clone()),
            Span::styled("  (type to filter · Enter resume · Esc close)", dim),
        ])];
        let rows = self.filtered();
        if rows.is_empty() {
            out.push(Line::from(Span::styled("  no sessions match", dim)));
            return out;
        }
        let first = self.selected.saturating_sub(VISIBLE_ROWS - 1);
        for (i, row) in rows.iter().enumerate().skip(first).take(VISIBLE_ROWS) {
            let title = if row.title.is_empty() {
                "untitled"
            } else {
                row.title.as_str()
            };
            let meta = format!(
                "  {} · {} · {}",
                short_id(&row.id),
                format_age(row.updated_at, now_ms),
                turns(row.turns)
            );
            let title_room = w.saturating_sub(meta.chars().count() + 2).max(8);
            let style = if i == self.selected {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new()
            };
            out.push(Line::from(vec![
                Span::styled(if i == self.selected { "› " } else { "  " }, style),
                Span::styled(truncate(title, title_room), style),
                Span::styled(meta, dim),
            ]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, title: &str) -> SessionRow {
        SessionRow {
            id: id.into(),
            title: title.into(),
            ..SessionRow::default()
        }
    }

    #[test]
    fn typing_filters_and_selection_stays_in_range() {
        let mut p = ResumePicker::new(vec![
            row("a1", "fix parser"),
            row("b2", "docs"),
            row("c3", "parser tests"),
        ]);
        p.step(5);
        assert_eq!(p.chosen().map(|r| r.id.as_str()), Some("c3"));
        for c in "pars".chars() {
            p.type_char(c);
        }
        assert_eq!(p.filtered().len(), 2);
        p.step(1);
        assert_eq!(p.chosen().map(|r| r.id.as_str()), Some("c3"));
        p.step(-9);
        assert_eq!(p.chosen().map(|r| r.id.as_str()), Some("a1"));
    }
}
