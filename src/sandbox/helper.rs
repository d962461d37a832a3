//! The helper process: confine yourself, report, exec `bash -c`.
//!
//! Runs before any runtime or thread exists (Landlock confines the calling
//! thread, so there must be only one), and never returns on success.

use std::ffi::OsString;
use std::io::Write as _;
use std::os::unix::process::CommandExt as _;

use super::landlock_rules;
use super::policy::HelperRequest;
use super::state::{STATUS_PREFIX, SandboxState};

/// Exit status when the helper cannot start the command at all.
const CANNOT_RUN: i32 = 126;

/// The helper's entry point. `args` are the process arguments after
/// [`HELPER_ARG`](super::HELPER_ARG). Confines the process, prints the
/// enforcement report as the first line of stderr and replaces itself with
/// `bash -c COMMAND`; returns only the exit status of a failure to do so.
pub fn helper_main(args: impl Iterator<Item = OsString>) -> i32 {
    let request = match HelperRequest::parse(args) {
        Ok(request) => request,
        Err(message) => {
            eprintln!("{STATUS_PREFIX} error {message}");
            return CANNOT_RUN;
        }
    };
    // No controlling terminal: a command that opens /dev/tty fails at once
    // instead of waiting for input nobody will give. The parent usually made
    // us a session leader already, in which case setsid fails harmlessly.
    // (Not guarded by getsid: inside a PID namespace whose session leader is
    // outside it getsid reports 0, which rustix cannot hold as a Pid.)
    let _ = rustix::process::setsid();
    let state = if request.simulate_unavailable {
        no_new_privs();
        SandboxState::Unavailable {
            reason: "Landlock disabled by the test switch".into(),
        }
    } else {
        // Landlock's restrict_self sets no-new-privileges itself.
        landlock_rules::apply(&request)
    };
    // The report goes out before exec so it is the first line on stderr.
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", state.report());
    let _ = stderr.flush();
    drop(stderr);
    let error = std::process::Command::new("bash")
        .arg("-c")
        .arg(&request.command)
        .exec();
    eprintln!("cannot run bash: {error}");
    CANNOT_RUN
}

fn no_new_privs() {
    let _ = rustix::thread::set_no_new_privs(true);
}
