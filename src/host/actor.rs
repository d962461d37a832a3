//! The host's actor: owns the session, the agent slot, the MCP servers, the
//! command runner and the user's commands, and answers ops one at a time.
//! Events of the agent are forwarded by a task of their own
//! ([`Forwarder`]), so nothing here holds them back.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedReceiver;

use super::forward::{Forwarder, JobOps};
use super::user_shell::UserNotes;
use super::{Envelope, HostConfig, HostError, McpWait, Shared, build, lock};
use crate::agent::Agent;
use crate::ai::Adaptor;
use crate::mcp::{McpServers, ServerState};
use crate::permission::Mode;
use crate::protocol::{
    Effort, HostEvent, ModelChoice, NoticeLevel, Op, OpId, PromptPart, StatusSnapshot, Submission,
};
use crate::session::{AgentSession, SessionManager};
use crate::tool::builtin::shell::Shell;

/// Where the agent of the open session stands.
pub(super) enum Slot {
    /// No model is configured or usable; the reason says what to set.
    NoModel {
        /// Why.
        why: String,
    },
    /// A model exists but the agent could not be built (tools failed to
    /// register).
    Failed {
        /// Why.
        why: String,
    },
    /// The agent runs, with what belongs to it.
    Ready(Box<Ready>),
}

/// A running agent and what lives and dies with it.
pub(super) struct Ready {
    pub(super) agent: Agent,
    /// The task forwarding its events.
    pub(super) forwarder: Forwarder,
    /// Which op made each of its jobs.
    pub(super) jobs: JobOps,
    /// Its MCP servers.
    pub(super) mcp: McpServers,
}

/// The actor's state.
pub(super) struct Actor {
    pub(super) config: HostConfig,
    pub(super) manager: SessionManager,
    pub(super) shared: Arc<Shared>,
    /// The model adaptor, or why there is none.
    pub(super) adaptor: Result<Arc<dyn Adaptor>, String>,
    pub(super) session: AgentSession,
    pub(super) slot: Slot,
    /// This session's command runner (its jobs, the user's `!cmd`).
    pub(super) shell: Option<Shell>,
    /// The user's `!cmd`s run so far (for pane ids).
    pub(super) user_runs: u64,
    /// What the user's commands printed, for the next prompt.
    pub(super) user_notes: UserNotes,
}

/// How a prompt was asked for, when not typed as it is sent.
#[derive(Debug, Default)]
pub(super) struct Asked {
    /// What the user typed (`/fix issue-12`): given back if the prompt is
    /// rejected, and the session's title from it.
    pub(super) shown: Option<String>,
    /// The turn may not change anything (`/review`): its tool calls are
    /// decided in the read-only mode, whatever the session's mode.
    pub(super) read_only: bool,
}

/// Runs the host until [`Op::Quit`] or until every handle is gone.
pub(super) async fn run(
    config: HostConfig,
    manager: SessionManager,
    shared: Arc<Shared>,
    mut ops: UnboundedReceiver<Envelope>,
) {
    let mut actor = match Actor::start(config, manager, shared.clone()).await {
        Ok(actor) => actor,
        Err(e) => return refuse_everything(&shared, ops, e.to_string()).await,
    };
    while let Some(envelope) = ops.recv().await {
        if envelope.submission.op == Op::Quit {
            break;
        }
        if let Err(e) = actor.handle(envelope).await {
            actor.notice(NoticeLevel::Error, e.to_string());
        }
    }
    actor.detach().await;
}

/// Without a session nothing can run: every prompt goes back with the
/// reason, until the front end quits.
async fn refuse_everything(shared: &Shared, mut ops: UnboundedReceiver<Envelope>, reason: String) {
    let reason = format!("no session could be opened: {reason}");
    shared.notice(NoticeLevel::Error, reason.clone());
    while let Some(Envelope { submission, .. }) = ops.recv().await {
        match submission.op {
            Op::Quit => return,
            Op::Prompt { text, .. } => shared.send(HostEvent::PromptRejected {
                op: submission.id,
                text,
                reason: reason.clone(),
            }),
            _ => {}
        }
    }
}

