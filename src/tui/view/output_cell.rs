//! The model's visible answer: markdown lines, committed as they complete
//! (see [`crate::tui::stream::MarkdownStream`]); this file wraps them.

use ratatui::text::{Line, Span};

use crate::tui::wrap::{plain, wrap_line};

/// Wraps rendered markdown lines to `width`, continuing each wrapped line
/// under its own indentation (list items, quotes).
pub fn wrap(lines: Vec<Line<'static>>, width: u16) -> Vec<Line<'static>> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let text = plain(&line);
        let lead = text.len() - text.trim_start_matches([' ', '-', '▌']).len();
        let indent = if lead > 0 && lead < width as usize / 2 {
            vec![Span::raw(" ".repeat(text[..lead].chars().count()))]
        } else {
            Vec::new()
        };
        out.extend(wrap_line(&line, width as usize, &indent));
    }
    out
}
