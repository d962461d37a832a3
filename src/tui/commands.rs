//! Slash commands: one [`SlashCommand`] enum gives each command's name,
//! aliases, arguments, help line and handler, so the popup, `/help` and
//! dispatch can never disagree. Most commands become an [`Op`]; `/help`,
//! `/quit` and argument errors are answered locally. Prompt-file commands
//! (the host's [`PromptCommand`]s) join them in the popup as
//! [`SlashEntry::File`], after the built-ins, which they never shadow: a
//! file named like a built-in is dropped with a notice.

use super::app::App;
use crate::protocol::{CommandOrigin, ModelChoice, NoticeLevel, Op, PromptCommand, ReportKind};

/// Every slash command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlashCommand {
    /// `/help`: commands and keys.
    Help,
    /// `/new` (alias `/clear`): a fresh session.
    New,
    /// `/resume [ID]`: the picker of this directory's sessions, or that session.
    Resume,
    /// `/sessions`: sessions of every directory.
    Sessions,
    /// `/compact`: summarise now.
    Compact,
    /// `/model [NAME]`: the model picker, or that model.
    Model,
    /// `/effort [minimal|low|medium|high|off]`: the reasoning effort.
    Effort,
    /// `/status`: session, model, tokens.
    Status,
    /// `/tools`: the registered tools.
    Tools,
    /// `/skills`: the discovered skills.
    Skills,
    /// `/undo`: restore the files the latest turn changed.
    Undo,
    /// `/diff`: this session's file changes as one diff.
    Diff,
    /// `/rewind`: the list of this session's prompts to go back to before
    /// (as Esc Esc opens it).
    Rewind,
    /// `/fork`: copy this session into a new one and open it.
    Fork,
    /// `/permissions`: the permission mode and the rules in force.
    Permissions,
    /// `/title TEXT`: rename the session.
    Title,
    /// `/export [FILE]`: markdown transcript.
    Export,
    /// `/jobs [kill ID]`: background jobs, or end one.
    Jobs,
    /// `/mcp [restart NAME | accept | decline]`: the MCP servers, start one
    /// again, or decide about the project's `.mcp.json`.
    Mcp,
    /// `/init`: write or improve AGENTS.md.
    Init,
    /// `/review [BASE]`: a read-only review of the uncommitted changes.
    Review,
    /// `/commands [accept | decline]`: the prompt-file commands, or decide
    /// about the project's shell lines.
    Commands,
    /// `/hooks [accept | decline]`: the hooks in force, or decide about the
    /// project's.
    Hooks,
    /// `/agents [accept | decline]`: the agents `task` offers, or decide
    /// about the project's.
    Agents,
    /// `/quit` (alias `/exit`).
    Quit,
}

impl SlashCommand {
    /// Every command, in the order the popup and `/help` list them.
    pub const ALL: [SlashCommand; 25] = [
        Self::Help,
        Self::New,
        Self::Resume,
        Self::Sessions,
        Self::Compact,
        Self::Model,
        Self::Effort,
        Self::Status,
        Self::Tools,
        Self::Skills,
        Self::Undo,
        Self::Diff,
        Self::Rewind,
        Self::Fork,
        Self::Permissions,
        Self::Title,
        Self::Export,
        Self::Jobs,
        Self::Mcp,
        Self::Init,
        Self::Review,
        Self::Commands,
        Self::Hooks,
        Self::Agents,
        Self::Quit,
    ];

