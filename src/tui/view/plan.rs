//! The agent's plan, pinned above the composer: every step when open, one
//! line (progress and the step in progress) when folded. Ctrl+P toggles.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::protocol::{Plan, StepStatus};
use crate::tui::width::fit_prefix;

/// The pinned plan's rows for a `width`-column screen (none without steps).
pub fn lines(plan: &Plan, open: bool, width: u16) -> Vec<Line<'static>> {
    if plan.plan.is_empty() {
        return Vec::new();
    }
    let width = usize::from(width);
    let done = plan
        .plan
        .iter()
        .filter(|s| s.status == StepStatus::Completed)
        .count();
    let dim = Style::new().fg(Color::DarkGray);
    let title = format!("plan {done}/{}", plan.plan.len());
    if !open {
        let current = plan
            .plan
            .iter()
            .find(|s| s.status == StepStatus::InProgress)
            .map(|s| format!(" · {}", s.step.trim()))
            .unwrap_or_default();
        let line = format!("{title}{current} (ctrl+p shows)");
        return vec![Line::styled(fit_prefix(&line, width).0.to_string(), dim)];
    }
    let head = format!("{title} (ctrl+p folds)");
    let mut out = vec![Line::styled(fit_prefix(&head, width).0.to_string(), dim)];
    for step in &plan.plan {
        let (mark, style) = match step.status {
            StepStatus::Completed => ("[x] ", dim.add_modifier(Modifier::CROSSED_OUT)),
            StepStatus::InProgress => ("[>] ", Style::new().fg(Color::Cyan)),
            StepStatus::Pending => ("[ ] ", Style::new()),
        };
        let (text, _) = fit_prefix(step.step.trim(), width.saturating_sub(mark.len()));
        out.push(Line::from(vec![
            Span::styled(mark, style),
            Span::styled(text.to_string(), style),
        ]));
    }
    out
}
