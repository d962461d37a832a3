//! The built-in slash commands an editor offers (`available_commands_update`)
//! and how a prompt naming one becomes the host's op. Only those that make
//! sense beside an editor's own UI: no pickers, no panes, no quitting.

use agent_client_protocol_schema::v1::{AvailableCommand, AvailableCommandsUpdate, SessionUpdate};
use light_agent::protocol::Op;

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

/// The update listing the commands.
pub fn available() -> SessionUpdate {
    let commands = COMMANDS
        .iter()
        .map(|(name, about, _)| AvailableCommand::new(*name, *about))
        .collect();
    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands))
}

/// The op of a prompt that is one of the commands (`/undo`, surrounding
/// whitespace allowed); `None` for any other prompt, which goes to the model.
pub fn op_of(prompt: &str) -> Option<Op> {
    let name = prompt.trim().strip_prefix('/')?;
    COMMANDS
        .iter()
        .find(|(command, ..)| *command == name)
        .map(|(.., op)| op())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_prompt_is_its_op_and_others_go_to_the_model() {
        assert!(matches!(op_of(" /undo\n"), Some(Op::Undo)));
        assert!(matches!(op_of("/compact"), Some(Op::Compact)));
        assert!(op_of("/undo the last change please").is_none());
        assert!(op_of("undo").is_none());
        let update = serde_json::to_value(available()).unwrap();
        assert_eq!(update["sessionUpdate"], "available_commands_update");
        assert_eq!(update["availableCommands"][1]["name"], "undo");
    }
}
