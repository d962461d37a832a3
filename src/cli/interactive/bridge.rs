//! [`RuntimeBridge`]: the only place the TUI's channels meet the [`Agent`].
//!
//! It turns UI ops into agent calls and forwards the agent's one ordered
//! stream (events, job updates, notices) as UI input. It pushes no state
//! snapshots: the UI derives running / idle / queued from the job updates.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use light_agent::agent::{Agent, AgentMessage, Notice};
use light_agent::ai::Adaptor;
use light_agent::mcp::{McpServers, ServerState};
use light_agent::permission::Mode;
use light_agent::sandbox::SandboxState;
use light_agent::session::{AgentSession, SessionManager};
use light_agent::tool::builtin::shell::Shell;
use light_agent::tui::{ModelChoice, NoticeLevel, Op, RuntimeStatus, UiInput};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio_util::sync::CancellationToken;

use super::Launch;
use super::user_shell::UserNotes;
use crate::cli::approval::TuiApprover;
use crate::cli::build;

/// Longest wait for an interrupted turn to commit its `agent_stop` when a
/// session is closed; tools and streams stop at once, so this is a guard.
const DETACH_WAIT: Duration = Duration::from_secs(5);

/// The runtime side of the interactive host.
pub(super) struct RuntimeBridge {
    pub(super) launch: Launch,
    pub(super) manager: SessionManager,
    ui: UnboundedSender<UiInput>,
    /// The model adaptor, or why there is none (no model, bad configuration).
    pub(super) adaptor: Result<Arc<dyn Adaptor>, String>,
    pub(super) session: AgentSession,
    pub(super) agent: Option<Agent>,
    /// Why there is no agent when there is an adaptor (tools failed to register).
    agent_error: Option<String>,
    messages: Option<UnboundedReceiver<AgentMessage>>,
    /// This session's command runner (its jobs, the user's `!cmd`).
    pub(super) shell: Option<Shell>,
    /// Asks the UI before a change is applied or a command runs.
    approver: Arc<TuiApprover>,
    /// The MCP servers of the current agent; replaced with it.
    pub(super) mcp: Option<McpServers>,
    /// The user's `!cmd`s run so far (for pane ids).
    pub(super) user_runs: u64,
    /// Stops the user's running commands (Esc).
    pub(super) user_cancel: CancellationToken,
    /// What the user's commands printed, for the next prompt.
    pub(super) user_notes: UserNotes,
}

impl RuntimeBridge {
    /// Opens the chosen session and puts an agent on it. A session that
    /// cannot be opened leaves a fresh one, with the reason shown; fails only
    /// when not even that can be made.
    pub(super) async fn start(
        launch: Launch,
        manager: SessionManager,
        ui: UnboundedSender<UiInput>,
    ) -> Result<Self> {
        let adaptor = match &launch.model_missing {
            None => build::adaptor(&launch.settings).map_err(|e| format!("{e:#}")),
            Some(message) => Err(message.clone()),
        };
        let (session, note) = super::sessions::start_session(&manager, &launch).await?;
        let approver = TuiApprover::new(ui.clone());
        let mut bridge = Self {
            launch,
            manager,
            approver,
            ui,
            adaptor,
            session,
            agent: None,
            agent_error: None,
            mcp: None,
            messages: None,
            shell: None,
            user_runs: 0,
            user_cancel: CancellationToken::new(),
            user_notes: UserNotes::default(),
        };
        bridge.attach(note).await;
        if bridge.launch.choice == build::SessionChoice::Pick {
            bridge.offer_sessions().await;
        }
        Ok(bridge)
    }

    /// Shows the current session and puts an agent on it; the session's
    /// history loads as the agent's first job.
    pub(super) async fn attach(&mut self, note: Option<String>) {
        match super::sessions::opened(&self.manager, &self.session, note).await {
            Ok((header, recent)) => self.send(UiInput::Session { header, recent }),
            Err(e) => self.notice(NoticeLevel::Error, format!("{e:#}")),
        }
        self.status();
        self.put_agent();
        self.send_tokens().await;
    }

    /// The session's stored token totals, once it is shown and its load is
    /// queued; no agent message is forwarded meanwhile, so no new trace can
    /// be counted twice.
    async fn send_tokens(&self) {
        if !self.session.is_written() {
            return;
        }
        match super::sessions::tokens(&self.session).await {
            Ok(tokens) => self.send(UiInput::SessionTokens(tokens)),
            Err(e) => tracing::warn!("reading the session's token use: {e:#}"),
        }
    }

