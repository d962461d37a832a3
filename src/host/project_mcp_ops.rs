//! The bridge's side of a project's `.mcp.json`: its accepted servers join
//! each agent's, an undecided file is offered once, `/mcp accept` and
//! `/mcp decline` decide.

use crate::mcp::project::{self, PROJECT_FILE};
use crate::protocol::NoticeLevel;

use super::actor::Actor;
use super::project_mcp::{self, Standing};

impl Actor {
    /// In the background: adds the servers of an accepted `.mcp.json` to the
    /// current agent's and offers an undecided one (once: the offer counts as
    /// declined until `/mcp accept`).
    pub(super) fn join_project_mcp(&self) {
        let Some(mcp) = self.mcp().cloned() else {
            return;
        };
        let (manager, cwd, shared) = (
            self.manager.clone(),
            self.config.cwd.clone(),
            self.shared.clone(),
        );
        tokio::spawn(async move {
            let notice = |level, text: String| shared.notice(level, text);
            match project_mcp::standing(&manager, &cwd).await {
                Standing::Accepted(servers) => {
                    mcp.add(&servers.servers);
                }
                Standing::Undecided(servers) => {
                    notice(NoticeLevel::Info, project_mcp::offer(&servers));
                    if let Err(e) = project_mcp::decide(&manager, &cwd, &servers, false).await {
                        notice(NoticeLevel::Warn, e);
                    }
                }
                Standing::Unusable(why) => notice(NoticeLevel::Warn, why),
                _ => {}
            }
        });
    }

    /// `/mcp accept` or `/mcp decline`: remembers the choice for the file as
    /// it is now and, when accepted, starts its servers.
    pub(super) async fn decide_project_mcp(&mut self, accept: bool) {
        let servers = match project::read(&self.config.cwd) {
            Ok(Some(servers)) => servers,
            Ok(None) => {
                let text = format!("there is no {PROJECT_FILE} in this directory");
                self.notice(NoticeLevel::Warn, text);
                return;
            }
            Err(why) => return self.notice(NoticeLevel::Warn, why),
        };
        if let Err(e) = project_mcp::decide(&self.manager, &self.config.cwd, &servers, accept).await
        {
            return self.notice(NoticeLevel::Error, e);
        }
        if !accept {
            let text = format!("the MCP servers of {PROJECT_FILE} stay off in this directory");
            return self.notice(NoticeLevel::Info, text);
        }
        let Some(mcp) = self.mcp() else {
            let text = format!(
                "{PROJECT_FILE} accepted; its servers start with the next agent ({})",
                self.why_no_agent()
            );
            return self.notice(NoticeLevel::Warn, text);
        };
        let added = mcp.add(&servers.servers);
        let kept: Vec<&str> = servers
            .servers
            .keys()
            .filter(|name| !added.contains(name))
            .map(String::as_str)
            .collect();
        let mut text = format!(
            "{PROJECT_FILE} accepted for this directory; starting: {}",
            if added.is_empty() {
                "none".to_owned()
            } else {
                added.join(", ")
            }
        );
        if !kept.is_empty() {
            text.push_str(&format!(
                " (already configured in config.toml: {})",
                kept.join(", ")
            ));
        }
        self.notice(NoticeLevel::Info, text);
    }
}