impl Actor {
    /// Opens the chosen session and puts an agent on it. A session that
    /// cannot be opened leaves a fresh one, with the reason shown; fails only
    /// when not even that can be made.
    async fn start(
        config: HostConfig,
        manager: SessionManager,
        shared: Arc<Shared>,
    ) -> Result<Self, HostError> {
        // Known before anything loads: the status line never shows a stale model.
        shared.send(HostEvent::Status {
            status: StatusSnapshot {
                model: config.settings.model.clone(),
                provider: config.settings.provider.name.clone(),
                context_window: config.settings.context_window,
                ..StatusSnapshot::default()
            },
        });
        let adaptor = match &config.model_missing {
            None => build::adaptor(&config.settings).map_err(|e| e.to_string()),
            Some(message) => Err(message.clone()),
        };
        let (session, note) = super::sessions::start_session(&manager, &config).await?;
        let slot = Slot::NoModel {
            why: adaptor.as_ref().err().cloned().unwrap_or_default(),
        };
        let mut actor = Self {
            config,
            manager,
            shared,
            adaptor,
            session,
            slot,
            shell: None,
            user_runs: 0,
            user_notes: UserNotes::default(),
        };
        actor.attach(note).await;
        if actor.config.choice == build::SessionChoice::Pick {
            actor.offer_sessions().await;
        }
        Ok(actor)
    }

    /// The ready agent, if any.
    pub(super) fn agent(&self) -> Option<&Agent> {
        match &self.slot {
            Slot::Ready(ready) => Some(&ready.agent),
            _ => None,
        }
    }

    /// The MCP servers of the ready agent, if any.
    pub(super) fn mcp(&self) -> Option<&McpServers> {
        match &self.slot {
            Slot::Ready(ready) => Some(&ready.mcp),
            _ => None,
        }
    }

    /// Why no agent runs, in words.
    pub(super) fn why_no_agent(&self) -> String {
        match &self.slot {
            Slot::NoModel { why } | Slot::Failed { why } => why.clone(),
            Slot::Ready(_) => "the agent is running".into(),
        }
    }

