//! The `/status` answer: session, model, context and tokens per turn.

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use super::report::{heading, hint, row, text};
use super::session_header::short_id;
use super::status_line::count;
use crate::protocol::{StatusReport, TokenTotals};

/// Turns listed one by one; older ones are summed into one line.
const TURN_ROWS: usize = 10;

/// The report's lines.
pub fn lines(r: &StatusReport, width: u16) -> Vec<Line<'static>> {
    let mut out = vec![heading("status")];
    let title = if r.title.is_empty() {
        "untitled"
    } else {
        r.title.as_str()
    };
    out.extend(row(
        "session",
        &format!("{} · {title} ({})", short_id(&r.session_id), r.session_id),
        width,
    ));
    out.extend(row("directory", &r.cwd, width));
    out.extend(row(
        "model",
        &format!("{} · {} · {}", r.model, r.provider, r.base_url),
        width,
    ));
    let context = match (r.window_tokens * 100).checked_div(r.context_window) {
        Some(pct) => format!(
            "{} of {} tokens ({pct}%)",
            count(r.window_tokens),
            count(r.context_window)
        ),
        None => format!("{} tokens", count(r.window_tokens)),
    };
    out.extend(row("context", &context, width));
    let mut total = TokenTotals::default();
    for t in &r.turns {
        total.add(t.tokens.input, t.tokens.output, t.tokens.cached);
    }
    out.extend(row("tokens", &totals(total), width));
    if !r.turns.is_empty() {
        let dim = Style::new().fg(Color::DarkGray);
        let skipped = r.turns.len().saturating_sub(TURN_ROWS);
        if skipped > 0 {
            let mut earlier = TokenTotals::default();
            for t in &r.turns[..skipped] {
                earlier.add(t.tokens.input, t.tokens.output, t.tokens.cached);
            }
            out.extend(text(
                vec![Span::styled(
                    format!("turns 1–{}: {}", r.turns[skipped - 1].turn, totals(earlier)),
                    dim,
                )],
                width,
            ));
        }
        for t in &r.turns[skipped..] {
            let calls = if t.calls == 1 {
                "1 call".to_string()
            } else {
                format!("{} calls", t.calls)
            };
            out.extend(text(
                vec![
                    Span::styled(format!("turn {:<4}", t.turn), dim),
                    Span::raw(format!("{} · {calls}", totals(t.tokens))),
                ],
                width,
            ));
        }
    }
    out.extend(row("database", &r.database, width));
    if r.turns.is_empty() {
        out.extend(hint("no model calls in this session yet", width));
    }
    out
}

fn totals(t: TokenTotals) -> String {
    let mut s = format!("{} in · {} out", count(t.input), count(t.output));
    if t.cached > 0 {
        s.push_str(&format!(" · {} cached", count(t.cached)));
    }
    s
}
