//! Running one hook: `sh -c COMMAND` in its own process group, the event on
//! stdin, stdout and stderr captured (bounded), killed with its group on
//! timeout or interrupt and after it exits (nothing it starts outlives it).

use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;

use rustix::process::{Pid, Signal};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use super::Hook;

/// Most bytes kept of a hook's stdout and of its stderr.
const KEPT: usize = 16 * 1024;

/// How one hook run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookRun {
    /// It exited with this code (`None`: killed by a signal).
    Exited {
        /// The exit code.
        code: Option<i32>,
        /// Its stdout, at most 16 KiB.
        stdout: String,
        /// Its stderr, at most 16 KiB.
        stderr: String,
    },
    /// It ran past its timeout and was killed with its process group.
    TimedOut,
    /// The turn was interrupted; it was killed with its process group.
    Interrupted,
    /// It could not be started.
    Failed(String),
}

/// What a run means for the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Go on.
    Go,
    /// Go on, but say this in the log.
    Warn(String),
    /// Do not run the call; the reason goes to the model.
    Block(String),
}

impl HookRun {
    /// Exit 2 blocks with stderr; exit 0 goes on unless stdout is JSON
    /// saying `"decision": "block"` or `"permissionDecision": "deny"`; any
    /// other end is a warning.
    pub fn verdict(&self) -> Verdict {
        match self {
            HookRun::Exited {
                code: Some(2),
                stderr,
                ..
            } => Verdict::Block(match stderr.trim() {
                "" => "blocked by a hook (exit 2, no message)".to_string(),
                text => text.to_string(),
            }),
            HookRun::Exited {
                code: Some(0),
                stdout,
                ..
            } => json_decision(stdout).unwrap_or(Verdict::Go),
            HookRun::Exited { code, stderr, .. } => Verdict::Warn(format!(
                "exit {}: {}",
                code.map_or("by signal".to_string(), |c| c.to_string()),
                stderr.trim()
            )),
            HookRun::TimedOut => Verdict::Warn("timed out; killed".into()),
            HookRun::Interrupted => Verdict::Warn("interrupted; killed".into()),
            HookRun::Failed(why) => Verdict::Warn(format!("could not start: {why}")),
        }
    }
}

/// A block decision in a hook's JSON stdout, Claude Code's two forms.
fn json_decision(stdout: &str) -> Option<Verdict> {
    let value: serde_json::Value = serde_json::from_str(stdout.trim()).ok()?;
    let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
    if value["decision"] == "block" {
        let reason = text(&value["reason"]).unwrap_or_else(|| "blocked by a hook".into());
        return Some(Verdict::Block(reason));
    }
    let specific = &value["hookSpecificOutput"];
    if specific["permissionDecision"] == "deny" {
        let reason = text(&specific["permissionDecisionReason"])
            .unwrap_or_else(|| "denied by a hook".into());
        return Some(Verdict::Block(reason));
    }
    None
}

/// Runs `hook` with `event` on stdin in `cwd` with exactly `env`.
pub async fn run_hook(
    hook: &Hook,
    event: &serde_json::Value,
    cwd: &Path,
    env: &[(OsString, OsString)],
    cancel: &CancellationToken,
) -> HookRun {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(&hook.command)
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(n, v)| (n, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return HookRun::Failed(e.to_string()),
    };
    let group = child.id().and_then(|id| Pid::from_raw(id as i32));
    let kill_group = || {
        if let Some(pgid) = group {
            let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
        }
    };
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        kill_group();
        return HookRun::Failed("the hook's pipes were not set up".into());
    };
    let input = event.to_string();
    let feed = async move {
        // A hook that does not read its stdin is not an error.
        let _ = stdin.write_all(input.as_bytes()).await;
        drop(stdin);
    };
    let work = async {
        let (_, out, err, status) = tokio::join!(feed, kept(stdout), kept(stderr), child.wait());
        (out, err, status)
    };
    let ended = tokio::select! {
        ended = work => Some(ended),
        () = tokio::time::sleep(hook.timeout) => None,
        () = cancel.cancelled() => {
            kill_group();
            let _ = child.wait().await;
            return HookRun::Interrupted;
        }
    };
    // Whatever it left running in its group (`cmd &`) ends with it.
    kill_group();
    match ended {
        None => {
            let _ = child.wait().await;
            HookRun::TimedOut
        }
        Some((stdout, stderr, status)) => match status {
            Ok(status) => HookRun::Exited {
                code: status.code(),
                stdout,
                stderr,
            },
            Err(e) => HookRun::Failed(e.to_string()),
        },
    }
}

