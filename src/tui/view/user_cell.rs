//! The user's prompt as it appears in the history.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::tui::wrap::wrap_line;

/// Lines of a user prompt: `› ` before the first line, aligned continuations.
pub fn lines(text: &str, width: u16) -> Vec<Line<'static>> {
    let marker = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
    let body = Style::new().add_modifier(Modifier::BOLD);
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let lead = if i == 0 { "› " } else { "  " };
        let line = Line::from(vec![
            Span::styled(lead, marker),
            Span::styled(raw.to_string(), body),
        ]);
        out.extend(wrap_line(&line, width as usize, &[Span::raw("  ")]));
    }
    if out.is_empty() {
        out.push(Line::from(Span::styled("›", marker)));
    }
    out
}

/// One dim line per queued prompt (first line only), for the live area.
pub fn queued_lines(queued: &[String], width: u16) -> Vec<Line<'static>> {
    let style = Style::new()
        .fg(Color::DarkGray)
        .add_modifier(Modifier::ITALIC);
    queued
        .iter()
        .map(|q| {
            let first = q.lines().next().unwrap_or("");
            let text =
                crate::tui::view::notice::truncate(&format!("queued › {first}"), width as usize);
            Line::from(Span::styled(text, style))
        })
        .collect()
}
