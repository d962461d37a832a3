//! The header printed when a session opens.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::format_age;
use crate::protocol::SessionHeader;
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
                " · {} · {age} · {}",
                short_id(&header.id),
                turns(header.turns)
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

/// "1 turn", "3 turns".
pub fn turns(n: u64) -> String {
    if n == 1 {
        "1 turn".into()
    } else {
        format!("{n} turns")
    }
}

/// The last 8 characters of a session id: its random part, which tells
/// sessions apart (the leading characters are a shared prefix and the time).
pub fn short_id(id: &str) -> String {
    let count = id.chars().count();
    id.chars().skip(count.saturating_sub(8)).collect()
}