    async fn handle(&mut self, envelope: Envelope) -> Result<(), HostError> {
        let Submission { id, op } = envelope.submission;
        match op {
            Op::Prompt { text, parts } => {
                let text = self.user_notes.prefix(text);
                let asked = Asked::default();
                self.prompt_as(id, text, parts, envelope.interrupts, asked)
                    .await?
            }
            Op::ListCommands => self.list_commands().await,
            Op::RunCommand { name, args } => {
                self.run_command(id, name, args, envelope.interrupts)
                    .await?
            }
            Op::DecideProjectCommands { accept } => self.decide_project_commands(accept).await,
            Op::UserShell { command } => self.user_shell(command),
            Op::Undo | Op::Diff => match self.agent() {
                Some(agent) => {
                    let (agent, shared) = (agent.clone(), self.shared.clone());
                    let undo = matches!(op, Op::Undo);
                    tokio::spawn(async move {
                        let (level, text) = match undo_or_diff(&agent, undo).await {
                            Err(e) => (NoticeLevel::Error, e.to_string()),
                            Ok(text) => (NoticeLevel::Info, text),
                        };
                        shared.reply(id, level, text);
                    });
                }
                None => self.reply(id, NoticeLevel::Error, self.why_no_agent()),
            },
            Op::Permissions => match self.agent() {
                Some(agent) => self.reply(id, NoticeLevel::Info, agent.permits().describe()),
                None => self.reply(id, NoticeLevel::Error, self.why_no_agent()),
            },
            Op::SetPermissionMode { mode } => self.set_mode(id, mode),
            Op::Jobs => self.jobs(),
            Op::RestartMcp { server } => self.restart_mcp(&server),
            Op::DecideProjectMcp { accept } => self.decide_project_mcp(accept).await,
            Op::Hooks => self.list_hooks().await,
            Op::DecideProjectHooks { accept } => self.decide_project_hooks(accept).await,
            Op::Agents => self.list_agents().await,
            Op::DecideProjectAgents { accept } => self.decide_project_agents(accept).await,
            Op::KillJob { job } => self.kill_job(&job).await,
            Op::Withdraw { job } => {
                if let Some(agent) = self.agent() {
                    agent.withdraw(job);
                }
            }
            Op::Compact => match &self.slot {
                Slot::Ready(ready) => {
                    // Stamped with the op like a prompt's job (the `queued`
                    // update is sent from inside `submit_compact`).
                    let mut jobs = lock(&ready.jobs);
                    let job = ready.agent.submit_compact()?;
                    jobs.insert(job, id);
                }
                _ => self.notice(NoticeLevel::Error, self.why_no_agent()),
            },
            Op::NewSession => {
                let session = self.manager.draft(&self.config.cwd, None).await?;
                self.switch_to(session).await;
            }
            Op::Resume { session } => self.resume(&session).await?,
            Op::PickSession => self.offer_sessions().await,
            Op::ListModels => {
                // The provider's list may take a moment; ops keep flowing.
                let (settings, shared) = (self.config.settings.clone(), self.shared.clone());
                tokio::spawn(async move {
                    let models = super::reports::models(&settings).await;
                    shared.send(HostEvent::Models { models });
                });
            }
            Op::SetModel { choice } => self.set_model(choice).await?,
            Op::SetEffort { effort } => self.set_effort(effort)?,
            Op::SetTitle { title } => {
                if !self.session.set_draft_title(&title) {
                    self.manager.set_title(self.session.id(), &title).await?;
                }
                self.notice(NoticeLevel::Info, format!("session renamed to “{title}”"));
            }
            Op::Export { path } => self.export(path).await?,
            Op::ListFiles => self.list_files(),
            Op::CheckMentions { paths } => self.check_mentions(paths),
            Op::Report { kind } => {
                let report = super::reports::build(self, kind).await?;
                self.send(HostEvent::Report { report });
            }
            Op::ListPrompts => self.list_prompts(id).await?,
            Op::Rewind {
                to_turn,
                conversation,
                code,
            } => self.rewind(id, to_turn, conversation, code).await?,
            Op::Fork { before_turn } => self.fork(id, before_turn).await?,
            // Taken by the handle itself; they never reach the actor.
            Op::Interrupt | Op::Approval { .. } | Op::Answer { .. } | Op::Quit => {}
        }
        Ok(())
    }

    /// Queues a prompt, or hands it back with the reason it cannot run.
    pub(super) async fn prompt_as(
        &mut self,
        op: OpId,
        text: String,
        parts: Vec<PromptPart>,
        interrupts: u64,
        asked: Asked,
    ) -> Result<(), HostError> {
        let Asked { shown, read_only } = asked;
        let given_back = shown.clone().unwrap_or_else(|| text.clone());
        let Some(agent) = self.agent().cloned() else {
            let reason = self.why_no_agent();
            let text = given_back;
            self.send(HostEvent::PromptRejected { op, text, reason });
            return Ok(());
        };
        // Off the actor: an image may be megabytes to read and hash.
        let resolved = {
            let (cwd, text) = (self.config.cwd.clone(), text.clone());
            tokio::task::spawn_blocking(move || super::parts::with_parts(&cwd, &text, &parts))
                .await
                .unwrap_or_else(|e| Err(format!("reading the prompt's parts failed: {e}")))
        };
        let (full_text, images) = match resolved {
            Ok(resolved) => resolved,
            Err(reason) => {
                let text = given_back;
                self.send(HostEvent::PromptRejected { op, text, reason });
                return Ok(());
            }
        };
        let title = self
            .config
            .title
            .clone()
            .unwrap_or_else(|| build::title_of(shown.as_deref().unwrap_or(&text)));
        // An Esc meanwhile ends the waiting at once: the prompt is then sent
        // and interrupted below, as if it had been queued already.
        tokio::select! {
            biased;
            () = self.shared.interrupted_after(interrupts) => {}
            titled = self.before_sending(&title) => titled?,
        }
        let Slot::Ready(ready) = &self.slot else {
            return Ok(());
        };
        // Under the lock the forwarder reads: the `queued` update sent from
        // inside `submit` already finds its op id.
        let mut jobs = lock(&ready.jobs);
        let submitted = match read_only {
            true => agent.submit_read_only(full_text, images),
            false => agent.submit_prompt(full_text, images),
        };
        match submitted {
            Ok(job) => {
                jobs.insert(job, op);
                drop(jobs);
                if self.shared.interrupts() != interrupts {
                    // Esc came after it was sent, before it reached the
                    // agent (a database call, the MCP grace): the Esc
                    // applies to it as if it had been queued already.
                    agent.interrupt("interrupted by user");
                    agent.take_queued();
                }
            }
            Err(e) => {
                drop(jobs);
                let reason = e.to_string();
                let text = given_back;
                self.send(HostEvent::PromptRejected { op, text, reason });
            }
        }
        Ok(())
    }

