//! The completion popup shown while typing a slash command.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::notice::truncate;
use crate::tui::commands::SlashCommand;

/// Commands whose name or alias starts with the typed word (`/mo` →
/// `model`, `/cl` → `new`), when the composer holds a single-line slash
/// word and nothing after it.
pub fn matches(composer_text: &str) -> Vec<SlashCommand> {
    let Some(word) = composer_text.strip_prefix('/') else {
        return Vec::new();
    };
    if word.contains(char::is_whitespace) {
        return Vec::new();
    }
    SlashCommand::ALL
        .into_iter()
        .filter(|c| c.starts_with(word))
        .collect()
}

/// The popup lines: one per matching command, the selected one highlighted.
pub fn lines(matching: &[SlashCommand], selected: usize, width: u16) -> Vec<Line<'static>> {
    matching
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let name = if c.args().is_empty() {
                format!("/{}", c.name())
            } else {
                format!("/{} {}", c.name(), c.args())
            };
            let style = if i == selected {
                Style::new()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD | Modifier::REVERSED)
            } else {
                Style::new().fg(Color::Cyan)
            };
            let help = truncate(c.help(), (width as usize).saturating_sub(20));
            Line::from(vec![
                Span::styled(format!("{name:<17}"), style),
                Span::raw(" "),
                Span::styled(help, Style::new().fg(Color::DarkGray)),
            ])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_select_commands_and_arguments_close_the_popup() {
        let names: Vec<&str> = matches("/s").iter().map(|c| c.name()).collect();
        assert_eq!(names, ["sessions", "status", "skills"]);
        assert_eq!(matches("/").len(), SlashCommand::ALL.len());
        assert_eq!(matches("/cl"), [SlashCommand::New]);
        assert!(matches("/model gpt").is_empty());
        assert!(matches("hello").is_empty());
    }
}
