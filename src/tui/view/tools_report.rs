//! The `/tools` answer: each registered tool and what it does.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::notice::truncate;
use super::report::{heading, hint, text};
use crate::protocol::ToolRow;

/// The report's lines: one per tool, its description's first line cut to fit.
pub fn lines(tools: &[ToolRow], width: u16) -> Vec<Line<'static>> {
    let mut out = vec![heading(&format!("{} tools", tools.len()))];
    if tools.is_empty() {
        out.extend(hint(
            "no tools are registered (no model is configured)",
            width,
        ));
        return out;
    }
    let name_width = tools
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0);
    for tool in tools {
        let first = tool.description.lines().next().unwrap_or("");
        let room = (width as usize).saturating_sub(name_width + 5).max(10);
        out.extend(text(
            vec![
                Span::styled(
                    format!("{:<name_width$}  ", tool.name),
                    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                ),
                Span::styled(truncate(first, room), Style::new().fg(Color::DarkGray)),
            ],
            width,
        ));
    }
    out
}
