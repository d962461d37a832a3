//! Notices: interrupted, retrying, compacted, errors and command output.

use crate::tui::width::{fit_prefix, str_width};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::protocol::NoticeLevel;
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

/// Cuts `text` to at most `width` columns, ending with `…` when cut; a
/// grapheme (a flag, a ZWJ sequence) is kept whole or left out whole.
pub fn truncate(text: &str, width: usize) -> String {
    if str_width(text) <= width {
        return text.to_string();
    }
    let (head, _) = fit_prefix(text, width.saturating_sub(1));
    format!("{head}…")
}
