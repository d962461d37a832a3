//! Slash commands and the completion popup shown while typing one.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::notice::truncate;

/// A slash command as the popup lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlashCommand {
    /// Name without the slash.
    pub name: &'static str,
    /// Argument hint (empty when it takes none).
    pub args: &'static str,
    /// What it does.
    pub help: &'static str,
}

/// Every slash command, in the order the popup lists them.
pub const COMMANDS: &[SlashCommand] = &[
    SlashCommand {
        name: "help",
        args: "",
        help: "list commands and keys",
    },
    SlashCommand {
        name: "new",
        args: "",
        help: "start a new session",
    },
    SlashCommand {
        name: "resume",
        args: "",
        help: "pick a session of this directory",
    },
    SlashCommand {
        name: "sessions",
        args: "",
        help: "pick a session of any directory",
    },
    SlashCommand {
        name: "compact",
        args: "",
        help: "summarise the context now",
    },
    SlashCommand {
        name: "model",
        args: "NAME",
        help: "switch model",
    },
    SlashCommand {
        name: "status",
        args: "",
        help: "session, model, tokens, database",
    },
    SlashCommand {
        name: "tools",
        args: "",
        help: "list tools",
    },
    SlashCommand {
        name: "skills",
        args: "",
        help: "list skills",
    },
    SlashCommand {
        name: "undo",
        args: "",
        help: "restore the files the latest turn changed",
    },
    SlashCommand {
        name: "diff",
        args: "",
        help: "show this session's file changes",
    },
    SlashCommand {
        name: "permissions",
        args: "",
        help: "permission mode and rules in force",
    },
    SlashCommand {
        name: "title",
        args: "TEXT",
        help: "rename this session",
    },
    SlashCommand {
        name: "export",
        args: "[FILE]",
        help: "write the transcript as markdown",
    },
    SlashCommand {
        name: "quit",
        args: "",
        help: "leave",
    },
];

/// Commands whose name starts with the typed word (`/mo` → `model`), when
/// the composer holds a single-line slash word and nothing after it.
pub fn matches(composer_text: &str) -> Vec<&'static SlashCommand> {
    let Some(word) = composer_text.strip_prefix('/') else {
        return Vec::new();
    };
    if word.contains(char::is_whitespace) {
        return Vec::new();
    }
    COMMANDS
        .iter()
        .filter(|c| c.name.starts_with(word))
        .collect()
}

/// The popup lines: one per matching command, the selected one highlighted.
pub fn lines(matching: &[&SlashCommand], selected: usize, width: u16) -> Vec<Line<'static>> {
    matching
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let name = if c.args.is_empty() {
                format!("/{}", c.name)
            } else {
                format!("/{} {}", c.name, c.args)
            };
            let style = if i == selected {
                Style::new()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD | Modifier::REVERSED)
            } else {
                Style::new().fg(Color::Cyan)
            };
            let help = truncate(c.help, (width as usize).saturating_sub(20));
            Line::from(vec![
                Span::styled(format!("{name:<17}"), style),
                Span::raw(" "),
                Span::styled(help, Style::new().fg(Color::DarkGray)),
            ])
        })
        .collect()
}

/// The text `/help` prints.
pub fn help_text() -> String {
    let mut out = String::from("commands:\n");
    for c in COMMANDS {
        let name = format!("/{} {}", c.name, c.args);
        out.push_str(&format!("  {:<17} {}\n", name.trim_end(), c.help));
    }
    out.push_str(
        "keys: Enter send · Alt+Enter/Ctrl+J newline · Up/Down history · Esc interrupt · \
         Ctrl+C interrupt/clear/quit · Ctrl+D quit · Ctrl+T transcript",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_select_commands_and_arguments_close_the_popup() {
        let names: Vec<&str> = matches("/s").iter().map(|c| c.name).collect();
        assert_eq!(names, ["sessions", "status", "skills"]);
        assert_eq!(matches("/").len(), COMMANDS.len());
        assert!(matches("/model gpt").is_empty());
        assert!(matches("hello").is_empty());
    }
}
