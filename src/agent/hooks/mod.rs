//! Hooks in Claude Code's format: a command the user configured runs before
//! a tool call (`PreToolUse`), reads the event as JSON on stdin and may block
//! the call (exit 2, its stderr the reason the model sees; or a JSON
//! `{"decision": "block", "reason": …}` /
//! `{"hookSpecificOutput": {"permissionDecision": "deny"}}` on stdout). Other
//! exit codes and timeouts are warnings and the call goes on; a hook that
//! runs past its timeout, or whose turn is interrupted, is killed with its
//! whole process group.

mod run;

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::protocol::{INTENT_FIELD, ToolCall};

pub use run::{HookRun, Verdict, run_hook};

/// One configured hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    /// Which tools it runs for: `*` or empty for all, else names separated
    /// by `|` (ours, `shell|edit`, or Claude Code's, `Bash|Edit`); a name
    /// ending in `*` (or `.*`) is a prefix (`mcp__github__*`).
    pub matcher: String,
    /// The command, run with `sh -c` in the working directory.
    pub command: String,
    /// How long it may run before it is killed.
    pub timeout: Duration,
}

impl Hook {
    /// Whether the hook runs for the tool `name`.
    pub fn matches(&self, name: &str) -> bool {
        let matcher = self.matcher.trim();
        if matcher.is_empty() || matcher == "*" || matcher == ".*" {
            return true;
        }
        matcher.split('|').map(str::trim).any(|want| {
            if let Some(prefix) = want.strip_suffix(".*").or_else(|| want.strip_suffix('*')) {
                return name.starts_with(prefix);
            }
            want == name || claude_code_names(name).contains(&want)
        })
    }
}

/// Claude Code's names for our tools, so existing matchers apply.
fn claude_code_names(name: &str) -> &'static [&'static str] {
    match name {
        "shell" => &["Bash"],
        "edit" | "apply_patch" => &["Edit", "MultiEdit"],
        "write" => &["Write"],
        "read_file" => &["Read"],
        "grep" => &["Grep"],
        "tree" => &["Glob", "LS"],
        "web_fetch" => &["WebFetch"],
        "update_plan" => &["TodoWrite"],
        _ => &[],
    }
}

/// The hooks of an agent and the environment they run with.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    /// `PreToolUse` hooks, in configuration order.
    pub pre_tool_use: Vec<Hook>,
    /// Their whole environment (the user's without secrets).
    pub env: Vec<(OsString, OsString)>,
}

impl Hooks {
    /// Whether there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.pre_tool_use.is_empty()
    }

    /// Runs the `PreToolUse` hooks matching `call`, in order; the first
    /// that blocks ends the run and its reason is returned.
    pub async fn pre_tool_use(
        &self,
        call: &ToolCall,
        session_id: &str,
        cwd: &Path,
        cancel: &CancellationToken,
    ) -> Option<String> {
        let mut input = call.args.clone();
        if let Some(map) = input.as_object_mut() {
            map.remove(INTENT_FIELD);
        }
        let event = serde_json::json!({
            "session_id": session_id,
            "transcript_path": "",
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": call.name,
            "tool_input": input,
            "tool_use_id": call.id,
        });
        for hook in self.pre_tool_use.iter().filter(|h| h.matches(&call.name)) {
            let run = run_hook(hook, &event, cwd, &self.env, cancel).await;
            match run.verdict() {
                Verdict::Block(reason) => return Some(reason),
                Verdict::Warn(warning) => {
                    tracing::warn!(command = %hook.command, %warning, "PreToolUse hook");
                }
                Verdict::Go => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(matcher: &str) -> Hook {
        Hook {
            matcher: matcher.into(),
            command: "true".into(),
            timeout: Duration::from_secs(1),
        }
    }

    #[test]
    fn matchers_take_our_names_claude_codes_and_prefixes() {
        assert!(hook("").matches("shell") && hook("*").matches("edit"));
        assert!(hook("shell|edit").matches("edit"));
        assert!(!hook("shell|edit").matches("write"));
        assert!(hook("Bash").matches("shell"));
        assert!(hook("Edit|Write").matches("apply_patch"));
        assert!(hook("mcp__github__.*").matches("mcp__github__list"));
        assert!(!hook("mcp__github__*").matches("mcp__gitlab__list"));
    }
}
