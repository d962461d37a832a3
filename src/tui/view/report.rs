//! The pieces every report view (`/status`, `/tools`, `/skills`,
//! `/sessions`) is made of: a heading and labelled rows, wrapped.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::tui::wrap::wrap_line;

/// Width of the label column.
const LABEL: usize = 10;

/// A report's first line: `• name` in bold.
pub fn heading(text: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled("• ", Style::new().fg(Color::Cyan)),
        Span::styled(text.to_string(), Style::new().add_modifier(Modifier::BOLD)),
    ])
}

/// `  label     value`, wrapped under the value.
pub fn row(label: &str, value: &str, width: u16) -> Vec<Line<'static>> {
    let line = Line::from(vec![
        Span::styled(
            format!("  {label:<LABEL$} "),
            Style::new().fg(Color::DarkGray),
        ),
        Span::raw(value.to_string()),
    ]);
    wrap_line(&line, width as usize, &[Span::raw(" ".repeat(LABEL + 3))])
}

/// A dim line of explanation, wrapped and indented.
pub fn hint(text: &str, width: u16) -> Vec<Line<'static>> {
    let line = Line::from(Span::styled(
        format!("  {text}"),
        Style::new().fg(Color::DarkGray),
    ));
    wrap_line(&line, width as usize, &[Span::raw("    ")])
}

/// A plain line, wrapped and indented.
pub fn text(spans: Vec<Span<'static>>, width: u16) -> Vec<Line<'static>> {
    let mut all = vec![Span::raw("  ")];
    all.extend(spans);
    wrap_line(&Line::from(all), width as usize, &[Span::raw("    ")])
}
