//! The status line: model · context used % · session tokens · state with
//! elapsed time · queued count · how commands run (sandboxed or not) ·
//! short session id.

use std::time::Duration;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::format_duration;
use super::session_header::short_id;
use crate::protocol::{PermissionMode, SandboxState, StatusSnapshot, TokenTotals};

/// What the agent is doing, as the status line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// No turn running.
    Idle,
    /// Waiting for the model, or reading its reasoning.
    Thinking,
    /// Receiving the visible answer.
    Streaming,
    /// Tool calls are executing.
    RunningTools(usize),
    /// A failed model call will be retried.
    Retrying {
        /// Retry number.
        attempt: u32,
    },
    /// Older steps are being summarised (`/compact`).
    Compacting,
    /// The session's history is being read.
    Loading,
}

/// Everything the status line shows.
#[derive(Debug, Clone, Copy)]
pub struct StatusView<'a> {
    /// Runtime figures.
    pub status: &'a StatusSnapshot,
    /// Tokens the session used so far.
    pub tokens: TokenTotals,
    /// Current activity.
    pub activity: Activity,
    /// Time since the turn started (None when idle).
    pub elapsed: Option<Duration>,
    /// Prompts waiting behind the running turn.
    pub queued: usize,
    /// A transient hint (e.g. "press Ctrl+C again to quit").
    pub hint: Option<&'a str>,
}

