//! Running a command confined: the sandbox policy, the helper that applies
//! it, and the enforcement status it reports.
//!
//! - [`SandboxPolicy`] says what a command may do: write only beneath the
//!   working directory, the temporary directory, `/dev/null` and the
//!   configured writable roots (or nowhere in [`SandboxMode::ReadOnly`]),
//!   read everywhere except the deny list ([`DeniedReads`]: the user's
//!   secrets and light-agent's own data), and no TCP unless `network` is on.
//! - The **helper** is the small `light-agent-sandbox` binary (it links
//!   only this module, so it starts fast) or, when that is not beside the
//!   agent, the agent's own binary re-executed with [`HELPER_ARG`] as its
//!   first argument (`main.rs` hands over to [`helper_main`] before any
//!   runtime or thread starts). The helper starts a new session (no
//!   controlling terminal), sets no-new-privileges, applies a Landlock
//!   ruleset (`landlock_rules.rs`), reports what was enforced on its stderr,
//!   then execs `bash -c COMMAND`.
//! - [`SandboxState`] is that report (and what [`probe`] finds before any
//!   command runs, for the status line): enforced, partly enforced,
//!   unavailable, or off. An unavailable or partial sandbox is reported,
//!   never a panic and never a silent unconfined run: the permission layer
//!   asks before such a run.
//!
//! Architecture invariant: knows nothing of the agent, the tools or the TUI;
//! landlock and rustix's process calls are used here and in the shell tool's
//! process handling only.

use std::ffi::OsString;
use std::path::Path;

mod deny;
mod helper;
mod landlock_rules;
mod policy;
mod state;

pub use deny::{DeniedReads, HOME_SECRETS};
pub use helper::helper_main;
pub use policy::{SandboxMode, SandboxPolicy};
pub use state::{STATUS_PREFIX, SandboxState};

/// The first argument that makes the binary run as the sandbox helper.
pub const HELPER_ARG: &str = "__light-agent-sandbox";

/// Finds out what the sandbox would enforce for `policy`, by running the
/// helper once with `true` exactly as a command is run: environment `env`
/// (and nothing else), working directory `tmp`, no terminal (the only
/// truthful answer is the helper's own, given as a command would get it).
///
/// `helper` is the agent's binary. Never fails: a helper that cannot be run
/// is reported as [`SandboxState::Unavailable`].
pub fn probe(
    helper: &Path,
    policy: &SandboxPolicy,
    env: &[(OsString, OsString)],
    tmp: &Path,
) -> SandboxState {
    if policy.mode == SandboxMode::Off {
        return SandboxState::Off;
    }
    // A missing temporary directory must not make the probe lie: the
    // command's own directory does not change what Landlock enforces.
    let cwd = if tmp.is_dir() { tmp } else { Path::new("/") };
    let mut command = std::process::Command::new(helper);
    command
        .args(policy.helper_args(cwd, tmp, "true"))
        .env_clear()
        .envs(env.iter().map(|(n, v)| (n, v)))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .current_dir(cwd);
    match command.output() {
        Ok(output) => match SandboxState::find_report(&output.stderr) {
            Some((state, _)) => state,
            None => SandboxState::Unavailable {
                reason: format!(
                    "the sandbox helper gave no report ({}): {}",
                    output.status,
                    String::from_utf8_lossy(&output.stderr).trim()
                ),
            },
        },
        Err(e) => SandboxState::Unavailable {
            reason: format!("cannot run the sandbox helper {}: {e}", helper.display()),
        },
    }
}