    /// What comes before a prompt is sent: the session's title (from its
    /// first prompt) and the wait for MCP servers still starting.
    async fn before_sending(&self, title: &str) -> Result<(), HostError> {
        if !self.session.set_draft_title(title) {
            let info = self.manager.info(self.session.id()).await?;
            if info.title.is_none_or(|t| t.is_empty()) {
                self.manager.set_title(self.session.id(), title).await?;
            }
        }
        if let Some(mcp) = self.mcp() {
            match self.config.mcp_wait {
                // Servers still starting get a short grace, counted from
                // their start: a prompt typed later never waits.
                McpWait::Grace => mcp.settled_in_grace(build::MCP_GRACE).await,
                McpWait::Settled => {
                    mcp.settled(mcp.longest_startup() + build::MCP_GRACE).await;
                }
            }
        }
        Ok(())
    }

    /// Uses `mode` from the next gated call on (the tools offered follow at
    /// the next agent: a read-only start has no writing tools to unlock).
    fn set_mode(&mut self, op: OpId, mode: Mode) {
        let Some(agent) = self.agent() else {
            return self.reply(op, NoticeLevel::Error, self.why_no_agent());
        };
        agent.set_permits(agent.permits().with_mode(mode));
        self.config.settings.permissions.mode = Some(mode);
        self.reply(op, NoticeLevel::Info, format!("permission mode: {mode}"));
        self.status();
    }

    async fn set_model(&mut self, choice: ModelChoice) -> Result<(), HostError> {
        let settings = super::reports::settings_for(&self.config.settings, &choice);
        let adaptor = build::adaptor(&settings)?;
        if let Some(agent) = self.agent() {
            agent.set_adaptor(adaptor.clone())?;
        }
        self.adaptor = Ok(adaptor);
        self.config.settings = settings;
        self.config.model_missing = None;
        self.notice(
            NoticeLevel::Info,
            format!(
                "model set to {} ({})",
                self.config.settings.model, self.config.settings.provider.name
            ),
        );
        if !matches!(self.slot, Slot::Ready(_)) {
            // The first usable model: the session gets its agent now.
            self.put_agent();
            self.join_project_mcp().await;
            self.join_project_hooks().await;
            self.join_project_agents().await;
        }
        self.status();
        Ok(())
    }

    /// `/effort`: the next request asks for `effort` (a new adaptor; the
    /// running request keeps its own).
    fn set_effort(&mut self, effort: Option<Effort>) -> Result<(), HostError> {
        self.config.settings.effort = effort;
        if self.adaptor.is_ok() {
            let adaptor = build::adaptor(&self.config.settings)?;
            if let Some(agent) = self.agent() {
                agent.set_adaptor(adaptor.clone())?;
            }
            self.adaptor = Ok(adaptor);
        }
        let now = effort.map_or("off (the model's default)", |e| e.as_str());
        self.notice(NoticeLevel::Info, format!("reasoning effort: {now}"));
        self.status();
        Ok(())
    }

