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

/// What a run means for the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Go on.
    Go,
    /// Go on, but tell the user this.
    Warn(String),
    /// Block what the event is about (a call, a prompt, a stop); the
    /// reason goes to the model, or to the user for a refused prompt.
    Block(String),
}

/// A hook's `permissionDecision` other than `deny` (which blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Run the call without asking, unless a rule or the mode denies it.
    Allow,
    /// Ask the user even where the rules would let it run.
    Ask,
}

/// Everything one run says: its verdict, the context it adds for the
/// model, and its permission decision. Every text in it is printable
/// (control characters made visible, [`printable`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Go on, warn or block.
    pub verdict: Verdict,
    /// Text for the model: `additionalContext`, or (where Claude Code
    /// does so) plain stdout on exit 0.
    pub context: Option<String>,
    /// A `permissionDecision` of `allow` or `ask`.
    pub permission: Option<Permission>,
    /// A `systemMessage`: shown to the user, never to the model.
    pub message: Option<String>,
}

impl HookRun {
    /// Exit 2 blocks with stderr; exit 0 goes on unless stdout is JSON
    /// saying `"decision": "block"` or `"permissionDecision": "deny"`; any
    /// other end is a warning. `plain_context`: whether stdout that is not
    /// JSON is context for the model (`UserPromptSubmit`, `SessionStart`).
    pub fn outcome(&self, plain_context: bool) -> Outcome {
        let mut outcome = Outcome {
            verdict: Verdict::Go,
            context: None,
            permission: None,
            message: None,
        };
        match self {
            HookRun::Exited {
                code: Some(2),
                stderr,
                ..
            } => {
                outcome.verdict = Verdict::Block(match stderr.trim() {
                    "" => "blocked by a hook (exit 2, no message)".to_string(),
                    text => printable(text),
                });
            }
            HookRun::Exited {
                code: Some(0),
                stdout,
                ..
            } => match serde_json::from_str::<serde_json::Value>(stdout.trim()) {
                Ok(value) if value.is_object() => json_outcome(&value, &mut outcome),
                _ if plain_context && !stdout.trim().is_empty() => {
                    outcome.context = Some(printable(stdout.trim()));
                }
                _ => {}
            },
            HookRun::Exited { code, stderr, .. } => {
                outcome.verdict = Verdict::Warn(format!(
                    "exit {}: {}",
                    code.map_or("by signal".to_string(), |c| c.to_string()),
                    printable(stderr.trim())
                ));
            }
            HookRun::TimedOut => outcome.verdict = Verdict::Warn("timed out; killed".into()),
            HookRun::Interrupted => outcome.verdict = Verdict::Warn("interrupted; killed".into()),
            HookRun::Failed(why) => {
                outcome.verdict = Verdict::Warn(format!("could not start: {}", printable(why)));
            }
        }
        outcome
    }
}

/// Claude Code's JSON output: `decision: block` with `reason`,
/// `hookSpecificOutput` with `permissionDecision` (and its reason) and
/// `additionalContext`, and `systemMessage`.
fn json_outcome(value: &serde_json::Value, outcome: &mut Outcome) {
    let text = |v: &serde_json::Value| v.as_str().map(printable);
    let specific = &value["hookSpecificOutput"];
    outcome.context = text(&specific["additionalContext"]).filter(|c| !c.trim().is_empty());
    outcome.message = text(&value["systemMessage"]).filter(|m| !m.trim().is_empty());
    if value["decision"] == "block" {
        let reason = text(&value["reason"]).unwrap_or_else(|| "blocked by a hook".into());
        outcome.verdict = Verdict::Block(reason);
        return;
    }
    match specific["permissionDecision"].as_str() {
        Some("deny") => {
            let reason = text(&specific["permissionDecisionReason"])
                .unwrap_or_else(|| "denied by a hook".into());
            outcome.verdict = Verdict::Block(reason);
        }
        Some("allow") => outcome.permission = Some(Permission::Allow),
        Some("ask") => outcome.permission = Some(Permission::Ask),
        _ => {}
    }
}

