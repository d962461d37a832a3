//! The agent's hooks as the settings configure them (`[[hooks.EVENT]]`
//! entries in `config.toml`) plus a project's accepted ones, run with the
//! shell's environment rules (no secrets).

use std::time::Duration;

use crate::agent::hooks::{Hook, HookEvent, Hooks};
use crate::config::HookSetting;
use crate::tool::builtin::shell::Shell;

/// `entries` as the agent's hooks (entries of events hooks do not run on
/// are left out); their environment is the commands' own (`shell`'s,
/// secrets removed).
pub fn hooks<'a>(entries: impl IntoIterator<Item = &'a HookSetting>, shell: &Shell) -> Hooks {
    let config = shell.config();
    let env = config
        .env
        .iter()
        .filter(|(name, _)| !config.secrets.removes(name))
        .cloned()
        .collect();
    let hooks = entries
        .into_iter()
        .filter_map(|h| {
            Some(Hook {
                event: HookEvent::from_name(&h.event)?,
                matcher: h.matcher.clone(),
                command: h.command.clone(),
                timeout: Duration::from_secs(h.timeout_sec),
            })
        })
        .collect();
    Hooks { hooks, env }
}