impl StatusView<'_> {
    /// The line for `width` columns: the full form when it fits, else a
    /// compact one that keeps the state visible.
    pub fn line_for(&self, width: u16) -> Line<'static> {
        let full = self.line();
        if full.width() <= width as usize {
            return full;
        }
        let compact = self.build(true);
        if compact.width() <= width as usize {
            return compact;
        }
        // Narrower: drop the model name, then the session id — the least
        // urgent parts.
        let mut spans: Vec<Span<'static>> = compact.spans.into_iter().skip(2).collect();
        if Line::from(spans.clone()).width() > width as usize && !self.status.session_id.is_empty()
        {
            spans.truncate(spans.len().saturating_sub(2));
        }
        Line::from(spans)
    }

    /// The full line.
    pub fn line(&self) -> Line<'static> {
        self.build(false)
    }

    fn build(&self, compact: bool) -> Line<'static> {
        let dim = Style::new().fg(Color::DarkGray);
        let sep = || Span::styled(" · ", dim);
        let model = if self.status.model.is_empty() {
            "no model"
        } else {
            self.status.model.as_str()
        };
        let model = match self.status.effort {
            Some(effort) => format!("{model} {effort}"),
            None => model.to_string(),
        };
        let mut spans = vec![Span::styled(model, Style::new().fg(Color::Cyan))];
        if let Some(pct) = self
            .status
            .window_tokens
            .saturating_mul(100)
            .checked_div(self.status.context_window)
        {
            let pct = pct.min(999);
            let style = match pct {
                0..70 => dim,
                70..90 => Style::new().fg(Color::Yellow),
                _ => Style::new().fg(Color::Red),
            };
            spans.push(sep());
            let label = if compact {
                format!("{pct}%")
            } else {
                format!("{pct}% context")
            };
            spans.push(Span::styled(label, style));
        }
        if self.tokens.input > 0 || self.tokens.output > 0 {
            spans.push(sep());
            let t = self.tokens;
            let label = if compact {
                format!("{}↑ {}↓", count(t.input), count(t.output))
            } else if t.cached > 0 {
                format!(
                    "{} in · {} out · {} cached",
                    count(t.input),
                    count(t.output),
                    count(t.cached)
                )
            } else {
                format!("{} in · {} out", count(t.input), count(t.output))
            };
            spans.push(Span::styled(label, dim));
        }
        let (state, style) = match self.activity {
            Activity::Idle => ("idle".to_string(), dim),
            Activity::Thinking => ("thinking".to_string(), Style::new().fg(Color::Magenta)),
            Activity::Streaming => ("streaming".to_string(), Style::new().fg(Color::Green)),
            Activity::RunningTools(n) => (
                format!("running {n} tool{}", if n == 1 { "" } else { "s" }),
                Style::new().fg(Color::Blue),
            ),
            Activity::Retrying { attempt } if compact => {
                (format!("retry #{attempt}"), Style::new().fg(Color::Yellow))
            }
            Activity::Retrying { attempt } => (
                format!("retrying (attempt {attempt})"),
                Style::new().fg(Color::Yellow),
            ),
            Activity::Compacting => ("compacting".to_string(), Style::new().fg(Color::Magenta)),
            Activity::Loading => ("loading session".to_string(), dim),
        };
        spans.push(sep());
        let state = match self.elapsed {
            Some(d) if self.activity != Activity::Idle => format!("{state} {}", format_duration(d)),
            _ => state,
        };
        spans.push(Span::styled(state, style.add_modifier(Modifier::BOLD)));
        if self.activity != Activity::Idle && !compact {
            spans.push(Span::styled(" (esc to interrupt)", dim));
        }
        // The permission mode when it is not the TUI's default: `full` in red.
        let mode_style = match self.status.permission_mode {
            Some(PermissionMode::Full) => {
                Some(Style::new().fg(Color::Red).add_modifier(Modifier::BOLD))
            }
            Some(PermissionMode::Auto) => Some(Style::new().fg(Color::Yellow)),
            Some(PermissionMode::ReadOnly) => Some(dim),
            Some(PermissionMode::Ask) | None => None,
        };
        if let (Some(style), Some(mode)) = (mode_style, self.status.permission_mode) {
            spans.push(sep());
            spans.push(Span::styled(mode.as_str(), style));
        }
        if self.queued > 0 {
            spans.push(sep());
            spans.push(Span::styled(
                format!("{} queued", self.queued),
                Style::new().fg(Color::Yellow),
            ));
        }
        if let Some(sandbox) = &self.status.sandbox {
            // Missing or partial confinement is a warning, shown even when narrow.
            let warning = matches!(
                sandbox,
                SandboxState::Unavailable { .. } | SandboxState::Partial { .. }
            );
            if !compact || warning {
                spans.push(sep());
                let style = if warning {
                    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD)
                } else {
                    dim
                };
                spans.push(Span::styled(sandbox.label(), style));
            }
        }
        if !self.status.session_id.is_empty() {
            spans.push(sep());
            spans.push(Span::styled(short_id(&self.status.session_id), dim));
        }
        if let Some(hint) = self.hint {
            spans.push(sep());
            spans.push(Span::styled(
                hint.to_string(),
                Style::new().fg(Color::Yellow),
            ));
        }
        Line::from(spans)
    }
}

/// A token count as the status line shows it: `950`, `12.3k`, `4.1M`.
pub fn count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1_000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_round_to_one_decimal_of_their_unit() {
        assert_eq!(count(950), "950");
        assert_eq!(count(12_345), "12.3k");
        assert_eq!(count(4_100_000), "4.1M");
    }

    fn view(status: &StatusSnapshot) -> StatusView<'_> {
        StatusView {
            status,
            tokens: TokenTotals::default(),
            activity: Activity::Idle,
            elapsed: None,
            queued: 0,
            hint: None,
        }
    }

    #[test]
    fn full_permissions_show_in_red_and_ask_is_not_shown() {
        let mut status = StatusSnapshot {
            model: "m".into(),
            permission_mode: Some(PermissionMode::Full),
            ..StatusSnapshot::default()
        };
        let line = view(&status).line();
        let mode = line
            .spans
            .iter()
            .find(|s| s.content == "full")
            .expect("mode shown");
        assert_eq!(mode.style.fg, Some(Color::Red));
        status.permission_mode = Some(PermissionMode::Ask);
        let line = view(&status).line();
        assert!(!line.spans.iter().any(|s| s.content == "ask"));
    }
}