/// `text` with every control character but newline and tab made visible
/// (`ESC` as `^[`, C1 as `<U+009B>`): what a hook prints reaches the
/// model, the log and the screen, never a terminal raw.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            '\u{7f}' => out.push_str("^?"),
            c if c.is_control() => out.push_str(&format!("<U+{:04X}>", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The hook's process group, killed when this is dropped: whatever it left
/// running (`cmd &`) ends with it, and so does a hook whose run is dropped
/// (the turn was interrupted, the approval it announced was answered).
struct Group(Option<Pid>);

impl Group {
    fn kill(&self) {
        if let Some(pgid) = self.0 {
            let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Runs `hook` with `event` on stdin in `cwd` with exactly `env` plus
/// `CLAUDE_PROJECT_DIR` (the working directory, as Claude Code sets it).
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
        // Claude Code's hooks find their scripts through it.
        .env("CLAUDE_PROJECT_DIR", cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return HookRun::Failed(e.to_string()),
    };
    let group = Group(child.id().and_then(|id| Pid::from_raw(id as i32)));
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
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
            group.kill();
            let _ = child.wait().await;
            return HookRun::Interrupted;
        }
    };
    // Whatever it left running in its group (`cmd &`) ends with it.
    group.kill();
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

    fn verdict(run: HookRun) -> Verdict {
        run.outcome(false).verdict
    }

    #[test]
    fn exit_codes_and_json_decisions_give_the_verdict() {
        assert_eq!(
            verdict(exited(2, "", " no force pushes\n")),
            Verdict::Block("no force pushes".into())
        );
        assert_eq!(verdict(exited(0, "fine", "")), Verdict::Go);
        assert_eq!(
            verdict(exited(
                0,
                r#"{"decision": "block", "reason": "tests first"}"#,
                ""
            )),
            Verdict::Block("tests first".into())
        );
        assert_eq!(
            verdict(exited(
                0,
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not here"}}"#,
                ""
            )),
            Verdict::Block("not here".into())
        );
        let allow = exited(
            0,
            r#"{"hookSpecificOutput": {"permissionDecision": "allow", "additionalContext": "it is fine"}}"#,
            "",
        )
        .outcome(false);
        assert_eq!(allow.verdict, Verdict::Go);
        assert_eq!(allow.permission, Some(Permission::Allow));
        assert_eq!(allow.context.as_deref(), Some("it is fine"));
        let told = exited(0, r#"{"systemMessage": "formatted 3 files"}"#, "").outcome(false);
        assert_eq!(told.message.as_deref(), Some("formatted 3 files"));
        let ask = exited(
            0,
            r#"{"hookSpecificOutput": {"permissionDecision": "ask"}}"#,
            "",
        );
        assert_eq!(ask.outcome(false).permission, Some(Permission::Ask));
        assert!(matches!(verdict(exited(1, "", "oops")), Verdict::Warn(w) if w.contains("oops")));
        assert!(matches!(verdict(HookRun::TimedOut), Verdict::Warn(_)));
    }

    #[test]
    fn plain_stdout_is_context_only_where_asked_and_never_raw() {
        let run = exited(0, "branch main\x1b]0;owned\x07\n", "");
        assert_eq!(run.outcome(false).context, None);
        assert_eq!(
            run.outcome(true).context.as_deref(),
            Some("branch main^[]0;owned^G")
        );
        let warn = verdict(exited(1, "", "\x1b[2Jbad\u{9b}31m"));
        assert_eq!(warn, Verdict::Warn("exit 1: ^[[2Jbad<U+009B>31m".into()));
    }

    fn hook(command: &str, timeout: Duration) -> Hook {
        Hook {
            event: super::super::HookEvent::PreToolUse,
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
