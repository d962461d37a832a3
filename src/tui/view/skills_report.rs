//! The `/skills` answer: each discovered skill, and where skills are found.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::report::{heading, hint, text};
use crate::protocol::SkillsReport;

/// The report's lines.
pub fn lines(r: &SkillsReport, width: u16) -> Vec<Line<'static>> {
    let mut out = vec![heading(&format!("{} skills", r.skills.len()))];
    for skill in &r.skills {
        out.extend(text(
            vec![
                Span::styled(
                    skill.name.clone(),
                    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                ),
                Span::styled(
                    format!(" — {}", skill.description),
                    Style::new().fg(Color::DarkGray),
                ),
            ],
            width,
        ));
    }
    let dirs = r.search_dirs.join(", ");
    let where_ = if r.skills.is_empty() {
        format!("no skills yet: put them in {dirs} as NAME/SKILL.md")
    } else {
        format!("found in {dirs} (NAME/SKILL.md)")
    };
    out.extend(hint(&where_, width));
    out
}
