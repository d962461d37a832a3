//! What the pickers share: rows narrowed by a typed filter, one of them
//! selected, and the window of rows drawn around the selection.

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

/// Rows drawn at most at once.
const VISIBLE_ROWS: usize = 8;

/// A row a filter can match.
pub trait Filterable {
    /// Whether the row matches `needle` (already lowercase).
    fn matches(&self, needle: &str) -> bool;
}

/// Rows, a typed filter and the selected one among those that match.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FilterList<T> {
    /// Every row offered.
    pub rows: Vec<T>,
    /// Typed filter (matched case-insensitively).
    pub filter: String,
    /// Index into the filtered rows.
    pub selected: usize,
}

impl<T: Filterable> FilterList<T> {
    /// A list over `rows` with row `selected` selected and no filter.
    pub fn new(rows: Vec<T>, selected: usize) -> Self {
        Self {
            rows,
            filter: String::new(),
            selected,
        }
    }

    /// The rows that match the filter.
    pub fn filtered(&self) -> Vec<&T> {
        let needle = self.filter.to_lowercase();
        self.rows
            .iter()
            .filter(|r| needle.is_empty() || r.matches(&needle))
            .collect()
    }

    /// The row Enter would pick.
    pub fn chosen(&self) -> Option<&T> {
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

    /// The filtered rows to draw (a window that keeps the selection in
    /// view), each with whether it is the selected one.
    pub fn visible(&self) -> Vec<(bool, &T)> {
        let first = self.selected.saturating_sub(VISIBLE_ROWS - 1);
        self.filtered()
            .into_iter()
            .enumerate()
            .skip(first)
            .take(VISIBLE_ROWS)
            .map(|(i, row)| (i == self.selected, row))
            .collect()
    }
}

/// The marker and the style of a drawn row: reversed with `›` when selected.
pub fn row_style(selected: bool) -> (Span<'static>, Style) {
    let style = if selected {
        Style::new().add_modifier(Modifier::REVERSED)
    } else {
        Style::new()
    };
    (
        Span::styled(if selected { "› " } else { "  " }, style),
        style,
    )
}
