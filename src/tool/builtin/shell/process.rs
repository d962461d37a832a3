//! Starting a command in its own session and process group, and stopping
//! that whole group: SIGTERM, then SIGKILL after [`GRACE`].

use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rustix::process::{Pid, Signal};
use tokio::process::{Child, ChildStderr, ChildStdout, Command};

use crate::sandbox::SandboxPolicy;

/// How long a stopped group gets between SIGTERM and SIGKILL, and how long
/// the pipes are drained after it ended.
pub(crate) const GRACE: Duration = Duration::from_secs(2);
/// How often a stopping group is checked for members.
const POLL: Duration = Duration::from_millis(20);

/// What to start.
pub(crate) struct Launch<'a> {
    /// The `bash -c` script.
    pub command: &'a str,
    /// Its working directory.
    pub cwd: &'a Path,
    /// The directory the sandbox lets it write beneath.
    pub workspace: &'a Path,
    /// Its whole environment.
    pub env: &'a [(OsString, OsString)],
    /// The temporary directory it may write.
    pub tmp: &'a Path,
    /// The helper binary and the policy it applies; `None` runs `bash`
    /// directly (no sandbox).
    pub sandbox: Option<(&'a Path, &'a SandboxPolicy)>,
}

/// A started command: the child, its pipes, and the guard that stops its
/// process group if it is dropped unfinished.
pub(crate) struct Spawned {
    pub child: Child,
    pub stdout: ChildStdout,
    pub stderr: ChildStderr,
    pub group: GroupGuard,
}

/// Starts `launch` with stdin from `/dev/null`, stdout and stderr piped, in
/// a new session (so it has no terminal and is its own process group) that
/// is killed if the thread that started it dies.
pub(crate) fn spawn(launch: &Launch<'_>) -> std::io::Result<Spawned> {
    let mut command = match launch.sandbox {
        Some((helper, policy)) => {
            let mut command = Command::new(helper);
            command.args(policy.helper_args(launch.workspace, launch.tmp, launch.command));
            command
        }
        None => {
            let mut command = Command::new("bash");
            command.arg("-c").arg(launch.command);
            command
        }
    };
    command
        .current_dir(launch.cwd)
        .env_clear()
        .envs(launch.env.iter().map(|(n, v)| (n, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the closure runs in the forked child before exec and makes only
    // the async-signal-safe system calls setsid(2) and prctl(2); it allocates
    // nothing and touches no lock.
    unsafe {
        command.pre_exec(|| {
            rustix::process::setsid()?;
            rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
            Ok(())
        });
    }
    let mut child = command.spawn()?;
    let group = GroupGuard {
        pgid: child.id().and_then(|id| Pid::from_raw(id as i32)),
    };
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(std::io::Error::other("the command's pipes were not set up"));
    };
    Ok(Spawned {
        child,
        stdout,
        stderr,
        group,
    })
}

/// The process group of a started command. Dropped while armed, it sends
/// the group SIGTERM at once and SIGKILL after [`GRACE`] (from a short-lived
/// thread), so a command never outlives the future that ran it.
#[derive(Debug)]
pub(crate) struct GroupGuard {
    pgid: Option<Pid>,
}

impl GroupGuard {
    /// Stops every process of the group: SIGTERM, up to [`GRACE`] for them
    /// to end, then SIGKILL; reaps `child`. Disarms the guard.
    pub(crate) async fn stop(&mut self, child: &mut Child) {
        let Some(pgid) = self.pgid.take() else { return };
        let _ = rustix::process::kill_process_group(pgid, Signal::TERM);
        let deadline = tokio::time::Instant::now() + GRACE;
        loop {
            let _ = child.try_wait();
            if rustix::process::test_kill_process_group(pgid).is_err() {
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
                break;
            }
            tokio::time::sleep(POLL).await;
        }
        let _ = tokio::time::timeout(GRACE, child.wait()).await;
    }

    /// Ends whatever the command left running in its group after it exited
    /// (`cmd &`): nothing a command started outlives it.
    pub(crate) async fn stop_leftovers(&mut self, child: &mut Child) {
        match self.pgid {
            Some(pgid) if rustix::process::test_kill_process_group(pgid).is_ok() => {
                self.stop(child).await;
            }
            _ => self.pgid = None,
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        let Some(pgid) = self.pgid.take() else { return };
        if rustix::process::kill_process_group(pgid, Signal::TERM).is_err() {
            return;
        }
        let escalate = move || {
            let deadline = std::time::Instant::now() + GRACE;
            while std::time::Instant::now() < deadline {
                if rustix::process::test_kill_process_group(pgid).is_err() {
                    return;
                }
                std::thread::sleep(POLL);
            }
            let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
        };
        if std::thread::Builder::new()
            .name("light-agent-kill".into())
            .spawn(escalate)
            .is_err()
        {
            let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
        }
    }
}
