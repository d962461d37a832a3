//! The interactive host: the TUI on one side, the runtime on the other,
//! joined only by two channels (`Op` in, `UiInput` out).
//!
//! [`RuntimeBridge`] owns the session manager and the current [`Agent`]; it
//! turns UI operations into agent calls and agent events into UI input.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use light_agent::agent::{Agent, Notice};
use light_agent::ai::Adaptor;
use light_agent::config::{Paths, Settings};
use light_agent::mcp::McpServers;
use light_agent::permission::Mode;
use light_agent::protocol::AgentEvent;
use light_agent::session::{AgentSession, SessionManager, SessionStatus};
use light_agent::tui::{
    self, NoticeLevel, Op, RuntimeStatus, SessionHeader, SessionRow, TuiExit, TuiOptions, UiInput,
};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::Exit;
use super::approval::TuiApprover;
use super::build::{self, FreshHint, SessionChoice};

/// Events of the latest session printed into scrollback at start.
const RECENT_EVENTS: usize = 400;

/// What the interactive host starts with.
pub struct Launch {
    /// Canonical working directory.
    pub cwd: PathBuf,
    /// Config, data and log locations.
    pub paths: Paths,
    /// Resolved settings (`model_missing` says whether a model is usable).
    pub settings: Settings,
    /// Why no model can be used, if none can.
    pub model_missing: Option<String>,
    /// Which session to open.
    pub choice: SessionChoice,
    /// A prompt to send at once.
    pub initial_prompt: Option<String>,
}

/// Runs the TUI until the user quits.
pub async fn run(launch: Launch) -> Result<Exit> {
    let manager = SessionManager::open(&launch.paths.db_file)?;
    let (op_tx, op_rx) = unbounded_channel();
    let (ui_tx, ui_rx) = unbounded_channel();
    let opts = TuiOptions {
        history_path: Some(super::history_file::history_path(
            &launch.paths.data_dir,
            &launch.cwd,
        )),
        show_thoughts: launch.settings.tui.show_thoughts,
        tool_preview_lines: launch.settings.tui.tool_preview_lines,
        no_model_message: launch.model_missing.clone(),
        initial_prompt: launch.initial_prompt.clone(),
    };
    // Known before anything loads: the status line never shows a stale model.
    let _ = ui_tx.send(UiInput::Status(RuntimeStatus {
        model: launch.settings.model.clone(),
        provider: launch.settings.provider.name.clone(),
        context_window: launch.settings.context_window,
        ..RuntimeStatus::default()
    }));
    // The UI draws its first frame while the session loads.
    let runtime = tokio::spawn(async move {
        match RuntimeBridge::start(launch, manager, ui_tx.clone()).await {
            Ok(mut bridge) => {
                bridge.serve(op_rx).await;
                bridge.shutdown().await;
            }
            Err(e) => {
                let text = format!("could not open the session: {e:#}");
                let _ = ui_tx.send(UiInput::Notice {
                    level: NoticeLevel::Error,
                    text,
                });
                let mut op_rx = op_rx;
                while !matches!(op_rx.recv().await, Some(Op::Quit) | None) {}
            }
        }
    });
    let ui = tui::run(opts, op_tx, ui_rx).await;
    // The op channel is closed now; the bridge interrupts, flushes and marks
    // the session idle before we report back.
    let _ = runtime.await;
    Ok(match ui? {
        TuiExit::Quit => Exit::Success,
        TuiExit::Signal(number) => Exit::Signal(number),
    })
}

struct RuntimeBridge {
    launch: Launch,
    manager: SessionManager,
    ui: UnboundedSender<UiInput>,
    adaptor: Option<Arc<dyn Adaptor>>,
    session: AgentSession,
    agent: Option<Agent>,
    events: Option<UnboundedReceiver<AgentEvent>>,
    notices: Option<UnboundedReceiver<Notice>>,
    /// The MCP servers of the current agent; replaced with it.
    mcp: Option<McpServers>,
    /// Asks the UI before a change is applied.
    approver: Arc<TuiApprover>,
}

impl RuntimeBridge {
    async fn start(
        launch: Launch,
        manager: SessionManager,
        ui: UnboundedSender<UiInput>,
    ) -> Result<Self> {
        let adaptor = match launch.model_missing {
            None => Some(build::adaptor(&launch.settings)?),
            Some(_) => None,
        };
        let (session, note) = open_start_session(&manager, &launch.cwd, &launch.choice).await?;
        let approver = TuiApprover::new(ui.clone());
        let mut bridge = Self {
            launch,
            manager,
            approver,
            ui,
            adaptor,
            session,
            agent: None,
            events: None,
            notices: None,
            mcp: None,
        };
        bridge.attach(note).await?;
        Ok(bridge)
    }

