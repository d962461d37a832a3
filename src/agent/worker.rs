//! The task that owns the session window and runs queued jobs one by one.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio_util::sync::CancellationToken;

use super::recall::RecallTool;
use super::skill_tool::SkillRoots;
use super::{AgentError, Job, LoopConfig, Shared, TurnOutcome};
use crate::ai::Adaptor;
use crate::context::{ContextBuilder, ContextConfig, resume};
use crate::protocol::{AgentEvent, Meta, StopCause};
use crate::session::AgentSession;
use crate::tool::ToolRegistry;
use crate::tool::fs::Root;

pub(super) struct WorkerParts {
    pub shared: Arc<Shared>,
    pub tools: ToolRegistry,
    pub root: Result<Root, String>,
    pub session: Option<AgentSession>,
    pub adaptor: Arc<dyn Adaptor>,
    pub context: ContextConfig,
    pub loop_config: LoopConfig,
    pub recall: RecallTool,
    pub skill_roots: SkillRoots,
}

pub(super) struct Worker {
    pub(super) shared: Arc<Shared>,
    pub(super) tools: ToolRegistry,
    /// The working directory's handle, or why it could not be opened
    /// (every tool call then fails with that reason).
    pub(super) root: Result<Root, String>,
    pub(super) session: Option<AgentSession>,
    pub(super) adaptor: Arc<dyn Adaptor>,
    pub(super) context: ContextBuilder,
    pub(super) loop_config: LoopConfig,
    pub(super) recall: RecallTool,
    pub(super) skill_roots: SkillRoots,
    /// The context window: every canonical event since the latest summary.
    pub(super) window: Vec<AgentEvent>,
    next_turn: Option<u64>,
}

impl Worker {
    pub(super) fn new(parts: WorkerParts) -> Self {
        Self {
            shared: parts.shared,
            tools: parts.tools,
            root: parts.root,
            session: parts.session,
            adaptor: parts.adaptor,
            context: ContextBuilder::new(parts.context),
            loop_config: parts.loop_config,
            recall: parts.recall,
            skill_roots: parts.skill_roots,
            window: Vec::new(),
            next_turn: None,
        }
    }

    pub(super) async fn run(mut self) {
        while let Some((job, cancel)) = self.next_job().await {
            match job {
                Job::Prompt { text, done } => {
                    let outcome = self.run_turn(text, cancel).await;
                    let _ = done.send(outcome);
                }
                Job::LoadSession { done } => {
                    let _ = done.send(self.load_session().await);
                }
                Job::Compact { done } => {
                    let outcome = self.compact().await;
                    let _ = done.send(outcome);
                }
                Job::SetAdaptor { adaptor } => self.adaptor = adaptor,
                Job::Undo { done } => {
                    let _ = done.send(self.undo().await);
                }
                Job::Diff { done } => {
                    let _ = done.send(self.diff().await);
                }
            }
        }
    }

    /// Waits for the next job; a prompt job comes with its turn's token,
    /// already registered as the running turn.
    async fn next_job(&self) -> Option<(Job, CancellationToken)> {
        loop {
            {
                let mut queue = self.shared.lock();
                if let Some(job) = queue.jobs.pop_front() {
                    let cancel = CancellationToken::new();
                    if matches!(job, Job::Prompt { .. }) {
                        queue.running = Some(cancel.clone());
                        queue.interrupt_reason = None;
                    }
                    return Some((job, cancel));
                }
                if queue.closed {
                    return None;
                }
            }
            self.shared.wake.notified().await;
        }
    }

    async fn undo(&self) -> Result<super::undo::UndoReport, AgentError> {
        let (Some(session), Ok(root)) = (&self.session, &self.root) else {
            return Ok(super::undo::UndoReport::default());
        };
        super::undo::undo_last_turn(session, root)
            .await
            .map_err(|e| AgentError::Session(e.to_string()))
    }

