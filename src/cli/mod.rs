//! The binary's front ends and subcommands. `main.rs` only dispatches.

pub use light_agent::host::build;
pub use light_agent::host::build::truncate;

pub mod acp;
pub mod args;
pub mod exec;
pub mod fork;
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