    /// Shows the current session and puts an agent on it.
    async fn attach(&mut self, note: Option<String>) -> Result<()> {
        let info = self.manager.info(self.session.id()).await?;
        let recent = self.session.load_tail(RECENT_EVENTS).await?;
        let header = SessionHeader {
            id: info.id.clone(),
            title: info.title.clone().unwrap_or_default(),
            updated_at: if info.events == 0 { 0 } else { info.updated_at },
            turns: info.turns,
            note,
        };
        self.send(UiInput::Session { header, recent });
        self.status();
        if let Some(adaptor) = &self.adaptor {
            let (agent, warnings) = build::agent(
                &self.launch.cwd,
                &self.launch.paths,
                &self.launch.settings,
                adaptor.clone(),
                Some(self.session.clone()),
                &build::Gate {
                    default_mode: Mode::Ask,
                    approver: Some(self.approver.clone()),
                },
            )?;
            for warning in warnings {
                self.notice(NoticeLevel::Warn, warning);
            }
            agent.load_session().await?;
            self.events = Some(agent.subscribe());
            self.notices = Some(agent.subscribe_notices());
            self.mcp = Some(build::mcp_servers(
                &agent,
                &self.launch.cwd,
                &self.launch.settings,
            ));
            self.agent = Some(agent);
        }
        self.manager.mark_running(self.session.id()).await?;
        self.status();
        Ok(())
    }