    async fn diff(&self) -> Result<String, AgentError> {
        let (Some(session), Ok(root)) = (&self.session, &self.root) else {
            return Ok(String::new());
        };
        super::undo::session_diff(session, root)
            .await
            .map_err(|e| AgentError::Session(e.to_string()))
    }

    async fn load_session(&mut self) -> Result<(), AgentError> {
        // Another session's files were seen by another agent.
        self.shared.seen.clear();
        let Some(session) = &self.session else {
            return Ok(());
        };
        let recent = session
            .load_recent(self.context.resume_bytes())
            .await
            .map_err(|e| AgentError::Session(e.to_string()))?;
        let window = resume::window(recent.summary, recent.skipped_through, recent.events);
        let last = session
            .last_turn()
            .await
            .map_err(|e| AgentError::Session(e.to_string()))?;
        self.window = window;
        self.next_turn = Some(last + 1);
        self.recall.remember_all(&self.window);
        self.update_window_tokens();
        Ok(())
    }

    async fn compact(&mut self) -> TurnOutcome {
        let now = Meta::new(self.next_turn().await.saturating_sub(1), u32::MAX);
        match self
            .context
            .build(
                &self.window,
                &self.tools.specs(),
                self.adaptor.as_ref(),
                true,
                now,
            )
            .await
        {
            Ok(built) => match (built.summary, built.window) {
                (Some(summary), Some(window)) => {
                    if let Err(message) = self.persist(&summary).await {
                        return TurnOutcome {
                            cause: StopCause::Runtime,
                            message,
                        };
                    }
                    self.shared.hub.emit(summary.clone());
                    self.window = window;
                    self.update_window_tokens();
                    TurnOutcome {
                        cause: StopCause::Done,
                        message: "older steps were summarised".into(),
                    }
                }
                _ => TurnOutcome {
                    cause: StopCause::Done,
                    message: "nothing to compact yet".into(),
                },
            },
            Err(e) => TurnOutcome {
                cause: StopCause::Llm,
                message: e.to_string(),
            },
        }
    }

    /// The number of the next turn, unique within the session.
    pub(super) async fn next_turn(&mut self) -> u64 {
        if let Some(turn) = self.next_turn {
            return turn;
        }
        let last_in_window = self.window.iter().map(|e| e.meta().turn).max().unwrap_or(0);
        let last_in_log = match &self.session {
            Some(session) => session.last_turn().await.unwrap_or(0),
            None => 0,
        };
        let turn = last_in_window.max(last_in_log) + 1;
        self.next_turn = Some(turn);
        turn
    }

    pub(super) fn advance_turn(&mut self) {
        self.next_turn = self.next_turn.map(|t| t + 1);
    }

    /// Shows, records and persists a canonical event. Persisting failed →
    /// the message for the `agent_stop(runtime)` that must follow.
    pub(super) async fn commit(&mut self, event: AgentEvent) -> Result<(), String> {
        self.shared.hub.emit(event.clone());
        self.recall.remember(&event);
        let persisted = self.persist(&event).await;
        self.window.push(event);
        persisted
    }

    async fn persist(&self, event: &AgentEvent) -> Result<(), String> {
        match &self.session {
            Some(session) => session
                .append(event)
                .await
                .map_err(|e| format!("saving the session failed, so the turn was stopped: {e}")),
            None => Ok(()),
        }
    }

    /// Publishes the estimated size of the request the window gives now
    /// (what the status line shows) and the recall page that fits beside it.
    pub(super) fn update_window_tokens(&self) {
        let specs = self.tools.specs();
        let tokens = self.context.request_tokens(&self.window, &specs);
        self.shared.window_tokens.store(tokens, Ordering::Relaxed);
        self.recall
            .set_page_chars(self.context.recall_page_chars(&self.window, &specs));
    }

    pub(super) fn interrupt_reason(&self) -> String {
        self.shared
            .lock()
            .interrupt_reason
            .clone()
            .unwrap_or_else(|| "user interrupted".into())
    }
}