    /// The name, without the slash.
    pub fn name(self) -> &'static str {
        match self {
            Self::Help => "help",
            Self::New => "new",
            Self::Resume => "resume",
            Self::Sessions => "sessions",
            Self::Compact => "compact",
            Self::Model => "model",
            Self::Effort => "effort",
            Self::Status => "status",
            Self::Tools => "tools",
            Self::Skills => "skills",
            Self::Undo => "undo",
            Self::Diff => "diff",
            Self::Rewind => "rewind",
            Self::Fork => "fork",
            Self::Permissions => "permissions",
            Self::Title => "title",
            Self::Export => "export",
            Self::Jobs => "jobs",
            Self::Mcp => "mcp",
            Self::Init => "init",
            Self::Review => "review",
            Self::Commands => "commands",
            Self::Hooks => "hooks",
            Self::Agents => "agents",
            Self::Quit => "quit",
        }
    }

    /// Other names that run the same command.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Self::New => &["clear"],
            Self::Quit => &["exit"],
            _ => &[],
        }
    }

    /// The argument hint (empty when it takes none; `[…]` when optional).
    pub fn args(self) -> &'static str {
        match self {
            Self::Resume => "[ID]",
            Self::Model => "[NAME]",
            Self::Effort => "[minimal|low|medium|high|off]",
            Self::Title => "TEXT",
            Self::Export => "[FILE]",
            Self::Jobs => "[kill ID]",
            Self::Mcp => "[restart NAME | accept | decline]",
            Self::Review => "[BASE]",
            Self::Commands => "[accept | decline]",
            Self::Hooks | Self::Agents => "[accept | decline]",
            _ => "",
        }
    }

    /// Whether an argument must follow (Enter on the bare name asks for it).
    pub fn needs_args(self) -> bool {
        matches!(self, Self::Title)
    }

    /// What it does, in one line.
    pub fn help(self) -> &'static str {
        match self {
            Self::Help => "list commands and keys",
            Self::New => "start a new session (also /clear)",
            Self::Resume => "pick a session of this directory, or resume ID",
            Self::Sessions => "sessions of every directory, and how to continue them",
            Self::Compact => "summarise the context now",
            Self::Model => "pick a model, or switch to NAME",
            Self::Effort => "show or set how hard the model reasons",
            Self::Status => "session, model, tokens per turn",
            Self::Tools => "list tools",
            Self::Skills => "list skills",
            Self::Undo => "restore the files the latest turn changed",
            Self::Diff => "show this session's file changes",
            Self::Rewind => "go back to before a prompt: conversation, code or both (Esc Esc)",
            Self::Fork => "copy this session into a new one (the original stays)",
            Self::Permissions => "permission mode and rules in force",
            Self::Title => "rename this session",
            Self::Export => "write the transcript as markdown",
            Self::Jobs => "background jobs, or end one (kill ID)",
            Self::Mcp => "MCP servers; restart NAME; accept or decline the project's .mcp.json",
            Self::Init => "write or improve AGENTS.md for this project",
            Self::Review => "review the uncommitted changes (or against BASE), read-only",
            Self::Commands => "prompt-file commands; accept or decline the project's shell lines",
            Self::Hooks => "hooks in force; accept or decline the project's hooks",
            Self::Agents => "agents the task tool offers; accept or decline the project's",
            Self::Quit => "leave (also /exit)",
        }
    }

    /// The command called `name` (or one of its aliases).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == name || c.aliases().contains(&name))
    }

    /// Whether the command's name or an alias starts with `prefix`.
    pub fn starts_with(self, prefix: &str) -> bool {
        self.name().starts_with(prefix) || self.aliases().iter().any(|a| a.starts_with(prefix))
    }

    /// Runs the command with its argument (trimmed; empty when none).
    pub fn run(self, app: &mut App, arg: &str) {
        let op = match self {
            Self::Help => {
                app.notice(NoticeLevel::Info, &help_text());
                return;
            }
            Self::New => Op::NewSession,
            Self::Resume if arg.is_empty() => Op::PickSession,
            Self::Resume => Op::Resume {
                session: arg.to_string(),
            },
            Self::Sessions => Op::Report {
                kind: ReportKind::Sessions,
            },
            Self::Compact => Op::Compact,
            Self::Model if arg.is_empty() => Op::ListModels,
            Self::Model => Op::SetModel {
                choice: ModelChoice {
                    provider: String::new(),
                    model: arg.to_string(),
                },
            },
            Self::Effort if arg.is_empty() => {
                let now = app.status.effort.map_or("off", |e| e.as_str());
                app.notice(
                    NoticeLevel::Info,
                    &format!("reasoning effort: {now} (/effort minimal|low|medium|high|off)"),
                );
                return;
            }
            Self::Effort if arg == "off" => Op::SetEffort { effort: None },
            Self::Effort => match arg.parse() {
                Ok(effort) => Op::SetEffort {
                    effort: Some(effort),
                },
                Err(why) => {
                    app.notice(NoticeLevel::Warn, &format!("{why}, or off"));
                    return;
                }
            },
            Self::Status => Op::Report {
                kind: ReportKind::Status,
            },
            Self::Tools => Op::Report {
                kind: ReportKind::Tools,
            },
            Self::Skills => Op::Report {
                kind: ReportKind::Skills,
            },
            Self::Undo => Op::Undo,
            Self::Diff => Op::Diff,
            Self::Rewind => Op::ListPrompts,
            Self::Fork => Op::Fork { before_turn: None },
            Self::Permissions => Op::Permissions,
            Self::Title if arg.is_empty() => {
                app.notice(NoticeLevel::Warn, "usage: /title TEXT");
                return;
            }
            Self::Title => Op::SetTitle {
                title: arg.to_string(),
            },
            Self::Export => Op::Export {
                path: (!arg.is_empty()).then(|| arg.to_string()),
            },
            Self::Jobs if arg.is_empty() => Op::Jobs,
            Self::Jobs => match arg.split_once(char::is_whitespace) {
                Some(("kill", id)) if !id.trim().is_empty() => Op::KillJob {
                    job: id.trim().to_string(),
                },
                _ => {
                    app.notice(NoticeLevel::Warn, "usage: /jobs, or /jobs kill ID");
                    return;
                }
            },
            Self::Mcp if arg.is_empty() => Op::Report {
                kind: ReportKind::Mcp,
            },
            Self::Mcp => match arg.split_once(char::is_whitespace) {
                Some(("restart", name)) if !name.trim().is_empty() => Op::RestartMcp {
                    server: name.trim().to_string(),
                },
                None if arg == "accept" => Op::DecideProjectMcp { accept: true },
                None if arg == "decline" => Op::DecideProjectMcp { accept: false },
                _ => {
                    app.notice(
                        NoticeLevel::Warn,
                        "usage: /mcp, /mcp restart NAME, /mcp accept or /mcp decline",
                    );
                    return;
                }
            },
            Self::Init | Self::Review => Op::RunCommand {
                name: self.name().to_string(),
                args: arg.to_string(),
            },
            Self::Commands | Self::Hooks | Self::Agents => {
                // Each lists what it covers, or decides about the project's.
                let decision = match arg {
                    "" => None,
                    "accept" => Some(true),
                    "decline" => Some(false),
                    _ => {
                        let name = self.name();
                        app.notice(
                            NoticeLevel::Warn,
                            &format!("usage: /{name}, /{name} accept or /{name} decline"),
                        );
                        return;
                    }
                };
                match (self, decision) {
                    (Self::Commands, None) => {
                        app.commands.report_wanted = true;
                        Op::ListCommands
                    }
                    (Self::Commands, Some(accept)) => Op::DecideProjectCommands { accept },
                    (Self::Hooks, None) => Op::Hooks,
                    (Self::Hooks, Some(accept)) => Op::DecideProjectHooks { accept },
                    (_, None) => Op::Agents,
                    (_, Some(accept)) => Op::DecideProjectAgents { accept },
                }
            }
            Self::Quit => {
                app.request_quit();
                return;
            }
        };
        app.push_op(op);
    }
}

