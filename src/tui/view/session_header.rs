//! The header printed when a session opens.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::format_age;
use crate::tui::bridge::SessionHeader;
use crate::tui::wrap::wrap_line;

/// Lines of the header: title, short id, age and turn count, plus a note.
pub fn lines(header: &SessionHeader, now_ms: u64, width: u16) -> Vec<Line<'static>> {
    let title = if header.title.is_empty() {
        "untitled session"
    } else {
        header.title.as_str()
    };
    let dim = Style::new().fg(Color::DarkGray);
    let age = format_age(header.updated_at, now_ms);
    let line = Line::from(vec![
        Span::styled("── ", dim),
        Span::styled(title.to_string(), Style::new().add_modifier(Modifier::BOLD)),
        Span::styled(
            format!(
                " · {} · {age} · {} turns",
                short_id(&header.id),
                header.turns
            ),
            dim,
        ),
    ]);
    let mut out = wrap_line(&line, width as usize, &[Span::raw("   ")]);
    if let Some(note) = &header.note {
        out.extend(wrap_line(
            &Line::from(Span::styled(
                format!("   {note}"),
                Style::new().fg(Color::Yellow),
            )),
            width as usize,
            &[Span::raw("   ")],
        ));
    }
    out
}

/// The first 8 characters of a session id.
pub fn short_id(id: &str) -> String {
    id.chars().take(8).collect()
}
