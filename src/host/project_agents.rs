//! A project's own agent definitions (`.agents/agents/*.md`, and Claude
//! Code's `.claude/agents/*.md` as they are): they change what a `task`
//! child does, so they are offered once per content like `.mcp.json` and
//! offered to the model only after the user accepted them (`/agents
//! accept`; remembered in the session database for this directory and
//! this content). Read through the project's confined root: a folder or
//! file that is a symlink is not followed.

use xxhash_rust::xxh3::xxh3_128;

use super::actor::Actor;
use crate::agent::task::AgentDefinition;
use crate::protocol::NoticeLevel;
use crate::session::Decision;
use crate::tool::fs::{RelPath, Root};

/// The subject of the choice in `project_choices`.
const SUBJECT: &str = "agents";

/// Where a project brings agent definitions, ours first.
const FOLDERS: [&str; 2] = [".agents/agents", ".claude/agents"];

/// The definitions a project brings, and the digest a decision holds for.
struct ProjectAgents {
    definitions: Vec<AgentDefinition>,
    digest: String,
    /// Why files were skipped.
    warnings: Vec<String>,
}

impl ProjectAgents {
    fn names(&self) -> String {
        let names: Vec<&str> = self.definitions.iter().map(|d| d.name.as_str()).collect();
        names.join(", ")
    }
}

/// Reads the project's agent definitions (the first of a name wins); `None`
/// when it brings none.
fn read(root: &Root) -> Option<ProjectAgents> {
    let (mut definitions, mut warnings) = (Vec::<AgentDefinition>::new(), Vec::new());
    for folder in FOLDERS {
        let Ok(dir) = RelPath::parse(folder) else {
            continue;
        };
        let (found, skipped) = super::subagents::definitions(root, &dir);
        warnings.extend(skipped);
        for definition in found {
            if !definitions.iter().any(|d| d.name == definition.name) {
                definitions.push(definition);
            }
        }
    }
    if definitions.is_empty() {
        return None;
    }
    // What the model is told and what a child is made of: any change in
    // them is a new content to decide on.
    let described = format!("{definitions:?}");
    Some(ProjectAgents {
        digest: format!("{:032x}", xxh3_128(described.as_bytes())),
        definitions,
        warnings,
    })
}

impl Actor {
    /// The project's agents as they are now, when `[agents] enabled` and
    /// the project brings any.
    async fn project_agents(&self) -> Option<ProjectAgents> {
        if !self.config.settings.agents.enabled {
            return None;
        }
        let cwd = self.config.cwd.clone();
        tokio::task::spawn_blocking(move || Root::open(&cwd).ok().as_ref().and_then(read))
            .await
            .ok()
            .flatten()
    }

    /// Adds an accepted project's agents to the agent's `task`. An undecided
    /// project's are offered once where the front end offers (the offer
    /// counts as declined until `/agents accept`); elsewhere the front end
    /// is told why they are not used.
    pub(super) async fn join_project_agents(&self) {
        let (Some(agent), Some(agents)) = (self.agent(), self.project_agents().await) else {
            return;
        };
        for warning in &agents.warnings {
            self.notice(NoticeLevel::Warn, warning.clone());
        }
        let decision = self
            .manager
            .decision(&self.config.cwd, SUBJECT, &agents.digest)
            .await
            .unwrap_or(Decision::Undecided);
        match decision {
            Decision::Accepted => self.register_subagents(agent, agents.definitions),
            Decision::Undecided if self.config.offer_project_files => {
                self.notice(
                    NoticeLevel::Info,
                    format!(
                        "this project defines agents for the task tool, not used: {}. `/agents accept` offers them to the model and remembers it for this directory; `/agents decline` keeps them off",
                        agents.names()
                    ),
                );
                self.remember(&agents, false).await;
            }
            Decision::Undecided => self.notice(
                NoticeLevel::Warn,
                format!(
                    "this project's agents ({}) are not used: accept them once in the TUI with /agents accept",
                    agents.names()
                ),
            ),
            Decision::Declined => {}
        }
    }

