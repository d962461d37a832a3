//! The slash commands an editor offers (`available_commands_update`) and
//! how a prompt naming one becomes the host's op. Only those that make
//! sense beside an editor's own UI: no pickers, no panes, no quitting —
//! plus `/init`, `/review` and the project's and user's prompt files (the
//! host's [`PromptCommand`]s), which run as [`Op::RunCommand`]. A prompt
//! file named like one of ours is left out.

use agent_client_protocol_schema::v1::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, SessionUpdate,
    UnstructuredCommandInput,
};
use light_agent::protocol::{Op, PromptCommand};

/// A command: name, description, and the op it sends.
type Command = (&'static str, &'static str, fn() -> Op);

const COMMANDS: [Command; 3] = [
    (
        "compact",
        "Summarise the older steps now, to free the context window",
        || Op::Compact,
    ),
    (
        "undo",
        "Restore the files the latest turn that changed any changed",
        || Op::Undo,
    ),
    (
        "diff",
        "Show every file change of this session as one diff",
        || Op::Diff,
    ),
];

/// Commands the host runs (`Op::RunCommand`), with their description and
/// argument hint.
const RUN: [(&str, &str, &str); 2] = [
    ("init", "Write or improve AGENTS.md for this project", ""),
    (
        "review",
        "Review the uncommitted changes (or against a base revision), read-only",
        "[BASE]",
    ),
];

/// Whether `name` is one of ours (a prompt file by that name is not used).
fn builtin(name: &str) -> bool {
    COMMANDS.iter().any(|(n, ..)| *n == name) || RUN.iter().any(|(n, ..)| *n == name)
}

/// The update listing the commands: ours, then the prompt files `files`.
pub fn available(files: &[PromptCommand]) -> SessionUpdate {
    let hinted = |name: &str, about: &str, hint: &str| {
        let command = AvailableCommand::new(name, about);
        match hint.is_empty() {
            true => command,
            false => command.input(AvailableCommandInput::Unstructured(
                UnstructuredCommandInput::new(hint),
            )),
        }
    };
    let ours = COMMANDS
        .iter()
        .map(|(name, about, _)| AvailableCommand::new(*name, *about))
        .chain(
            RUN.iter()
                .map(|(name, about, hint)| hinted(name, about, hint)),
        );
    let files = files.iter().filter(|f| !builtin(&f.name)).map(|f| {
        let about = match (&f.problem, f.description.is_empty()) {
            (Some(problem), _) => format!("unusable: {problem}"),
            (None, true) => f.path.clone(),
            (None, false) => f.description.clone(),
        };
        hinted(&f.name, &about, &f.argument_hint)
    });
    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(
        ours.chain(files).collect(),
    ))
}

/// The op of a prompt that is one of the commands (`/undo`, `/fix issue-12`,
/// surrounding whitespace allowed); `None` for any other prompt, which goes
/// to the model.
pub fn op_of(prompt: &str, files: &[PromptCommand]) -> Option<Op> {
    let line = prompt.trim().strip_prefix('/')?;
    let (name, args) = match line.split_once(char::is_whitespace) {
        Some((name, args)) => (name, args.trim()),
        None => (line, ""),
    };
    if let Some((.., op)) = COMMANDS.iter().find(|(command, ..)| *command == name) {
        return args.is_empty().then(op);
    }
    let runs = RUN.iter().any(|(n, ..)| *n == name) || files.iter().any(|f| f.name == name);
    runs.then(|| Op::RunCommand {
        name: name.to_string(),
        args: args.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> PromptCommand {
        PromptCommand {
            name: name.into(),
            description: format!("{name} it"),
            argument_hint: "[issue]".into(),
            origin: light_agent::protocol::CommandOrigin::Project,
            path: format!(".claude/commands/{name}.md"),
            runs_shell: false,
            problem: None,
        }
    }

    #[test]
    fn a_command_prompt_is_its_op_and_others_go_to_the_model() {
        let files = [file("fix"), file("undo")];
        assert!(matches!(op_of(" /undo\n", &files), Some(Op::Undo)));
        assert!(matches!(op_of("/compact", &files), Some(Op::Compact)));
        assert!(op_of("/undo the last change please", &files).is_none());
        assert!(op_of("undo", &files).is_none());
        assert_eq!(
            op_of("/fix issue-12\n", &files),
            Some(Op::RunCommand {
                name: "fix".into(),
                args: "issue-12".into()
            })
        );
        assert_eq!(
            op_of("/review main", &[]),
            Some(Op::RunCommand {
                name: "review".into(),
                args: "main".into()
            })
        );
        assert!(op_of("/nope", &files).is_none());
        let update = serde_json::to_value(available(&files)).unwrap();
        assert_eq!(update["sessionUpdate"], "available_commands_update");
        let names: Vec<&str> = update["availableCommands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["compact", "undo", "diff", "init", "review", "fix"]);
        assert_eq!(update["availableCommands"][5]["input"]["hint"], "[issue]");
    }
}
