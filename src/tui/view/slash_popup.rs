//! The completion popup shown while typing a slash command.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::notice::truncate;
use crate::protocol::PromptCommand;
use crate::tui::commands::{SlashCommand, SlashEntry};

/// Commands whose name or alias starts with the typed word (`/mo` →
/// `model`, `/cl` → `new`), when the composer holds a single-line slash
/// word and nothing after it: the built-ins, then the prompt files `files`
/// (project ones first, as the host lists them).
pub fn matches(composer_text: &str, files: &[PromptCommand]) -> Vec<SlashEntry> {
    let Some(word) = composer_text.strip_prefix('/') else {
        return Vec::new();
    };
    if word.contains(char::is_whitespace) {
        return Vec::new();
    }
    let builtins = SlashCommand::ALL
        .into_iter()
        .filter(|c| c.starts_with(word))
        .map(SlashEntry::Builtin);
    let files = files
        .iter()
        .filter(|f| f.name.starts_with(word))
        .map(|f| SlashEntry::File(f.clone()));
    builtins.chain(files).collect()
}

/// The popup lines: one per matching command, the selected one highlighted.
pub fn lines(matching: &[SlashEntry], selected: usize, width: u16) -> Vec<Line<'static>> {
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
            let help = truncate(&c.help(), (width as usize).saturating_sub(20));
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
        let names: Vec<String> = matches("/s", &[])
            .iter()
            .map(|c| c.name().to_string())
            .collect();
        assert_eq!(names, ["sessions", "status", "skills"]);
        assert_eq!(matches("/", &[]).len(), SlashCommand::ALL.len());
        assert_eq!(
            matches("/cl", &[]),
            [SlashEntry::Builtin(SlashCommand::New)]
        );
        assert!(matches("/model gpt", &[]).is_empty());
        assert!(matches("hello", &[]).is_empty());
    }

    #[test]
    fn prompt_files_follow_the_built_ins_with_their_descriptions() {
        let file = |name: &str, description: &str| PromptCommand {
            name: name.into(),
            description: description.into(),
            argument_hint: "[issue]".into(),
            origin: crate::protocol::CommandOrigin::Project,
            path: format!(".claude/commands/{name}.md"),
            runs_shell: false,
            problem: None,
        };
        let files = [file("fix", "Fix an issue"), file("status-all", "")];
        let names: Vec<String> = matches("/s", &files)
            .iter()
            .map(|c| c.name().to_string())
            .collect();
        assert_eq!(names, ["sessions", "status", "skills", "status-all"]);
        let lines = lines(&matches("/fi", &files), 0, 60);
        let text: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text.trim_end(), "/fix [issue]      (project) Fix an issue");
    }
}
