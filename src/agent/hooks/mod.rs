//! Hooks in Claude Code's format: commands the user configured (or a
//! project brought and the user accepted) run on the agent's events —
//! `SessionStart`, `UserPromptSubmit`, `PreToolUse`, `PostToolUse`, `Stop`,
//! `PreCompact`, `Notification` — with the event as JSON on stdin in Claude
//! Code's field names. Exit 2 blocks (its stderr the reason), so does JSON
//! `{"decision": "block", "reason": …}` or
//! `{"hookSpecificOutput": {"permissionDecision": "deny"}}` on stdout; what
//! blocking means is the event's (a call not run, a prompt refused, a turn
//! that goes on). Other exit codes and timeouts are warnings. A hook that
//! runs past its timeout, whose turn is interrupted or whose run is dropped
//! is killed with its whole process group. Everything a hook prints is made
//! printable before it goes anywhere ([`printable`]).

mod run;

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::protocol::{INTENT_FIELD, ToolCall};
use crate::tool::ToolOutput;

pub use run::{HookRun, Outcome, Permission, Verdict, printable, run_hook};

/// The events hooks run on (Claude Code's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HookEvent {
    /// The session's first prompt is about to be sent (`source`:
    /// `startup`, `resume` or `compact`); stdout joins that request.
    SessionStart,
    /// A prompt was submitted (`prompt`); exit 2 refuses it, stdout joins
    /// its request.
    UserPromptSubmit,
    /// Before a tool call; exit 2 blocks it.
    PreToolUse,
    /// After a tool call (`tool_response`); a block reason joins its result.
    PostToolUse,
    /// The model answered without calls; exit 2 makes the turn go on with
    /// the reason as the model's next input.
    Stop,
    /// Before older steps are summarised (`trigger`: `manual` or `auto`).
    PreCompact,
    /// The agent waits for the user (`message`, `notification_type`:
    /// `permission_prompt` or `elicitation_dialog`).
    Notification,
}

impl HookEvent {
    /// Every event, in the order they are listed.
    pub const ALL: [HookEvent; 7] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::Stop,
        HookEvent::PreCompact,
        HookEvent::Notification,
    ];

    /// Claude Code's name of the event.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::Stop => "Stop",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Notification => "Notification",
        }
    }

    /// The event named `name`, if hooks run on it.
    pub fn from_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether plain stdout on exit 0 is context for the model (Claude
    /// Code does so for these two only).
    fn plain_context(self) -> bool {
        matches!(self, HookEvent::SessionStart | HookEvent::UserPromptSubmit)
    }
}

/// One configured hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    /// The event it runs on.
    pub event: HookEvent,
    /// What it runs for: `*` or empty for all, else names separated by `|`
    /// — for the tool events ours (`shell|edit`) or Claude Code's
    /// (`Bash|Edit`), a name ending in `*` (or `.*`) a prefix
    /// (`mcp__github__*`); for the others the `source`, `trigger` or
    /// `notification_type`.
    pub matcher: String,
    /// The command, run with `sh -c` in the working directory.
    pub command: String,
    /// How long it may run before it is killed.
    pub timeout: Duration,
}

impl Hook {
    /// Whether the hook runs for `name` (a tool, a source, a trigger).
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
    /// Every hook, each event's in configuration order.
    pub hooks: Vec<Hook>,
    /// Their whole environment (the user's without secrets).
    pub env: Vec<(OsString, OsString)>,
}

/// Where hooks run and what identifies the session.
pub struct CallSite<'a> {
    /// The session's id (empty without a session).
    pub session_id: &'a str,
    /// The working directory the hooks run in.
    pub cwd: &'a Path,
    /// The turn's token: firing it kills running hooks.
    pub cancel: &'a CancellationToken,
    /// Where a hook's warning (a failure, a timeout, its `systemMessage`)
    /// is told to the user.
    pub warn: &'a (dyn Fn(String) + Send + Sync),
}

/// What the hooks of one event said together.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fired {
    /// The first block's reason (no later hook ran).
    pub blocked: Option<String>,
    /// The context they added for the model, in order.
    pub context: Vec<String>,
    /// The last `allow` or `ask` decision.
    pub permission: Option<Permission>,
}

