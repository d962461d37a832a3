//! Notices: interrupted, retrying, compacted, errors and command output.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::tui::bridge::NoticeLevel;
use crate::tui::wrap::wrap_line;

/// Lines of a notice: a level mark on the first line, text wrapped below.
pub fn lines(level: NoticeLevel, text: &str, width: u16) -> Vec<Line<'static>> {
    let (mark, style) = match level {
        NoticeLevel::Info => ("• ", Style::new().fg(Color::DarkGray)),
        NoticeLevel::Warn => ("⚠ ", Style::new().fg(Color::Yellow)),
        NoticeLevel::Error => ("✗ ", Style::new().fg(Color::Red)),
    };
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let lead = if i == 0 { mark } else { "  " };
        let line = Line::from(vec![
            Span::styled(lead, style.add_modifier(Modifier::BOLD)),
            Span::styled(raw.to_string(), style),
        ]);
        out.extend(wrap_line(&line, width as usize, &[Span::raw("  ")]));
    }
    out
}

/// Cuts `text` to at most `width` columns, ending with `…` when cut.
pub fn truncate(text: &str, width: usize) -> String {
    let mut used = 0;
    let mut out = String::new();
    let total: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return text.to_string();
    }
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}
