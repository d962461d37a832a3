//! The hooks a project brings, read as they are: the `hooks` block of its
//! `.claude/settings.json` (Claude Code's format,
//! `hooks.{Event}[{matcher, hooks: [{type: "command", command, timeout}]}]`)
//! and its `.agents/hooks.toml` (`config.toml`'s `[[hooks.EVENT]]` format).
//! Only parsing lives here; the host reads the files through the
//! confined-open API and runs nothing before the user accepted them.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::raw::RawHooks;
use super::resolve::{DEFAULT_HOOK_TIMEOUT_SECS, hook_settings};
use super::settings::{HOOK_EVENTS, HookSetting};

/// What a project's hook file holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectHookFile {
    /// The hooks it defines for the events we run.
    pub hooks: Vec<HookSetting>,
    /// One line per entry that is not used (an event or a hook type we do
    /// not run), for the listing.
    pub ignored: Vec<String>,
}

#[derive(Deserialize)]
struct ClaudeSettings {
    #[serde(default)]
    hooks: BTreeMap<String, Vec<ClaudeMatcher>>,
}

#[derive(Deserialize)]
struct ClaudeMatcher {
    #[serde(default)]
    matcher: Option<String>,
    #[serde(default)]
    hooks: Vec<ClaudeHook>,
}

#[derive(Deserialize)]
struct ClaudeHook {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    timeout: Option<f64>,
}

/// Parses the `hooks` block of a `.claude/settings.json` (everything else
/// in the file is left alone); `Err` with a line for the user when it is
/// not valid JSON of that shape.
pub fn parse_claude_settings(bytes: &[u8]) -> Result<ProjectHookFile, String> {
    let settings: ClaudeSettings =
        serde_json::from_slice(bytes).map_err(|e| format!("not valid: {e}"))?;
    let mut file = ProjectHookFile::default();
    // In our event order, whatever order the file has.
    let mut events: Vec<(&String, &Vec<ClaudeMatcher>)> = settings.hooks.iter().collect();
    events.sort_by_key(|(event, _)| {
        HOOK_EVENTS
            .iter()
            .position(|known| known == event)
            .unwrap_or(usize::MAX)
    });
    for (event, matchers) in events {
        if !HOOK_EVENTS.contains(&event.as_str()) {
            file.ignored
                .push(format!("{event}: an event light-agent does not run"));
            continue;
        }
        for entry in matchers {
            for hook in &entry.hooks {
                match (hook.kind.as_deref(), &hook.command) {
                    (Some("command") | None, Some(command)) => file.hooks.push(HookSetting {
                        event: event.clone(),
                        matcher: entry.matcher.clone().unwrap_or_default(),
                        command: command.clone(),
                        timeout_sec: hook
                            .timeout
                            .filter(|t| t.is_finite() && *t >= 1.0)
                            .map_or(DEFAULT_HOOK_TIMEOUT_SECS, |t| t as u64),
                    }),
                    (kind, _) => file.ignored.push(format!(
                        "{event}: a hook of type {} (only \"command\" hooks run)",
                        kind.unwrap_or("none")
                    )),
                }
            }
        }
    }
    Ok(file)
}

#[derive(Deserialize)]
struct HooksToml {
    #[serde(default)]
    hooks: RawHooks,
}

/// Parses an `.agents/hooks.toml` (`[[hooks.EVENT]]` entries as in
/// `config.toml`); `Err` with a line for the user when it is not valid.
pub fn parse_hooks_toml(bytes: &[u8]) -> Result<ProjectHookFile, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    let parsed: HooksToml = toml::from_str(text).map_err(|e| format!("not valid: {e}"))?;
    let hooks = hook_settings(&parsed.hooks);
    Ok(ProjectHookFile {
        hooks,
        ignored: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_hooks_block_is_read_as_it_is() {
        let text = br#"{
            "permissions": {"allow": ["Bash(ls)"]},
            "hooks": {
                "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
                "PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "check.sh", "timeout": 5},
                    {"type": "prompt", "prompt": "is it safe?"}
                ]}],
                "SubagentStop": [{"hooks": [{"type": "command", "command": "x"}]}]
            }
        }"#;
        let file = parse_claude_settings(text).unwrap();
        let shown: Vec<(&str, &str, &str, u64)> = file
            .hooks
            .iter()
            .map(|h| {
                (
                    h.event.as_str(),
                    h.matcher.as_str(),
                    h.command.as_str(),
                    h.timeout_sec,
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("PreToolUse", "Bash", "check.sh", 5),
                ("Stop", "", "say done", 60)
            ]
        );
        assert_eq!(file.ignored.len(), 2, "{:?}", file.ignored);
        assert!(parse_claude_settings(b"{}").unwrap().hooks.is_empty());
        assert!(parse_claude_settings(b"{nope").is_err());
    }

    #[test]
    fn hooks_toml_is_config_tomls_format() {
        let text = b"[[hooks.UserPromptSubmit]]\ncommand = \"date\"\ntimeout_sec = 3\n";
        let file = parse_hooks_toml(text).unwrap();
        assert_eq!(file.hooks.len(), 1);
        assert_eq!(file.hooks[0].event, "UserPromptSubmit");
        assert_eq!(file.hooks[0].timeout_sec, 3);
        assert!(parse_hooks_toml(b"[[hooks.Stop]]\n").is_err());
    }
}