    async fn export(&self, path: Option<String>) -> Result<(), HostError> {
        if !self.session.is_written() {
            self.notice(
                NoticeLevel::Info,
                "nothing to export yet: this session has no turns",
            );
            return Ok(());
        }
        let info = self.manager.info(self.session.id()).await?;
        let events = self.session.load_all().await?;
        let io = |what: String| move |source| HostError::Io { what, source };
        let path = match path.map(std::path::PathBuf::from) {
            Some(path) if path.is_relative() => self.config.cwd.join(path),
            Some(path) => path,
            None => {
                // Never into the repository unless asked: the state directory.
                let dir = self.config.paths.state_dir.join("exports");
                std::fs::create_dir_all(&dir).map_err(io(format!("creating {}", dir.display())))?;
                dir.join(format!("{}.md", info.id))
            }
        };
        let rewinds = self.session.rewinds().await?;
        let text = crate::session::transcript::to_markdown(&info, &events, &rewinds);
        std::fs::write(&path, text).map_err(io(format!("writing {}", path.display())))?;
        self.notice(NoticeLevel::Info, format!("exported to {}", path.display()));
        Ok(())
    }

    /// Sends the status line's figures.
    pub(super) fn status(&self) {
        let s = &self.config.settings;
        self.send(HostEvent::Status {
            status: StatusSnapshot {
                model: s.model.clone(),
                provider: s.provider.name.clone(),
                context_window: s.context_window,
                window_tokens: self
                    .agent()
                    .map(|a| a.state().current_window_tokens)
                    .unwrap_or(0),
                session_id: self.session.id().to_string(),
                permission_mode: self.agent().map(|a| a.permits().mode()),
                sandbox: self.shell.as_ref().map(|s| s.sandbox_state().clone()),
                effort: s.effort,
            },
        });
    }

    /// `/mcp restart NAME`: starts the server again; says so when it is up
    /// (a failure is reported like the first one).
    fn restart_mcp(&mut self, name: &str) {
        let Some(mcp) = self.mcp() else {
            return self.notice(NoticeLevel::Error, self.why_no_agent());
        };
        if let Err(e) = mcp.restart(name) {
            return self.notice(NoticeLevel::Warn, e.to_string());
        }
        self.notice(NoticeLevel::Info, format!("restarting MCP server `{name}`"));
        let (mcp, shared, name) = (mcp.clone(), self.shared.clone(), name.to_owned());
        tokio::spawn(async move {
            mcp.settled(mcp.longest_startup()).await;
            let ready = mcp.statuses().into_iter().find_map(|s| match s.state {
                ServerState::Ready { tools } if s.name == name => Some(tools.len()),
                _ => None,
            });
            if let Some(tools) = ready {
                shared.notice(
                    NoticeLevel::Info,
                    format!("MCP server `{name}` is ready ({tools} tools)"),
                );
            }
        });
    }

    /// Walks the working directory off the loop; the listing follows as
    /// [`HostEvent::Files`] (a failure as a notice).
    fn list_files(&self) {
        let (cwd, shared) = (self.config.cwd.clone(), self.shared.clone());
        tokio::task::spawn_blocking(move || match super::workspace::list_files(&cwd) {
            Ok((entries, truncated)) => shared.send(HostEvent::Files { entries, truncated }),
            Err(e) => shared.notice(NoticeLevel::Warn, format!("cannot list files: {e}")),
        });
    }

    /// Checks mentioned paths off the loop; answered by
    /// [`HostEvent::MentionsChecked`].
    fn check_mentions(&self, paths: Vec<String>) {
        let (cwd, shared) = (self.config.cwd.clone(), self.shared.clone());
        tokio::task::spawn_blocking(move || {
            let checks = super::workspace::check_mentions(&cwd, &paths);
            shared.send(HostEvent::MentionsChecked { checks });
        });
    }

    pub(super) fn notice(&self, level: NoticeLevel, text: impl Into<String>) {
        self.shared.notice(level, text);
    }

    pub(super) fn reply(&self, op: OpId, level: NoticeLevel, text: impl Into<String>) {
        self.shared.reply(op, level, text);
    }

    pub(super) fn send(&self, event: HostEvent) {
        self.shared.send(event);
    }
}

/// `/undo`'s report or `/diff`'s diff.
async fn undo_or_diff(agent: &Agent, undo: bool) -> Result<String, crate::agent::AgentError> {
    if undo {
        return Ok(agent.undo_last_turn().await?.describe());
    }
    let diff = agent.session_diff().await?;
    Ok(if diff.is_empty() {
        "no file changes in this session".to_string()
    } else {
        diff
    })
}
