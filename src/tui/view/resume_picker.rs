//! The session picker opened by `/resume` and `/sessions`: type to filter,
//! Up/Down to choose, Enter to resume, Esc to close.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::filter_list::{FilterList, Filterable, row_style};
use super::format_age;
use super::notice::truncate;
use super::session_header::{short_id, turns};
use crate::protocol::SessionRow;

/// Picker state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResumePicker {
    /// Every session offered (the filter matches title, id or cwd), and the
    /// selection.
    pub list: FilterList<SessionRow>,
}

impl Filterable for SessionRow {
    fn matches(&self, needle: &str) -> bool {
        [&self.title, &self.id, &self.cwd]
            .iter()
            .any(|field| field.to_lowercase().contains(needle))
    }
}

impl ResumePicker {
    /// A picker over `rows`.
    pub fn new(rows: Vec<SessionRow>) -> Self {
        Self {
            list: FilterList::new(rows, 0),
        }
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
            Span::raw(self.list.filter.clone()),
            Span::styled("  (type to filter · Enter resume · Esc close)", dim),
        ])];
        if self.list.filtered().is_empty() {
            out.push(Line::from(Span::styled("  no sessions match", dim)));
            return out;
        }
        for (selected, row) in self.list.visible() {
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
            let (marker, style) = row_style(selected);
            out.push(Line::from(vec![
                marker,
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
        p.list.step(5);
        assert_eq!(p.list.chosen().map(|r| r.id.as_str()), Some("c3"));
        for c in "pars".chars() {
            p.list.type_char(c);
        }
        assert_eq!(p.list.filtered().len(), 2);
        p.list.step(1);
        assert_eq!(p.list.chosen().map(|r| r.id.as_str()), Some("c3"));
        p.list.step(-9);
        assert_eq!(p.list.chosen().map(|r| r.id.as_str()), Some("a1"));
    }
}
