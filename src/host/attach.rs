//! Putting an agent on the open session and taking it off: showing the
//! session, building its agent (shell, subagents, MCP servers, the
//! project's accepted files) and, when another session opens, stopping it.

use std::sync::Arc;
use std::time::Duration;

use super::actor::{Actor, Ready, Slot};
use super::forward::{Forwarder, JobOps};
use super::{HostError, build, lock};
use crate::agent::Agent;
use crate::agent::task::AgentDefinition;
use crate::permission::Mode;
use crate::protocol::{HostEvent, NoticeLevel};
use crate::sandbox::SandboxState;
use crate::session::AgentSession;

/// Longest wait for an interrupted turn to commit its `agent_stop` when a
/// session is closed; tools and streams stop at once, so this is a guard.
const DETACH_WAIT: Duration = Duration::from_secs(5);

impl Actor {
    /// Shows the current session and puts an agent on it; the session's
    /// history loads as the agent's first job.
    pub(super) async fn attach(&mut self, note: Option<String>) {
        match super::sessions::opened(&self.manager, &self.session, note).await {
            Ok((header, recent)) => self.send(HostEvent::SessionOpened { header, recent }),
            Err(e) => self.notice(NoticeLevel::Error, e.to_string()),
        }
        self.status();
        self.put_agent();
        self.join_project_mcp().await;
        self.join_project_hooks().await;
        self.join_project_agents().await;
        self.send_tokens().await;
        self.send_plan().await;
    }

    /// The session's current plan (none for a fresh one), so a front end
    /// shows it pinned again after a resume.
    pub(super) async fn send_plan(&self) {
        match super::sessions::plan(&self.session).await {
            Ok(plan) => self.send(HostEvent::Plan { plan }),
            Err(e) => tracing::warn!("reading the session's plan: {e}"),
        }
    }

    /// The session's stored token totals, once it is shown and its load is
    /// queued (the load's own traces are not new: nothing is counted twice).
    pub(super) async fn send_tokens(&self) {
        if !self.session.is_written() {
            return;
        }
        match super::sessions::tokens(&self.session).await {
            Ok(tokens) => self.send(HostEvent::SessionTokens { tokens }),
            Err(e) => tracing::warn!("reading the session's token use: {e}"),
        }
    }

    /// Gives `agent` this session's command runner (ending the jobs of the
    /// previous one) and says so when commands would run unconfined.
    pub(super) fn attach_shell(&mut self, agent: &Agent) -> Result<(), HostError> {
        if let Some(old) = self.shell.take() {
            old.end_jobs();
        }
        let full = agent.permits().mode() == Mode::Full;
        let shell = build::shell(
            &self.config.paths,
            &self.config.settings,
            &self.config.env,
            full,
        );
        build::register_shell(agent, &shell)?;
        self.set_hooks(agent, &shell, None);
        if let state @ (SandboxState::Unavailable { .. } | SandboxState::Partial { .. }) =
            shell.sandbox_state()
        {
            self.notice(
                NoticeLevel::Warn,
                format!("commands run {state}; in auto mode each one is asked about"),
            );
        }
        self.shell = Some(shell);
        Ok(())
    }

    /// How the agents this host makes ask and answer.
    pub(super) fn gate(&self) -> build::Gate {
        build::Gate {
            default_mode: self.config.default_mode,
            approver: self
                .shared
                .approver
                .answers()
                .then(|| self.shared.approver.clone() as Arc<dyn crate::permission::Approver>),
            asker: self
                .shared
                .approver
                .answers()
                .then(|| self.shared.approver.clone() as Arc<dyn crate::tool::builtin::Asker>),
            editor: self.config.editor.clone(),
        }
    }

    /// Registers `task` on `agent` when `[agents] enabled`, with `project`'s
    /// agent definitions besides the user's (see
    /// [`super::subagents::register`]).
    pub(super) fn register_subagents(&self, agent: &Agent, project: Vec<AgentDefinition>) {
        let Ok(adaptor) = &self.adaptor else {
            return;
        };
        let children = super::subagents::Parts {
            cwd: self.config.cwd.clone(),
            paths: self.config.paths.clone(),
            settings: self.config.settings.clone(),
            adaptor: adaptor.clone(),
            manager: self.manager.clone(),
            parent: self.session.clone(),
            shell: self.shell.clone(),
            gate: self.gate(),
            hooks: self.shared.approver.hooks.clone(),
        };
        for warning in super::subagents::register(agent, children, project) {
            self.notice(NoticeLevel::Warn, warning);
        }
    }

    /// Puts an agent on the current session (when there is a model) without
    /// re-showing the session: its shell, notices, MCP servers (and the
    /// project's accepted or not yet offered `.mcp.json`), and the session's
    /// history as its first job.
    pub(super) fn put_agent(&mut self) {
        let adaptor = match &self.adaptor {
            Ok(adaptor) => adaptor.clone(),
            Err(why) => {
                self.slot = Slot::NoModel { why: why.clone() };
                return;
            }
        };
        let gate = self.gate();
        let built = build::agent(
            &self.config.cwd,
            &self.config.paths,
            &self.config.settings,
            adaptor.clone(),
            Some(self.session.clone()),
            &gate,
        );
        let (agent, warnings) = match built {
            Ok(built) => built,
            Err(e) => {
                self.slot = Slot::Failed { why: e.to_string() };
                return;
            }
        };
        for warning in warnings {
            self.notice(NoticeLevel::Warn, warning);
        }
        if let Err(e) = self.attach_shell(&agent) {
            self.notice(NoticeLevel::Error, e.to_string());
        }
        self.register_subagents(&agent, Vec::new());
        let jobs = JobOps::default();
        let forwarder = Forwarder::start(
            agent.subscribe_all(),
            jobs.clone(),
            self.shared.events.clone(),
        );
        let mcp = build::mcp_servers(&agent, &self.config.cwd, &self.config.settings);
        if self.session.is_written() {
            // Esc cancels it like any job; the next prompt then loads.
            let _ = agent.submit_load();
        }
        *lock(&self.shared.agent) = Some(agent.clone());
        self.slot = Slot::Ready(Box::new(Ready {
            agent,
            forwarder,
            jobs,
            mcp,
        }));
    }

    /// Closes the current session and opens `session` (already claimed).
    pub(super) async fn switch_to(&mut self, session: AgentSession) {
        self.detach().await;
        self.session = session;
        self.attach(None).await;
    }

    /// Stops the current agent, waits for its interrupted turn to end,
    /// forwards what it said last and marks the session idle.
    pub(super) async fn detach(&mut self) {
        *lock(&self.shared.agent) = None;
        let why = self.why_no_agent();
        if let Slot::Ready(ready) = std::mem::replace(&mut self.slot, Slot::NoModel { why }) {
            let Ready {
                agent,
                forwarder,
                mcp,
                ..
            } = *ready;
            drop(mcp);
            agent.interrupt("session closed");
            let _ = agent.take_queued();
            let _ = tokio::time::timeout(DETACH_WAIT, agent.idle()).await;
            forwarder.finish().await;
        }
        // Background jobs end with their session.
        if let Some(shell) = self.shell.take() {
            shell.end_jobs();
        }
        if let Err(e) = self.session.release().await {
            tracing::warn!("marking session {} idle: {e}", self.session.id());
        }
    }
}
