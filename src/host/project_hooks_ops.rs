//! The host's side of hooks: the user's and a project's accepted ones set
//! on the agent (and on the approver, which fires `Notification`), an
//! undecided project's offered once where the front end offers, `/hooks`
//! listing what is in force, `/hooks accept` and `/hooks decline`.

use std::sync::Arc;

use super::actor::Actor;
use super::project_hooks::{self, ProjectHooks, Standing, describe_hook};
use crate::agent::Agent;
use crate::config::HookSetting;
use crate::protocol::{HostEvent, NoticeLevel};
use crate::tool::builtin::shell::Shell;

impl Actor {
    /// Sets the hooks in force on `agent` and the approver: the user's and
    /// `project`'s (accepted ones only).
    pub(super) fn set_hooks(&self, agent: &Agent, shell: &Shell, project: Option<&ProjectHooks>) {
        let entries: Vec<&HookSetting> = self
            .config
            .settings
            .hooks
            .entries
            .iter()
            .chain(project.into_iter().flat_map(ProjectHooks::entries))
            .collect();
        let hooks = super::hooks::hooks(entries, shell);
        let events = self.shared.events.clone();
        let warn = Arc::new(move |text: String| {
            let _ = events.send(HostEvent::message(NoticeLevel::Warn, text));
        });
        self.shared
            .approver
            .hooks
            .set(hooks.clone(), self.session.id(), &self.config.cwd, warn);
        agent.set_hooks(hooks);
    }

    /// Adds the hooks of an accepted project to the current agent's. An
    /// undecided project's are offered once where the front end offers (the
    /// offer counts as declined until `/hooks accept`), else the front end
    /// is told why they do not run.
    pub(super) async fn join_project_hooks(&self) {
        let (Some(agent), Some(shell)) = (self.agent(), self.shell.as_ref()) else {
            return;
        };
        let standing = project_hooks::standing(&self.manager, &self.config.cwd).await;
        if let Standing::Accepted(hooks) = &standing {
            return self.set_hooks(agent, shell, Some(hooks));
        }
        if !self.config.offer_project_files {
            if let Some(why) = project_hooks::not_run(&standing) {
                self.notice(NoticeLevel::Warn, why);
            }
            return;
        }
        match standing {
            Standing::Undecided(hooks) => {
                self.notice(NoticeLevel::Info, project_hooks::offer(&hooks));
                let declined =
                    project_hooks::decide(&self.manager, &self.config.cwd, &hooks, false).await;
                if let Err(e) = declined {
                    self.notice(NoticeLevel::Warn, e);
                }
            }
            Standing::Unusable(why) => self.notice(NoticeLevel::Warn, why),
            _ => {}
        }
    }

    /// `/hooks accept` or `/hooks decline`: remembers the choice for the
    /// project's hooks as they are now and sets the agent's hooks to match.
    pub(super) async fn decide_project_hooks(&mut self, accept: bool) {
        let hooks = match project_hooks::standing(&self.manager, &self.config.cwd).await {
            Standing::Absent => {
                let text = "this directory has no project hooks (.claude/settings.json hooks, .agents/hooks.toml)";
                return self.notice(NoticeLevel::Warn, text);
            }
            Standing::Unusable(why) => return self.notice(NoticeLevel::Warn, why),
            Standing::Accepted(hooks) | Standing::Undecided(hooks) | Standing::Declined(hooks) => {
                hooks
            }
        };
        if let Err(e) = project_hooks::decide(&self.manager, &self.config.cwd, &hooks, accept).await
        {
            return self.notice(NoticeLevel::Error, e);
        }
        if let (Some(agent), Some(shell)) = (self.agent(), self.shell.as_ref()) {
            self.set_hooks(agent, shell, accept.then_some(&hooks));
        }
        let text = if accept {
            format!(
                "project hooks accepted for this directory; they run from now on: {}",
                hooks.describe().join("; ")
            )
        } else {
            "the project's hooks stay off in this directory".to_string()
        };
        self.notice(NoticeLevel::Info, text);
    }

    /// `/hooks`: what runs (the user's, an accepted project's) and what a
    /// project brings that does not.
    pub(super) async fn list_hooks(&self) {
        let mut lines = vec!["Hooks".to_string()];
        for hook in &self.config.settings.hooks.entries {
            lines.push(format!("  {}", describe_hook(hook, "config.toml")));
        }
        let standing = project_hooks::standing(&self.manager, &self.config.cwd).await;
        let (project, state) = match &standing {
            Standing::Absent => (None, ""),
            Standing::Accepted(hooks) => (Some(hooks), ""),
            Standing::Undecided(hooks) => {
                (Some(hooks), "not accepted yet: /hooks accept runs them")
            }
            Standing::Declined(hooks) => (Some(hooks), "declined: /hooks accept runs them"),
            Standing::Unusable(why) => {
                lines.push(format!("  project hooks cannot be used: {why}"));
                (None, "")
            }
        };
        if let Some(hooks) = project {
            if !state.is_empty() {
                lines.push(format!("  project hooks, {state}:"));
            }
            let indent = if state.is_empty() { "  " } else { "    " };
            lines.extend(hooks.describe().into_iter().map(|l| format!("{indent}{l}")));
        }
        if lines.len() == 1 {
            lines.push("  none: [[hooks.EVENT]] in config.toml adds one".into());
        }
        self.notice(NoticeLevel::Info, lines.join("\n"));
    }
}