    /// Gives `agent` this session's command runner (ending the jobs of the
    /// previous one) and says so when commands would run unconfined.
    fn attach_shell(&mut self, agent: &Agent) -> Result<()> {
        if let Some(old) = self.shell.take() {
            old.end_jobs();
        }
        let full = agent.permits().mode() == Mode::Full;
        let shell = build::shell(
            &self.launch.paths,
            &self.launch.settings,
            &self.launch.env,
            full,
        );
        build::register_shell(agent, &shell)?;
        if let state @ (SandboxState::Unavailable { .. } | SandboxState::Partial { .. }) =
            shell.sandbox_state()
        {
            self.notice(
                NoticeLevel::Warn,
                format!("commands run {state}; in auto mode each one is asked about"),
            );
        }
        self.shell = Some(shell);
        self.status();
        Ok(())
    }

    /// Serves ops until the UI quits, forwarding the agent's stream meanwhile.
    pub(super) async fn serve(&mut self, mut ops: UnboundedReceiver<Op>) {
        loop {
            tokio::select! {
                op = ops.recv() => match op {
                    Some(Op::Quit) | None => return,
                    Some(op) => {
                        if let Err(e) = self.handle(op).await {
                            self.notice(NoticeLevel::Error, format!("{e:#}"));
                        }
                    }
                },
                Some(message) = recv(&mut self.messages) => self.forward(message),
            }
        }
    }

    fn forward(&self, message: AgentMessage) {
        let input = match message {
            AgentMessage::Event(event) => UiInput::Event(event),
            AgentMessage::Job(update) => UiInput::Job(update),
            AgentMessage::Notice(Notice::Retrying {
                attempt,
                delay,
                message,
            }) => UiInput::Retrying {
                attempt,
                delay,
                message,
            },
            AgentMessage::Notice(Notice::PartialDropped) => UiInput::PartialDropped,
            AgentMessage::Notice(Notice::Warning(text)) => UiInput::Notice {
                level: NoticeLevel::Warn,
                text,
            },
            AgentMessage::Notice(Notice::ToolOutput { call_id, text }) => {
                UiInput::ToolOutput { call_id, text }
            }
        };
        self.send(input);
    }

    /// `/mcp restart NAME`: starts the server again; says so when it is up
    /// (a failure is reported like the first one).
    fn restart_mcp(&mut self, name: &str) {
        let Some(mcp) = &self.mcp else {
            self.notice(NoticeLevel::Error, self.why_no_agent());
            return;
        };
        if let Err(e) = mcp.restart(name) {
            self.notice(NoticeLevel::Warn, e.to_string());
            return;
        }
        self.notice(NoticeLevel::Info, format!("restarting MCP server `{name}`"));
        let (mcp, ui, name) = (mcp.clone(), self.ui.clone(), name.to_owned());
        tokio::spawn(async move {
            mcp.settled(mcp.longest_startup()).await;
            let ready = mcp.statuses().into_iter().find_map(|s| match s.state {
                ServerState::Ready { tools } if s.name == name => Some(tools.len()),
                _ => None,
            });
            if let Some(tools) = ready {
                let _ = ui.send(UiInput::Notice {
                    level: NoticeLevel::Info,
                    text: format!("MCP server `{name}` is ready ({tools} tools)"),
                });
            }
        });
    }

