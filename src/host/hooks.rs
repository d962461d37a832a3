//! The agent's hooks as the settings configure them: `[[hooks.PreToolUse]]`
//! and `[[hooks.PostToolUse]]` entries, run with the shell's environment rules (no secrets).

use std::time::Duration;

use crate::agent::hooks::{Hook, Hooks};
use crate::config::{HookSetting, Settings};
use crate::tool::builtin::shell::Shell;

/// The hooks of `settings`; their environment is the commands' own
/// (`shell`'s, secrets removed).
pub fn hooks(settings: &Settings, shell: &Shell) -> Hooks {
    let config = shell.config();
    let env = config
        .env
        .iter()
        .filter(|(name, _)| !config.secrets.removes(name))
        .cloned()
        .collect();
    Hooks {
        pre_tool_use: agent_hooks(&settings.hooks.pre_tool_use),
        post_tool_use: agent_hooks(&settings.hooks.post_tool_use),
        env,
    }
}

fn agent_hooks(settings: &[HookSetting]) -> Vec<Hook> {
    settings
        .iter()
        .map(|h| Hook {
            matcher: h.matcher.clone(),
            command: h.command.clone(),
            timeout: Duration::from_secs(h.timeout_sec),
        })
        .collect()
}
