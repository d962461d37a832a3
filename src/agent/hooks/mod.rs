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
use crate::tool::ToolOutput;

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
    /// `PostToolUse` hooks, in configuration order.
    pub post_tool_use: Vec<Hook>,
    /// Their whole environment (the user's without secrets).
    pub env: Vec<(OsString, OsString)>,
}

/// Where a call's hooks run and what identifies it.
pub struct CallSite<'a> {
    /// The session's id (empty without a session).
    pub session_id: &'a str,
    /// The working directory the hooks run in.
    pub cwd: &'a Path,
    /// The turn's token: firing it kills running hooks.
    pub cancel: &'a CancellationToken,
}

impl Hooks {
    /// Whether there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.pre_tool_use.is_empty() && self.post_tool_use.is_empty()
    }

    /// Runs the `PreToolUse` hooks matching `call`, in order; the first
    /// that blocks ends the run and its reason is returned.
    pub async fn pre_tool_use(&self, call: &ToolCall, site: &CallSite<'_>) -> Option<String> {
        let event = tool_event("PreToolUse", call, site, None);
        self.run_matching(&self.pre_tool_use, "PreToolUse", call, &event, site)
            .await
    }

    /// Runs the `PostToolUse` hooks matching `call` after it ran with
    /// `output` (`tool_response`: its text and whether it failed); what a
    /// hook blocks with is returned for the model (the call already ran).
    pub async fn post_tool_use(
        &self,
        call: &ToolCall,
        output: &ToolOutput,
        site: &CallSite<'_>,
    ) -> Option<String> {
        let response = serde_json::json!({
            "content": output.content,
            "is_error": output.is_error,
        });
        let event = tool_event("PostToolUse", call, site, Some(response));
        self.run_matching(&self.post_tool_use, "PostToolUse", call, &event, site)
            .await
    }

    async fn run_matching(
        &self,
        hooks: &[Hook],
        name: &str,
        call: &ToolCall,
        event: &serde_json::Value,
        site: &CallSite<'_>,
    ) -> Option<String> {
        for hook in hooks.iter().filter(|h| h.matches(&call.name)) {
            let run = run_hook(hook, event, site.cwd, &self.env, site.cancel).await;
            match run.verdict() {
                Verdict::Block(reason) => return Some(reason),
                Verdict::Warn(warning) => {
                    tracing::warn!(command = %hook.command, %warning, event = name, "hook");
                }
                Verdict::Go => {}
            }
        }
        None
    }
}

/// A tool event in Claude Code's field names; `tool_input` without
/// `_intent`.
fn tool_event(
    name: &str,
    call: &ToolCall,
    site: &CallSite<'_>,
    response: Option<serde_json::Value>,
) -> serde_json::Value {
    let mut input = call.args.clone();
    if let Some(map) = input.as_object_mut() {
        map.remove(INTENT_FIELD);
    }
    let mut event = serde_json::json!({
        "session_id": site.session_id,
        "transcript_path": "",
        "cwd": site.cwd,
        "hook_event_name": name,
        "tool_name": call.name,
        "tool_input": input,
        "tool_use_id": call.id,
    });
    if let Some(response) = response {
        event["tool_response"] = response;
    }
    event
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
