//! The model's reasoning: shown dim while it streams, then collapsed to
//! "thought for Ns" and its first lines.

use std::time::Duration;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::format_duration;
use crate::tui::wrap::wrap_line;

const COLLAPSED_LINES: usize = 2;
const LIVE_LINES: usize = 3;

fn thought_style() -> Style {
    Style::new()
        .fg(Color::DarkGray)
        .add_modifier(Modifier::ITALIC)
}

fn body(text: &str, width: u16) -> Vec<Line<'static>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .flat_map(|l| {
            let line = Line::from(Span::styled(format!("  {}", l.trim_end()), thought_style()));
            wrap_line(&line, width as usize, &[Span::raw("  ")])
        })
        .collect()
}

/// The live view: the last few lines of the reasoning so far.
pub fn live_lines(text: &str, width: u16) -> Vec<Line<'static>> {
    let mut lines = body(text, width);
    let skip = lines.len().saturating_sub(LIVE_LINES);
    lines.drain(..skip);
    lines.insert(0, Line::from(Span::styled("• thinking…", thought_style())));
    lines
}

/// The collapsed view committed once the thought is complete.
pub fn done_lines(
    text: &str,
    took: Option<Duration>,
    show_text: bool,
    width: u16,
) -> Vec<Line<'static>> {
    let header = match took {
        Some(d) => format!("• thought for {}", format_duration(d)),
        None => "• thought".to_string(),
    };
    let mut out = vec![Line::from(Span::styled(
        header,
        Style::new().fg(Color::DarkGray),
    ))];
    if show_text {
        let lines = body(text, width);
        let more = lines.len() > COLLAPSED_LINES;
        out.extend(lines.into_iter().take(COLLAPSED_LINES));
        if more {
            out.push(Line::from(Span::styled("  …", thought_style())));
        }
    }
    out
}
