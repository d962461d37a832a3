//! The `/mcp` answer: each configured MCP server, its state, tool count,
//! last start and error.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::report::{heading, hint, text};
use crate::protocol::{McpServerRow, McpServerState};

/// The report's lines: one per server (its error wrapped under it), then
/// how to retry one.
pub fn lines(rows: &[McpServerRow], now_ms: u64, width: u16) -> Vec<Line<'static>> {
    let mut out = vec![heading(&format!("{} MCP servers", rows.len()))];
    if rows.is_empty() {
        out.extend(hint(
            "none configured: add [mcp_servers.NAME] with `command` to config.toml",
            width,
        ));
        return out;
    }
    let name_width = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0);
    for row in rows {
        let color = match row.state {
            McpServerState::Ready => Color::Green,
            McpServerState::Starting => Color::Yellow,
            McpServerState::Failed => Color::Red,
            McpServerState::Disabled => Color::DarkGray,
        };
        let tools = row.tools_text().unwrap_or_default();
        let started = super::started_text(row.started_at, now_ms).unwrap_or_default();
        out.extend(text(
            vec![
                Span::styled(
                    format!("{:<name_width$}  ", row.name),
                    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                ),
                Span::styled(
                    format!("{:<8}  ", row.state.as_str()),
                    Style::new().fg(color),
                ),
                Span::raw(format!("{tools:<9}  ")),
                Span::styled(started, Style::new().fg(Color::DarkGray)),
            ],
            width,
        ));
        if let Some(error) = &row.error {
            out.extend(hint(&format!("  {error}"), width));
        }
    }
    if rows.iter().any(|r| r.state == McpServerState::Failed) {
        out.extend(hint("/mcp restart NAME tries a server again", width));
    }
    out
}
