//! The `/sessions` answer: sessions of every directory, each with its
//! directory, and how to continue one (here with `/resume`, elsewhere by
//! starting light-agent there).

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::format_age;
use super::notice::truncate;
use super::report::{heading, hint, text};
use super::session_header::{short_id, turns};
use crate::protocol::SessionsReport;

/// The report's lines: one line per session, then its directory dimmed
/// ("here" for this one).
pub fn lines(r: &SessionsReport, now_ms: u64, width: u16) -> Vec<Line<'static>> {
    let mut out = vec![heading(&format!("{} sessions", r.rows.len()))];
    let dim = Style::new().fg(Color::DarkGray);
    let mut elsewhere = None;
    for row in &r.rows {
        let title = if row.title.is_empty() {
            "untitled"
        } else {
            row.title.as_str()
        };
        let here = row.cwd == r.cwd;
        let marker = if row.id == r.current_id { "› " } else { "  " };
        let meta = format!(
            " · {} · {}",
            format_age(row.updated_at, now_ms),
            turns(row.turns)
        );
        let room = (width as usize)
            .saturating_sub(meta.chars().count() + 14)
            .max(8);
        out.extend(text(
            vec![
                Span::styled(marker, Style::new().fg(Color::Cyan)),
                Span::styled(
                    short_id(&row.id),
                    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                ),
                Span::raw(format!("  {}", truncate(title, room))),
                Span::styled(meta, dim),
            ],
            width,
        ));
        let dir = if here {
            "here".to_string()
        } else {
            elsewhere.get_or_insert((short_id(&row.id), row.cwd.clone()));
            row.cwd.clone()
        };
        out.extend(text(vec![Span::styled(format!("      {dir}"), dim)], width));
    }
    if r.rows.is_empty() {
        out.extend(hint("no sessions yet", width));
        return out;
    }
    out.extend(hint("continue one here: /resume ID", width));
    if let Some((id, dir)) = elsewhere {
        out.extend(hint(
            &format!(
                "one of another directory runs there, with its tools and files: cd {dir} && light-agent resume {id}"
            ),
            width,
        ));
    }
    out
}