/// Runs `command` (the text after the slash): a built-in, else a listed
/// prompt file (the host reads, expands and sends it).
pub fn run(app: &mut App, command: &str) {
    let (name, arg) = match command.split_once(char::is_whitespace) {
        Some((name, arg)) => (name, arg.trim()),
        None => (command.trim(), ""),
    };
    if let Some(cmd) = SlashCommand::parse(name) {
        return cmd.run(app, arg);
    }
    if app.commands.files.iter().any(|c| c.name == name) {
        return app.push_op(Op::RunCommand {
            name: name.to_string(),
            args: arg.to_string(),
        });
    }
    app.notice(
        NoticeLevel::Warn,
        &format!("unknown command /{name} — /help and /commands list them"),
    );
}

/// The prompt-file commands the host listed, as the App keeps them.
#[derive(Debug, Default)]
pub struct PromptCommands {
    /// Listed ones, built-in names left out.
    pub files: Vec<PromptCommand>,
    /// `/commands` asked for the list: print it when it arrives.
    pub report_wanted: bool,
}

impl App {
    /// The host's listing: kept without files named like a built-in (each
    /// named in a notice), the files passed over named too, and printed when
    /// `/commands` asked for it.
    pub(crate) fn on_commands(&mut self, commands: Vec<PromptCommand>, skipped: Vec<String>) {
        let mut kept = Vec::new();
        for command in commands {
            match SlashCommand::parse(&command.name) {
                Some(builtin) => self.notice(
                    NoticeLevel::Warn,
                    &format!(
                        "{} is not used: /{} is built in",
                        command.path,
                        builtin.name()
                    ),
                ),
                None => kept.push(command),
            }
        }
        for line in skipped {
            self.notice(NoticeLevel::Warn, &line);
        }
        self.commands.files = kept;
        if std::mem::take(&mut self.commands.report_wanted) {
            let text = commands_report(&self.commands.files);
            self.notice(NoticeLevel::Info, &text);
        }
    }
}

/// `/commands`' answer: one line per prompt-file command.
fn commands_report(files: &[PromptCommand]) -> String {
    if files.is_empty() {
        return "no prompt-file commands: add markdown files to .agents/commands/ (or .claude/commands/) in the project, or commands/ in the config directory".into();
    }
    let mut out = String::from("prompt-file commands:");
    for c in files {
        let origin = match c.origin {
            CommandOrigin::Project => "project",
            CommandOrigin::User => "user",
        };
        let shell = if c.runs_shell { ", runs shell" } else { "" };
        let about = c.problem.as_deref().unwrap_or(&c.description);
        out.push_str(&format!(
            "\n  /{} {}  {}  ({origin}: {}{shell})",
            c.name, c.argument_hint, about, c.path
        ));
    }
    out
}

/// One row of the slash popup: a built-in or a prompt file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlashEntry {
    /// A built-in command.
    Builtin(SlashCommand),
    /// A prompt file's command.
    File(PromptCommand),
}