impl Fired {
    /// The context as one text (empty when there is none).
    pub fn context_text(&self) -> String {
        self.context.join("\n")
    }
}

impl Hooks {
    /// Whether there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Whether any hook runs on `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.hooks.iter().any(|h| h.event == event)
    }

    /// Runs the `PreToolUse` hooks matching `call`, in order; the first
    /// that blocks ends the run.
    pub async fn pre_tool_use(&self, call: &ToolCall, site: &CallSite<'_>) -> Fired {
        let fields = tool_fields(call, None);
        self.fire(HookEvent::PreToolUse, &call.name, fields, site)
            .await
    }

    /// Runs the `PostToolUse` hooks matching `call` after it ran with
    /// `output` (`tool_response`: its text and whether it failed); what a
    /// hook blocks with is for the model (the call already ran).
    pub async fn post_tool_use(
        &self,
        call: &ToolCall,
        output: &ToolOutput,
        site: &CallSite<'_>,
    ) -> Fired {
        let response = serde_json::json!({
            "content": output.content,
            "is_error": output.is_error,
        });
        let fields = tool_fields(call, Some(response));
        self.fire(HookEvent::PostToolUse, &call.name, fields, site)
            .await
    }

    /// Runs the hooks of `event` whose matcher takes `subject` (a tool
    /// name, a source, a trigger, a notification type; `""` for events
    /// without one), in order, with the session's fields and `fields` (an
    /// object) on stdin. The first that blocks ends the run; warnings go
    /// to `site.warn`.
    pub async fn fire(
        &self,
        event: HookEvent,
        subject: &str,
        fields: serde_json::Value,
        site: &CallSite<'_>,
    ) -> Fired {
        let mut fired = Fired::default();
        // Collected first: a filter closure held across the awaits below
        // would keep the future from being `Send` for every lifetime.
        let matching: Vec<&Hook> = self
            .hooks
            .iter()
            .filter(|h| h.event == event && h.matches(subject))
            .collect();
        if matching.is_empty() {
            return fired;
        }
        let mut payload = serde_json::json!({
            "session_id": site.session_id,
            "transcript_path": "",
            "cwd": site.cwd,
            "hook_event_name": event.name(),
        });
        if let (Some(payload), serde_json::Value::Object(fields)) =
            (payload.as_object_mut(), fields)
        {
            payload.extend(fields);
        }
        for hook in matching {
            let run = run_hook(hook, &payload, site.cwd, &self.env, site.cancel).await;
            let outcome = run.outcome(event.plain_context());
            fired.context.extend(outcome.context);
            if let Some(message) = outcome.message {
                (site.warn)(format!("{} hook: {message}", event.name()));
            }
            if outcome.permission.is_some() {
                fired.permission = outcome.permission;
            }
            match outcome.verdict {
                Verdict::Block(reason) => {
                    fired.blocked = Some(reason);
                    break;
                }
                Verdict::Warn(warning) => {
                    tracing::warn!(command = %hook.command, %warning, event = event.name(), "hook");
                    (site.warn)(format!(
                        "{} hook `{}`: {warning}",
                        event.name(),
                        printable(&hook.command)
                    ));
                }
                Verdict::Go => {}
            }
        }
        fired
    }
}

/// A tool event's own fields in Claude Code's names; `tool_input` without
/// `_intent`.
fn tool_fields(call: &ToolCall, response: Option<serde_json::Value>) -> serde_json::Value {
    let mut input = call.args.clone();
    if let Some(map) = input.as_object_mut() {
        map.remove(INTENT_FIELD);
    }
    let mut fields = serde_json::json!({
        "tool_name": call.name,
        "tool_input": input,
        "tool_use_id": call.id,
    });
    if let Some(response) = response {
        fields["tool_response"] = response;
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(matcher: &str) -> Hook {
        Hook {
            event: HookEvent::PreToolUse,
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
        assert!(hook("startup|resume").matches("resume"));
    }

    #[test]
    fn every_event_is_named_as_claude_code_names_it() {
        for event in HookEvent::ALL {
            assert_eq!(HookEvent::from_name(event.name()), Some(event));
        }
        assert_eq!(HookEvent::from_name("SubagentStop"), None);
    }
}
