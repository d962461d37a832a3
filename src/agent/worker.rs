//! The task that owns the session window and runs queued jobs one by one.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::recall::RecallTool;
use super::skill_tool::SkillRoots;
use super::{AgentError, Job, JobId, JobKind, JobUpdate, LoopConfig, Running, Shared, TurnOutcome};
use crate::ai::Adaptor;
use crate::context::{ContextBuilder, ContextConfig, resume};
use crate::protocol::{AgentEvent, Meta, Notice, NoticeLevel, StopCause};
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
    /// The base64 of the images the window's prompts carry, by hash.
    pub(super) images: crate::ai::Images,
    next_turn: Option<u64>,
    /// A session load failed or was cancelled: the next prompt loads first.
    pub(super) needs_load: bool,
}

/// The answer owed to whoever awaits a job.
enum Answer {
    Turn(Option<oneshot::Sender<TurnOutcome>>, TurnOutcome),
    Load(
        Option<oneshot::Sender<Result<(), AgentError>>>,
        Result<(), AgentError>,
    ),
    None,
}

impl Answer {
    fn send(self) {
        // A dropped receiver only means nobody waits for the answer.
        match self {
            Answer::Turn(Some(done), outcome) => drop(done.send(outcome)),
            Answer::Load(Some(done), result) => drop(done.send(result)),
            _ => {}
        }
    }
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
            images: crate::ai::Images::new(),
            next_turn: None,
            needs_load: false,
        }
    }

    pub(super) async fn run(mut self) {
        while let Some((id, job, cancel)) = self.next_job().await {
            let kind = job.kind();
            if let Some(kind) = kind {
                self.shared.hub.job(JobUpdate::Started { id, kind });
            }
            let (outcome, answer) = match job {
                Job::Prompt { text, images, done } => {
                    let outcome = self.run_turn(text, images, cancel).await;
                    (Some(outcome.clone()), Answer::Turn(done, outcome))
                }
                Job::LoadSession { done } => {
                    let result = tokio::select! {
                        biased;
                        _ = cancel.cancelled() => Err(AgentError::Cancelled),
                        result = self.load_session() => result,
                    };
                    let outcome = match &result {
                        Ok(()) => TurnOutcome::done("session loaded"),
                        Err(AgentError::Cancelled) => TurnOutcome {
                            cause: StopCause::User,
                            message: "loading the session was interrupted".into(),
                        },
                        Err(e) => TurnOutcome {
                            cause: StopCause::Runtime,
                            message: e.to_string(),
                        },
                    };
                    // The next prompt must not run without the history.
                    self.needs_load = result.is_err();
                    (Some(outcome), Answer::Load(done, result))
                }
                Job::Compact { done } => {
                    let outcome = self.compact(&cancel).await;
                    (Some(outcome.clone()), Answer::Turn(done, outcome))
                }
                Job::SetAdaptor { adaptor } => {
                    self.adaptor = adaptor;
                    (None, Answer::None)
                }
                Job::Undo { from_turn, done } => {
                    let _ = done.send(self.undo(from_turn).await);
                    (None, Answer::None)
                }
                Job::Diff { done } => {
                    let _ = done.send(self.diff().await);
                    (None, Answer::None)
                }
            };
            // Idle first, then answer: whoever awaited the job sees the
            // agent's state after it.
            self.finish_job(id, kind.zip(outcome));
            answer.send();
        }
        self.shared.idle.send_replace(true);
    }

    /// Reports the end of a job (`ended`: the kind and outcome of a job that
    /// is reported at all) and, when nothing else waits, that the agent is
    /// idle.
    fn finish_job(&self, id: JobId, ended: Option<(JobKind, TurnOutcome)>) {
        let mut queue = self.shared.lock();
        queue.running = None;
        if let Some((kind, outcome)) = ended {
            self.shared.hub.job(JobUpdate::Ended {
                id,
                kind,
                cause: outcome.cause,
                message: outcome.message,
                window_tokens: self.shared.window_tokens.load(Ordering::Relaxed),
            });
        }
        if queue.jobs.is_empty() {
            self.shared.idle.send_replace(true);
        }
    }

    /// Waits for the next job and registers it as the running one, with its
    /// own cancellation token.
    async fn next_job(&self) -> Option<(JobId, Job, CancellationToken)> {
        loop {
            {
                let mut queue = self.shared.lock();
                if let Some(entry) = queue.jobs.pop_front() {
                    queue.running = Some(Running {
                        cancel: entry.cancel.clone(),
                        reason: entry.reason,
                    });
                    return Some((entry.id, entry.job, entry.cancel));
                }
                if queue.closed {
                    return None;
                }
            }
            self.shared.wake.notified().await;
        }
    }

    /// Waits until the commands' change sets are recorded, and warns of
    /// each that could not be.
    pub(super) async fn settle_changes(&self) {
        for why in self.shared.pending_changes.settled().await {
            self.shared.hub.notice(Notice::message(
                NoticeLevel::Warn,
                format!("what a command changed could not be recorded for undo: {why}"),
            ));
        }
    }

    async fn undo(&self, from_turn: Option<u64>) -> Result<super::undo::UndoReport, AgentError> {
        self.settle_changes().await;
        let (Some(session), Ok(root)) = (&self.session, &self.root) else {
            return Ok(super::undo::UndoReport::default());
        };
        match from_turn {
            None => super::undo::undo_last_turn(session, root).await,
            Some(turn) => super::undo::undo_from_turn(session, root, turn).await,
        }
        .map_err(|e| AgentError::Session(e.to_string()))
    }

    async fn diff(&self) -> Result<String, AgentError> {
        self.settle_changes().await;
        let (Some(session), Ok(root)) = (&self.session, &self.root) else {
            return Ok(String::new());
        };
        super::undo::session_diff(session, root)
            .await
            .map_err(|e| AgentError::Session(e.to_string()))
    }

    pub(super) async fn load_session(&mut self) -> Result<(), AgentError> {
        // Another session's files were seen by another agent.
        self.shared.seen.clear();
        let Some(session) = &self.session else {
            return Ok(());
        };
        let recent = session
            .load_recent(self.context.resume_bytes())
            .await
            .map_err(|e| AgentError::Session(e.to_string()))?;
        let (tail, skipped) = self
            .context
            .trim_resumed(recent.events, recent.skipped_through);
        let window = resume::window(recent.summary, skipped, tail);
        let last = session
            .last_turn()
            .await
            .map_err(|e| AgentError::Session(e.to_string()))?;
        self.window = window;
        self.next_turn = Some(last + 1);
        self.needs_load = false;
        self.recall.remember_all(&self.window);
        self.update_window_tokens();
        Ok(())
    }

    async fn compact(&mut self, cancel: &CancellationToken) -> TurnOutcome {
        if self.needs_load
            && let Err(e) = self.load_session().await
        {
            return TurnOutcome {
                cause: StopCause::Runtime,
                message: e.to_string(),
            };
        }
        let now = Meta::new(self.next_turn().await.saturating_sub(1), u32::MAX);
        // Dropping the build on cancel drops the summary request with it;
        // nothing is committed before the summary is complete.
        let specs = self.tools.specs();
        let built = tokio::select! {
            biased;
            _ = cancel.cancelled() => {
                return TurnOutcome {
                    cause: StopCause::User,
                    message: "compaction interrupted".into(),
                };
            }
            built = self.context.build(
                &self.window,
                &specs,
                self.adaptor.as_ref(),
                true,
                now,
            ) => built,
        };
        match built {
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
            .set_page(self.context.recall_page(&self.window, &specs));
    }

    pub(super) fn interrupt_reason(&self) -> String {
        self.shared
            .lock()
            .running
            .as_ref()
            .and_then(|r| r.reason.clone())
            .unwrap_or_else(|| "user interrupted".into())
    }
}