    async fn handle(&mut self, op: Op) -> Result<()> {
        match op {
            Op::Prompt(text) => {
                let text = self.user_notes.prefix(text);
                self.prompt(text).await?
            }
            Op::UserShell(command) => self.user_shell(command),
            Op::Approval { id, answer } => self.approver.answer(id, answer),
            Op::Undo | Op::Diff => {
                if let Some(agent) = &self.agent {
                    let (agent, ui) = (agent.clone(), self.ui.clone());
                    let undo = matches!(op, Op::Undo);
                    tokio::spawn(async move {
                        let (level, text) = match undo_or_diff(&agent, undo).await {
                            Err(e) => (NoticeLevel::Error, e.to_string()),
                            Ok(text) => (NoticeLevel::Info, text),
                        };
                        let _ = ui.send(UiInput::Notice { level, text });
                    });
                }
            }
            Op::Permissions => {
                if let Some(agent) = &self.agent {
                    self.notice(NoticeLevel::Info, agent.permits().describe());
                }
            }
            Op::Jobs => self.jobs(),
            Op::RestartMcp(name) => self.restart_mcp(&name),
            Op::DecideProjectMcp { accept } => self.decide_project_mcp(accept).await,
            Op::KillJob(id) => self.kill_job(&id).await,
            Op::Interrupt => {
                self.stop_user_commands();
                if let Some(agent) = &self.agent {
                    agent.interrupt("interrupted by user");
                    // Reported as a Withdrawn update; the UI puts them back
                    // into the composer.
                    agent.take_queued();
                }
            }
            Op::Withdraw(id) => {
                if let Some(agent) = &self.agent {
                    agent.withdraw(id);
                }
            }
            Op::Compact => match &self.agent {
                Some(agent) => {
                    agent.submit_compact()?;
                }
                None => self.notice(NoticeLevel::Error, self.why_no_agent()),
            },
            Op::NewSession => {
                let session = self.manager.draft(&self.launch.cwd, None).await?;
                self.switch_to(session).await?;
            }
            Op::Resume(input) => self.resume(&input).await?,
            Op::PickSession => self.offer_sessions().await,
            Op::ListModels => {
                // The provider's list may take a moment; ops keep flowing.
                let (settings, ui) = (self.launch.settings.clone(), self.ui.clone());
                tokio::spawn(async move {
                    let rows = super::reports::models(&settings).await;
                    let _ = ui.send(UiInput::Models(rows));
                });
            }
            Op::SetModel(choice) => self.set_model(choice)?,
            Op::SetTitle(title) => {
                if !self.session.set_draft_title(&title) {
                    self.manager.set_title(self.session.id(), &title).await?;
                }
                self.notice(NoticeLevel::Info, format!("session renamed to “{title}”"));
            }
            Op::Export(path) => self.export(path).await?,
            Op::Report(kind) => {
                let report = super::reports::build(self, kind).await?;
                self.send(UiInput::Report(report));
            }
            Op::Quit => {}
        }
        Ok(())
    }

    /// Queues a prompt, or hands it back with the reason it cannot run.
    async fn prompt(&mut self, text: String) -> Result<()> {
        let Some(agent) = self.agent.clone() else {
            let reason = self.why_no_agent();
            self.send(UiInput::PromptRejected { text, reason });
            return Ok(());
        };
        let title = build::title_of(&text);
        if !self.session.set_draft_title(&title) {
            let info = self.manager.info(self.session.id()).await?;
            if info.title.is_none_or(|t| t.is_empty()) {
                self.manager.set_title(self.session.id(), &title).await?;
            }
        }
        if let Some(mcp) = &self.mcp {
            // Servers still starting get a short grace, counted from their
            // start: a prompt typed later never waits.
            mcp.settled_in_grace(build::MCP_GRACE).await;
        }
        if let Err(e) = agent.submit(text.clone()) {
            self.send(UiInput::PromptRejected {
                text,
                reason: e.to_string(),
            });
        }
        Ok(())
    }

    pub(super) fn why_no_agent(&self) -> String {
        match (&self.adaptor, &self.agent_error) {
            (Err(reason), _) => reason.clone(),
            (Ok(_), Some(reason)) => reason.clone(),
            (Ok(_), None) => "the agent is not running".to_string(),
        }
    }

    fn set_model(&mut self, choice: ModelChoice) -> Result<()> {
        let settings = super::reports::settings_for(&self.launch.settings, &choice);
        let adaptor = build::adaptor(&settings)?;
        if let Some(agent) = &self.agent {
            agent.set_adaptor(adaptor.clone())?;
        }
        let had_adaptor = self.adaptor.is_ok();
        self.adaptor = Ok(adaptor);
        self.launch.settings = settings;
        self.launch.model_missing = None;
        self.notice(
            NoticeLevel::Info,
            format!(
                "model set to {} ({})",
                self.launch.settings.model, self.launch.settings.provider.name
            ),
        );
        self.status();
        if !had_adaptor && self.agent.is_none() {
            // The first usable model: the session gets its agent now.
            self.put_agent();
        }
        Ok(())
    }

    /// Puts an agent on the current session (when there is a model) without
    /// re-showing the session: its shell, notices, MCP servers (and the
    /// project's accepted or not yet offered `.mcp.json`), and the session's
    /// history as its first job.
    fn put_agent(&mut self) {
        let Ok(adaptor) = &self.adaptor else {
            return;
        };
        match build::agent(
            &self.launch.cwd,
            &self.launch.paths,
            &self.launch.settings,
            adaptor.clone(),
            Some(self.session.clone()),
            &self.gate(),
        ) {
            Ok((agent, warnings)) => {
                for warning in warnings {
                    self.notice(NoticeLevel::Warn, warning);
                }
                if let Err(e) = self.attach_shell(&agent) {
                    self.notice(NoticeLevel::Error, format!("{e:#}"));
                }
                self.messages = Some(agent.subscribe_all());
                self.mcp = Some(build::mcp_servers(
                    &agent,
                    &self.launch.cwd,
                    &self.launch.settings,
                ));
                self.join_project_mcp();
                if self.session.is_written() {
                    // Esc cancels it like any job; the next prompt then loads.
                    let _ = agent.submit_load();
                }
                self.agent = Some(agent);
                self.agent_error = None;
            }
            Err(e) => self.agent_error = Some(format!("{e:#}")),
        }
    }