    /// `/agents accept` or `/agents decline`: remembers the choice for the
    /// project's agents as they are now and offers them to the model, or
    /// not, from the next request on.
    pub(super) async fn decide_project_agents(&mut self, accept: bool) {
        let Some(agents) = self.project_agents().await else {
            let text = "no project agents to decide on: this directory has no .agents/agents/*.md or .claude/agents/*.md (or [agents] is not enabled)";
            return self.notice(NoticeLevel::Warn, text);
        };
        if !self.remember(&agents, accept).await {
            return;
        }
        let names = agents.names();
        if let Some(agent) = self.agent() {
            let project = if accept {
                agents.definitions
            } else {
                Vec::new()
            };
            self.register_subagents(agent, project);
        }
        let text = match accept {
            true => format!("project agents accepted for this directory: {names}"),
            false => "the project's agents stay off in this directory".to_string(),
        };
        self.notice(NoticeLevel::Info, text);
    }

    /// `/agents`: the agents `task` offers and what a project brings that
    /// it does not.
    pub(super) async fn list_agents(&self) {
        if !self.config.settings.agents.enabled {
            let text = "the task tool is off: `[agents] enabled = true` in config.toml offers it";
            return self.notice(NoticeLevel::Info, text);
        }
        let user_dir = self.config.paths.config_dir.join("agents");
        let user = Root::open(&user_dir)
            .map(|root| super::subagents::definitions(&root, &RelPath::root()).0)
            .unwrap_or_default();
        let mut names = vec!["general".to_string()];
        names.extend(user.into_iter().map(|d| d.name));
        let mut lines = vec![format!("Agents: {}", names.join(", "))];
        if let Some(agents) = self.project_agents().await {
            let decision = self
                .manager
                .decision(&self.config.cwd, SUBJECT, &agents.digest)
                .await
                .unwrap_or(Decision::Undecided);
            lines.push(match decision {
                Decision::Accepted => format!("  the project's, accepted: {}", agents.names()),
                _ => format!(
                    "  the project's, not used ({}): /agents accept offers them",
                    agents.names()
                ),
            });
        }
        self.notice(NoticeLevel::Info, lines.join("\n"));
    }

    /// Saves the choice about `agents`; false (after saying why) when it
    /// could not be saved.
    async fn remember(&self, agents: &ProjectAgents, accepted: bool) -> bool {
        match self
            .manager
            .decide(&self.config.cwd, SUBJECT, &agents.digest, accepted)
            .await
        {
            Ok(()) => true,
            Err(e) => {
                let text =
                    format!("the choice about this project's agents could not be saved: {e}");
                self.notice(NoticeLevel::Error, text);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REVIEWER: &str = "---\nname: reviewer\ndescription: reviews\n---\nBe strict.\n";

    #[test]
    fn both_folders_are_read_and_the_digest_follows_the_definitions() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        assert!(read(&root).is_none());
        std::fs::create_dir_all(dir.path().join(".claude/agents")).unwrap();
        std::fs::write(dir.path().join(".claude/agents/reviewer.md"), REVIEWER).unwrap();
        let first = read(&root).unwrap();
        assert_eq!(first.names(), "reviewer");
        std::fs::create_dir_all(dir.path().join(".agents/agents")).unwrap();
        let other = REVIEWER.replace("reviewer", "tester");
        std::fs::write(dir.path().join(".agents/agents/tester.md"), other).unwrap();
        let both = read(&root).unwrap();
        assert_eq!(both.names(), "tester, reviewer");
        assert_ne!(both.digest, first.digest);
    }

    #[test]
    fn a_symlinked_agents_folder_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("reviewer.md"), REVIEWER).unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(".claude/agents")).unwrap();
        let root = Root::open(dir.path()).unwrap();
        assert!(read(&root).is_none());
    }
}
