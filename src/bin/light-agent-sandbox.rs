//! The sandbox helper as a binary of its own: the same arguments as
//! `light-agent __light-agent-sandbox …`, a fraction of the start-up cost
//! (it links only the sandbox), so a sandboxed command costs little more
//! than an unconfined one. The agent uses it when it sits beside the agent's
//! binary and falls back to re-executing itself otherwise.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1).peekable();
    // Accept the same first argument the agent's own binary takes.
    if args
        .peek()
        .is_some_and(|a| a == light_agent::sandbox::HELPER_ARG)
    {
        args.next();
    }
    let status = light_agent::sandbox::helper_main(args);
    ExitCode::from(u8::try_from(status).unwrap_or(1))
}