    async fn serve(&mut self, mut ops: UnboundedReceiver<Op>) {
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
                Some(event) = recv(&mut self.events) => {
                    let refresh = !event.is_transient();
                    self.send(UiInput::Event(event));
                    if refresh {
                        self.status();
                    }
                }
                Some(notice) = recv(&mut self.notices) => match notice {
                    Notice::Retrying { attempt, delay, message } => self.send(UiInput::Retrying { attempt, delay, message }),
                    Notice::PartialDropped => self.send(UiInput::PartialDropped),
                    Notice::Warning(text) => self.notice(NoticeLevel::Warn, text),
                },
            }
        }
    }

    async fn handle(&mut self, op: Op) -> Result<()> {
        match op {
            Op::Prompt(text) => match &self.agent {
                Some(agent) => {
                    let agent = agent.clone();
                    let info = self.manager.info(self.session.id()).await?;
                    if info.title.is_none_or(|t| t.is_empty()) {
                        self.manager
                            .set_title(self.session.id(), &build::title_of(&text))
                            .await?;
                    }
                    let mcp = self.mcp.clone();
                    tokio::spawn(async move {
                        if let Some(mcp) = mcp {
                            mcp.settled(build::MCP_GRACE).await;
                        }
                        agent.prompt(text).await
                    });
                    self.status();
                }
                None => self.notice(
                    NoticeLevel::Error,
                    self.launch.model_missing.clone().unwrap_or_default(),
                ),
            },
            Op::Interrupt => {
                if let Some(agent) = &self.agent {
                    agent.interrupt("interrupted by user");
                    let queued = agent.take_queued();
                    if !queued.is_empty() {
                        self.send(UiInput::QueuedReturned(queued));
                    }
                }
            }
            Op::Compact => {
                if let Some(agent) = &self.agent {
                    let (agent, ui) = (agent.clone(), self.ui.clone());
                    tokio::spawn(async move {
                        let text = match agent.compact().await {
                            Ok(outcome) => outcome.message,
                            Err(e) => e.to_string(),
                        };
                        let _ = ui.send(UiInput::Notice {
                            level: NoticeLevel::Info,
                            text,
                        });
                    });
                }
            }
            Op::NewSession => {
                let session = self.manager.create(&self.launch.cwd, None).await?;
                self.switch_to(session).await?;
            }
            Op::Resume(id) => {
                let session = self.manager.open_session(&id).await?;
                let info = self.manager.info(&id).await?;
                if info.cwd != self.launch.cwd {
                    // Its tools and history belong to that directory.
                    let text = format!(
                        "session {id} belongs to {dir}; resume it there: cd {dir} && light-agent --resume {id}",
                        dir = info.cwd.display()
                    );
                    self.notice(NoticeLevel::Warn, text);
                    return Ok(());
                }
                if id != self.session.id() {
                    build::ensure_not_busy(&self.manager, &id, FreshHint::Tui).await?;
                }
                self.switch_to(session).await?;
            }
            Op::ListSessions { all_cwds } => {
                let cwd = (!all_cwds).then_some(self.launch.cwd.as_path());
                let rows = self
                    .manager
                    .list(cwd, 200)
                    .await?
                    .into_iter()
                    // An empty session has nothing to resume into.
                    .filter(|s| s.events > 0 || s.id == self.session.id())
                    .map(|s| SessionRow {
                        id: s.id,
                        title: s.title.unwrap_or_default(),
                        cwd: s.cwd.display().to_string(),
                        updated_at: s.updated_at,
                        turns: s.turns,
                    })
                    .collect();
                self.send(UiInput::Sessions(rows));
            }
            Op::SetModel(model) => self.set_model(model)?,
            Op::SetTitle(title) => {
                self.manager.set_title(self.session.id(), &title).await?;
                self.notice(NoticeLevel::Info, format!("session renamed to “{title}”"));
            }
            Op::Export(path) => {
                let info = self.manager.info(self.session.id()).await?;
                let events = self.session.load_all().await?;
                let path = path
                    .unwrap_or_else(|| self.launch.cwd.join(format!("light-agent-{}.md", info.id)));
                std::fs::write(&path, super::sessions::to_markdown(&info, &events))?;
                self.notice(NoticeLevel::Info, format!("exported to {}", path.display()));
            }
            Op::Status => {
                let s = &self.launch.settings;
                let tokens = self
                    .agent
                    .as_ref()
                    .map(|a| a.state().current_window_tokens)
                    .unwrap_or(0);
                let text = format!(
                    "session  {}\nmodel    {}\nprovider {} ({})\ncwd      {}\ntokens   {} of {}\ndatabase {}",
                    self.session.id(),
                    s.model,
                    s.provider.name,
                    s.provider.base_url,
                    self.launch.cwd.display(),
                    tokens,
                    s.context_window,
                    self.manager.db_path().display()
                );
                self.notice(NoticeLevel::Info, text);
            }
            Op::Tools => {
                let names = self
                    .agent
                    .as_ref()
                    .map(|a| a.tool().names())
                    .unwrap_or_default();
                self.notice(NoticeLevel::Info, format!("tools: {}", names.join(", ")));
            }
            Op::Skills => {
                let (skills, _) = light_agent::context::skills::discover(
                    &self.launch.cwd,
                    Some(&self.launch.paths.skills_dir),
                );
                let text = if skills.is_empty() {
                    format!(
                        "no skills (put them in .agents/skills/NAME/SKILL.md or {})",
                        self.launch.paths.skills_dir.display()
                    )
                } else {
                    skills
                        .iter()
                        .map(|s| format!("{} — {}", s.name, s.description))
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                self.notice(NoticeLevel::Info, text);
            }
            Op::Approval { id, answer } => self.approver.answer(id, answer),
            Op::Undo | Op::Diff => {
                if let Some(agent) = &self.agent {
                    let (agent, ui) = (agent.clone(), self.ui.clone());
                    let undo = matches!(op, Op::Undo);
                    tokio::spawn(async move {
                        let (level, text) = match (undo, undo_or_diff(&agent, undo).await) {
                            (_, Err(e)) => (NoticeLevel::Error, e.to_string()),
                            (_, Ok(text)) => (NoticeLevel::Info, text),
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
            Op::Quit => {}
        }
        Ok(())
    }

    fn set_model(&mut self, model: String) -> Result<()> {
        let mut settings = self.launch.settings.clone();
        settings.model = model.clone();
        if let Some(window) = light_agent::config::builtin_context_window(&model) {
            settings.context_window = window;
        }
        let adaptor = build::adaptor(&settings)?;
        if let Some(agent) = &self.agent {
            agent.set_adaptor(adaptor.clone())?;
        }
        self.adaptor = Some(adaptor);
        self.launch.settings = settings;
        self.notice(NoticeLevel::Info, format!("model set to {model}"));
        self.status();
        Ok(())
    }

    async fn switch_to(&mut self, session: AgentSession) -> Result<()> {
        self.detach().await;
        self.session = session;
        self.attach(None).await
    }

    /// Stops the current agent and marks its session idle.
    async fn detach(&mut self) {
        if let Some(agent) = self.agent.take() {
            agent.interrupt("session closed");
            let _ = agent.take_queued();
            // Let the interrupted turn commit its agent_stop before we leave.
            for _ in 0..50 {
                if !agent.state().is_running {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
        self.events = None;
        self.notices = None;
        self.mcp = None;
        let _ = self.manager.mark_idle(self.session.id()).await;
    }

    async fn shutdown(&mut self) {
        self.detach().await;
    }

    fn status(&self) {
        let state = self.agent.as_ref().map(Agent::state);
        self.send(UiInput::Status(RuntimeStatus {
            model: self.launch.settings.model.clone(),
            provider: self.launch.settings.provider.name.clone(),
            context_window: self.launch.settings.context_window,
            window_tokens: state.map(|s| s.current_window_tokens).unwrap_or(0),
            queued: state.map(|s| s.queued_prompts).unwrap_or(0),
            session_id: self.session.id().to_string(),
            is_running: state.is_some_and(|s| s.is_running),
            permission_mode: self
                .agent
                .as_ref()
                .map(|a| a.permits().mode().to_string())
                .unwrap_or_default(),
        }));
    }

    fn notice(&self, level: NoticeLevel, text: String) {
        self.send(UiInput::Notice { level, text });
    }

    fn send(&self, input: UiInput) {
        let _ = self.ui.send(input);
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

/// The session to start in; a latest session busy in another live process
/// is left alone and a new one is started, with a note saying so.
async fn open_start_session(
    manager: &SessionManager,
    cwd: &Path,
    choice: &SessionChoice,
) -> Result<(AgentSession, Option<String>)> {
    if *choice == SessionChoice::Latest {
        if let Some(latest) = manager.list(Some(cwd), 1).await?.into_iter().next() {
            if latest.status == SessionStatus::Running {
                let session = manager.create(cwd, None).await?;
                let note = format!(
                    "session {} is running in another light-agent process; started a new one",
                    latest.id
                );
                return Ok((session, Some(note)));
            }
        }
    }
    let (session, _) =
        build::open_session(manager, cwd, choice, None, FreshHint::Interactive).await?;
    Ok((session, None))
}