    async fn export(&self, path: Option<std::path::PathBuf>) -> Result<()> {
        if !self.session.is_written() {
            self.notice(
                NoticeLevel::Info,
                "nothing to export yet: this session has no turns".into(),
            );
            return Ok(());
        }
        let info = self.manager.info(self.session.id()).await?;
        let events = self.session.load_all().await?;
        let path = match path {
            Some(path) if path.is_relative() => self.launch.cwd.join(path),
            Some(path) => path,
            None => {
                // Never into the repository unless asked: the state directory.
                let dir = self.launch.paths.state_dir.join("exports");
                std::fs::create_dir_all(&dir)?;
                dir.join(format!("{}.md", info.id))
            }
        };
        std::fs::write(&path, crate::cli::sessions::to_markdown(&info, &events))?;
        self.notice(NoticeLevel::Info, format!("exported to {}", path.display()));
        Ok(())
    }

    /// Closes the current session and opens `session` (already claimed).
    pub(super) async fn switch_to(&mut self, session: AgentSession) -> Result<()> {
        self.detach().await;
        self.session = session;
        self.attach(None).await;
        Ok(())
    }

    /// Stops the current agent, waits for its interrupted turn to end and
    /// marks the session idle.
    async fn detach(&mut self) {
        self.mcp = None;
        if let Some(agent) = self.agent.take() {
            agent.interrupt("session closed");
            let _ = agent.take_queued();
            let _ = tokio::time::timeout(DETACH_WAIT, agent.idle()).await;
        }
        // What the old agent said last (its agent_stop, job end) still shows.
        if let Some(mut messages) = self.messages.take() {
            while let Ok(message) = messages.try_recv() {
                self.forward(message);
            }
        }
        // Background jobs end with their session.
        if let Some(shell) = self.shell.take() {
            shell.end_jobs();
        }
        if let Err(e) = self.session.release().await {
            tracing::warn!("marking session {} idle: {e}", self.session.id());
        }
    }

    pub(super) async fn shutdown(&mut self) {
        self.detach().await;
    }

    /// What gated tool calls may do here: ask the user through the overlay.
    fn gate(&self) -> build::Gate {
        build::Gate {
            default_mode: Mode::Ask,
            approver: Some(self.approver.clone()),
        }
    }

    /// Sends the status line's figures.
    pub(super) fn status(&self) {
        let s = &self.launch.settings;
        self.send(UiInput::Status(RuntimeStatus {
            model: s.model.clone(),
            provider: s.provider.name.clone(),
            context_window: s.context_window,
            window_tokens: self
                .agent
                .as_ref()
                .map(|a| a.state().current_window_tokens)
                .unwrap_or(0),
            session_id: self.session.id().to_string(),
            permission_mode: self
                .agent
                .as_ref()
                .map(|a| a.permits().mode().to_string())
                .unwrap_or_default(),
            sandbox: self
                .shell
                .as_ref()
                .map(|s| s.sandbox_state().label().to_string())
                .unwrap_or_default(),
            sandbox_warning: self.shell.as_ref().is_some_and(|s| {
                matches!(
                    s.sandbox_state(),
                    SandboxState::Unavailable { .. } | SandboxState::Partial { .. }
                )
            }),
        }));
    }

    pub(super) fn notice(&self, level: NoticeLevel, text: String) {
        self.send(UiInput::Notice { level, text });
    }

    pub(super) fn send(&self, input: UiInput) {
        let _ = self.ui.send(input);
    }

    /// Another handle to the UI's input, for tasks that report later.
    pub(super) fn ui_sender(&self) -> UnboundedSender<UiInput> {
        self.ui.clone()
    }
}

/// `/undo`'s report or `/diff`'s diff.
async fn undo_or_diff(agent: &Agent, undo: bool) -> Result<String, light_agent::AgentError> {
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

async fn recv<T>(rx: &mut Option<UnboundedReceiver<T>>) -> Option<T> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}