impl SlashEntry {
    /// The name, without the slash.
    pub fn name(&self) -> &str {
        match self {
            Self::Builtin(c) => c.name(),
            Self::File(f) => &f.name,
        }
    }

    /// The argument hint (empty when it takes none).
    pub fn args(&self) -> &str {
        match self {
            Self::Builtin(c) => c.args(),
            Self::File(f) => &f.argument_hint,
        }
    }

    /// Whether an argument must follow.
    pub fn needs_args(&self) -> bool {
        matches!(self, Self::Builtin(c) if c.needs_args())
    }

    /// What it does, in one line.
    pub fn help(&self) -> String {
        match self {
            Self::Builtin(c) => c.help().to_string(),
            Self::File(f) => {
                let origin = match f.origin {
                    CommandOrigin::Project => "project",
                    CommandOrigin::User => "user",
                };
                match (&f.problem, f.description.is_empty()) {
                    (Some(problem), _) => format!("({origin}) unusable: {problem}"),
                    (None, true) => format!("({origin}) {}", f.path),
                    (None, false) => format!("({origin}) {}", f.description),
                }
            }
        }
    }
}

/// The text `/help` prints: every command, then the keys.
pub fn help_text() -> String {
    let mut out = String::from("commands:\n");
    for c in SlashCommand::ALL {
        let name = format!("/{} {}", c.name(), c.args());
        out.push_str(&format!("  {:<17} {}\n", name.trim_end(), c.help()));
    }
    out.push_str(
        "keys:\n  Enter send · Ctrl+J or Alt+Enter newline · Up/Down history \
         (Up on an empty composer edits the last queued prompt)\n  \
         !CMD runs CMD yourself (no approval; command and output go to the model)\n  \
         Esc interrupt / close a popup · Ctrl+C interrupt, clear, quit on a second press · \
         Ctrl+D quit · Ctrl+T transcript\n  \
         editing: Ctrl+A/E line start/end · Ctrl+B/F, Alt+B/F, Ctrl/Alt+Left/Right move · \
         Ctrl+K/U kill to end/start · Ctrl+W, Alt+Backspace, Alt+D kill word · Ctrl+Y yank · \
         Ctrl+O open a paste chip",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse_to_one_command_each() {
        for c in SlashCommand::ALL {
            assert_eq!(SlashCommand::parse(c.name()), Some(c));
            for alias in c.aliases() {
                assert_eq!(SlashCommand::parse(alias), Some(c));
            }
        }
        assert_eq!(SlashCommand::parse("clear"), Some(SlashCommand::New));
        assert_eq!(SlashCommand::parse("nope"), None);
    }

    fn file(name: &str) -> PromptCommand {
        PromptCommand {
            name: name.into(),
            description: format!("{name} things"),
            argument_hint: String::new(),
            origin: CommandOrigin::Project,
            path: format!(".claude/commands/{name}.md"),
            runs_shell: false,
            problem: None,
        }
    }

    fn notices(app: &App) -> Vec<String> {
        app.transcript
            .iter()
            .filter_map(|item| match item {
                crate::tui::transcript::TranscriptItem::Notice(_, text) => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_file_named_like_a_built_in_is_dropped_and_a_listed_one_runs_on_the_host() {
        let mut app = App::new(
            crate::tui::TuiOptions::default(),
            80,
            24,
            std::time::Instant::now(),
            0,
        );
        run(&mut app, "commands");
        assert_eq!(app.take_ops()[0].op, Op::ListCommands);
        app.on_commands(
            vec![file("help"), file("fix")],
            vec!["x.md is not used".into()],
        );
        let names: Vec<&str> = app.commands.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["fix"]);
        let shown = notices(&app);
        assert_eq!(
            shown[0],
            ".claude/commands/help.md is not used: /help is built in"
        );
        assert_eq!(shown[1], "x.md is not used");
        assert!(
            shown[2].contains("/fix   fix things  (project: .claude/commands/fix.md)"),
            "{}",
            shown[2]
        );

        run(&mut app, "fix issue-12");
        run(&mut app, "help");
        run(&mut app, "review main");
        let ops: Vec<Op> = app.take_ops().into_iter().map(|s| s.op).collect();
        assert_eq!(
            ops,
            [
                Op::RunCommand {
                    name: "fix".into(),
                    args: "issue-12".into()
                },
                Op::RunCommand {
                    name: "review".into(),
                    args: "main".into()
                },
            ]
        );
        run(&mut app, "nope");
        assert!(app.take_ops().is_empty());
    }

    #[test]
    fn help_lists_every_command() {
        let help = help_text();
        for c in SlashCommand::ALL {
            assert!(help.contains(&format!("/{}", c.name())), "{c:?}");
        }
    }
}
