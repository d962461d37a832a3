//! The binary's hosts and subcommands. `main.rs` only dispatches.

pub mod approval;
pub mod args;
pub mod build;
pub mod exec;
pub mod history_file;
pub mod interactive;
pub mod mcp_cmd;
pub mod output;
pub mod sessions;
pub mod tool_cmd;
pub mod undo;

/// Process exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: done.
    Success,
    /// 1: the model, the runtime or a tool failed.
    Failure,
    /// 2: bad command line or configuration.
    Usage,
    /// 130: interrupted by the user.
    Interrupted,
    /// 128 + N: ended by signal N (SIGTERM, SIGHUP).
    Signal(i32),
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(match exit {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::Interrupted => 130,
            Exit::Signal(number) => u8::try_from(128 + number).unwrap_or(1),
        })
    }
}

/// `text` cut to `max` characters, with `…` when something was cut.
pub fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