/// Reads `pipe` to its end, keeping the first [`KEPT`] bytes.
async fn kept(mut pipe: impl AsyncRead + Unpin) -> String {
    let mut kept = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = KEPT.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn exited(code: i32, stdout: &str, stderr: &str) -> HookRun {
        HookRun::Exited {
            code: Some(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    #[test]
    fn exit_codes_and_json_decisions_give_the_verdict() {
        assert_eq!(
            exited(2, "", " no force pushes\n").verdict(),
            Verdict::Block("no force pushes".into())
        );
        assert_eq!(exited(0, "fine", "").verdict(), Verdict::Go);
        assert_eq!(
            exited(0, r#"{"decision": "block", "reason": "tests first"}"#, "").verdict(),
            Verdict::Block("tests first".into())
        );
        assert_eq!(
            exited(
                0,
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not here"}}"#,
                ""
            )
            .verdict(),
            Verdict::Block("not here".into())
        );
        assert_eq!(
            exited(
                0,
                r#"{"hookSpecificOutput": {"permissionDecision": "allow"}}"#,
                ""
            )
            .verdict(),
            Verdict::Go
        );
        assert!(matches!(exited(1, "", "oops").verdict(), Verdict::Warn(w) if w.contains("oops")));
        assert!(matches!(HookRun::TimedOut.verdict(), Verdict::Warn(_)));
    }

    fn hook(command: &str, timeout: Duration) -> Hook {
        Hook {
            matcher: "*".into(),
            command: command.into(),
            timeout,
        }
    }

    fn path_env() -> Vec<(OsString, OsString)> {
        std::env::vars_os().filter(|(n, _)| n == "PATH").collect()
    }

    #[tokio::test]
    async fn the_event_is_on_stdin_and_the_outputs_are_captured() {
        let dir = tempfile::tempdir().unwrap();
        let run = run_hook(
            &hook("cat; echo warn >&2; exit 3", Duration::from_secs(30)),
            &serde_json::json!({"tool_name": "shell"}),
            dir.path(),
            &path_env(),
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(
            run,
            HookRun::Exited {
                code: Some(3),
                stdout: r#"{"tool_name":"shell"}"#.into(),
                stderr: "warn\n".into()
            }
        );
    }

    #[tokio::test]
    async fn a_hook_past_its_timeout_is_killed_with_its_group() {
        let dir = tempfile::tempdir().unwrap();
        let run = run_hook(
            &hook("sleep 600 & echo $! > pid; wait", Duration::from_secs(3)),
            &serde_json::json!({}),
            dir.path(),
            &path_env(),
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(run, HookRun::TimedOut);
        assert_gone(&dir.path().join("pid")).await;
    }

    #[tokio::test]
    async fn an_interrupt_kills_a_running_hook_with_its_group() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = CancellationToken::new();
        let pid_file = dir.path().join("pid");
        let fire = cancel.clone();
        let watched = pid_file.clone();
        tokio::spawn(async move {
            while !watched.exists() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            fire.cancel();
        });
        let run = run_hook(
            &hook("sleep 600 & echo $! > pid; wait", Duration::from_secs(600)),
            &serde_json::json!({}),
            dir.path(),
            &path_env(),
            &cancel,
        )
        .await;
        assert_eq!(run, HookRun::Interrupted);
        assert_gone(&pid_file).await;
    }

    /// Waits (bounded) until the process whose pid `file` holds is gone or
    /// a zombie (killed, not yet reaped by init).
    async fn assert_gone(file: &Path) {
        let pid = std::fs::read_to_string(file).unwrap().trim().to_string();
        let gone = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map_or(true, |stat| stat.contains(") Z "))
        };
        for _ in 0..1000 {
            if gone() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the hook's background sleep {pid} still runs");
    }
}
