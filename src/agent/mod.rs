//! The host boundary: [`Agent`] owns a session's event window, a serial
//! prompt queue and the tool registry, and runs each turn through the
//! model–tool loop.
//!
//! Ownership: one worker task (spawned by [`Agent::new`]) owns the window,
//! the session handle and the context builder, and runs jobs one at a time.
//! [`Agent`] is a cheap handle: it queues jobs, cancels the running turn and
//! fans events out to subscribers. Nothing a model sends can end a turn
//! except through `agent_stop`.

mod call_ids;
mod hook_events;
pub mod hooks;
mod hub;
pub mod image;
mod lifecycle;
mod plan_progress;
mod prompt_images;
mod recall;
mod recall_search;
mod repeat;
mod skill_tool;
mod stream;
pub mod task;
mod tools;
mod turn;
pub mod undo;
pub mod web_fetch;
mod worker;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use crate::ai::{Adaptor, RetryPolicy};
use crate::context::ContextConfig;
use crate::permission::Permits;
use crate::protocol::{AgentEvent, StopCause};
use crate::session::AgentSession;
use crate::tool::ToolRegistry;
use crate::tool::editor::Editor;
use crate::tool::fs::{DeniedReads, Root};
use crate::tool::journal::{Journal, Pending};
use crate::tool::seen::SeenFiles;

pub use crate::protocol::Notice;
pub use crate::protocol::{JobId, JobKind, JobUpdate, WithdrawnPrompt};
pub use lifecycle::AgentMessage;
pub use recall::RecallTool;
pub use recall_search::RecallSearchTool;
pub use skill_tool::LoadSkillTool;
pub use web_fetch::WebFetchTool;

/// How the loop runs.
#[derive(Debug, Clone)]
pub struct LoopConfig {
    /// Steps per turn before the runtime stops it (`agent_stop(runtime)`).
    pub max_steps: u32,
    /// Retries of a failed model call.
    pub retry: RetryPolicy,
}

impl Default for LoopConfig {
    fn default() -> Self {
        Self {
            max_steps: 100,
            retry: RetryPolicy::default(),
        }
    }
}

/// Everything an [`Agent`] is made of.
pub struct AgentConfig {
    /// Working directory the tools are confined to; opened once, when the
    /// agent is made, and held as a handle from then on.
    pub cwd: PathBuf,
    /// Where events are persisted; `None` keeps them in memory only.
    pub session: Option<AgentSession>,
    /// The model provider.
    pub adaptor: Arc<dyn Adaptor>,
    /// Prompts, skills and compaction settings.
    pub context: ContextConfig,
    /// Step limit and retries.
    pub loop_config: LoopConfig,
}

/// A snapshot of the agent for status displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentState {
    /// A job is running (a turn, a compaction or a session load).
    pub is_running: bool,
    /// Prompts waiting behind the running job.
    pub queued_prompts: usize,
    /// Estimated tokens of the next request's context.
    pub current_window_tokens: u64,
    /// The model's context window.
    pub context_window: u64,
    /// Whether placeholders and summaries are in use.
    pub context_strategy: bool,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnOutcome {
    /// The `agent_stop` cause.
    pub cause: StopCause,
    /// The `agent_stop` message.
    pub message: String,
}

impl TurnOutcome {
    fn done(message: &str) -> Self {
        Self {
            cause: StopCause::Done,
            message: message.to_string(),
        }
    }
}

/// Why a request to the agent got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// The prompt was taken back out of the queue before it ran.
    #[error("the prompt was removed from the queue before it ran")]
    Withdrawn,
    /// The agent's worker is gone (the agent was dropped or its runtime shut down).
    #[error("the agent is no longer running")]
    Closed,
    /// Reading the session failed.
    #[error("session: {0}")]
    Session(String),
    /// The job was cancelled before it finished.
    #[error("cancelled")]
    Cancelled,
    /// The prompt carries images and the model takes none.
    #[error(
        "the model {model} does not take images (if it does, set `images = true` under [models.\"{model}\"] in the config)"
    )]
    ImagesNotAccepted {
        /// The model's name.
        model: String,
    },
}

enum Job {
    Prompt {
        text: String,
        images: Vec<image::Image>,
        done: Option<oneshot::Sender<TurnOutcome>>,
        /// The turn's tool calls are decided in the read-only mode.
        read_only: bool,
    },
    LoadSession {
        done: Option<oneshot::Sender<Result<(), AgentError>>>,
    },
    Compact {
        done: Option<oneshot::Sender<TurnOutcome>>,
    },
    SetAdaptor {
        adaptor: Arc<dyn Adaptor>,
    },
    Undo {
        /// Every turn from this one on; `None`: the latest that changed files.
        from_turn: Option<u64>,
        done: oneshot::Sender<Result<undo::UndoReport, AgentError>>,
    },
    Diff {
        done: oneshot::Sender<Result<String, AgentError>>,
    },
}

impl Job {
    /// The kind reported in job updates; `None` for internal jobs that are
    /// not reported (switching the adaptor).
    fn kind(&self) -> Option<JobKind> {
        match self {
            Job::Prompt { .. } => Some(JobKind::Prompt),
            Job::LoadSession { .. } => Some(JobKind::LoadSession),
            Job::Compact { .. } => Some(JobKind::Compact),
            Job::SetAdaptor { .. } | Job::Undo { .. } | Job::Diff { .. } => None,
        }
    }
}

/// A job waiting in the queue with its own cancellation token.
struct Entry {
    id: JobId,
    job: Job,
    cancel: CancellationToken,
    /// Why it was cancelled before it started, if it was.
    reason: Option<String>,
}

/// The job the worker runs now.
struct Running {
    cancel: CancellationToken,
    reason: Option<String>,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Entry>,
    running: Option<Running>,
    next_id: u64,
    closed: bool,
}

impl Queue {
    fn queued_prompts(&self) -> usize {
        self.jobs
            .iter()
            .filter(|e| matches!(e.job, Job::Prompt { .. }))
            .count()
    }
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Notify,
    hub: hub::Hub,
    /// True while no job runs or waits.
    idle: watch::Sender<bool>,
    window_tokens: AtomicU64,
    /// The model prompts are queued for, and whether it takes images (the
    /// adaptor last set, so a switch applies to what is submitted next).
    model: Mutex<(String, bool)>,
    context_window: u64,
    context_strategy: bool,
    /// What gated tool calls may do, with the read deny list resolved from
    /// its paths; replaced by [`Agent::set_permits`].
    permits: Mutex<(Permits, Arc<DeniedReads>)>,
    /// What the agent last saw of each file (the writing tools' stale guard).
    seen: SeenFiles,
    /// The hooks tool calls go through; replaced by [`Agent::set_hooks`].
    hooks: Mutex<Arc<hooks::Hooks>>,
    /// The session and working directory the user's own commands record
    /// their change sets in (see [`Agent::command_journal`]).
    journal_base: Option<(AgentSession, Root)>,
    /// Commands' change sets still being recorded; every journal of this
    /// agent waits for them (see [`Journal::record_later`]).
    pending_changes: Pending,
    /// The editor the file tools read and write through, if the front end
    /// offers one (see [`Agent::set_editor`]).
    editor: Mutex<Option<Editor>>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        // A panic while holding this lock cannot leave the queue inconsistent
        // (every critical section is a single push/pop), so poisoning is ignored.
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The permits the next tool calls run with.
    fn permits(&self) -> Permits {
        self.permits_and_denied().0
    }

    /// The permits and the read deny list the file tools enforce.
    fn permits_and_denied(&self) -> (Permits, Arc<DeniedReads>) {
        self.permits
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The editor the file tools go through, if any.
    fn editor(&self) -> Option<Editor> {
        self.editor
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The model prompts are queued for, and whether it takes images.
    fn model(&self) -> (String, bool) {
        self.model
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    fn state(&self, queue: &Queue) -> AgentState {
        AgentState {
            is_running: queue.running.is_some(),
            queued_prompts: queue.queued_prompts(),
            current_window_tokens: self.window_tokens.load(Ordering::Relaxed),
            context_window: self.context_window,
            context_strategy: self.context_strategy,
        }
    }
}

/// An agent: a serial queue of prompts run against one session.
///
/// Cloning gives another handle to the same agent. The worker stops when
/// every handle is dropped.
#[derive(Clone)]
pub struct Agent {
    shared: Arc<Shared>,
    tools: ToolRegistry,
    read_roots: skill_tool::SkillRoots,
    _worker: Arc<WorkerGuard>,
}

struct WorkerGuard(Arc<Shared>);

impl Drop for WorkerGuard {
    fn drop(&mut self) {
        let mut queue = self.0.lock();
        queue.closed = true;
        if let Some(running) = &queue.running {
            running.cancel.cancel();
        }
        drop(queue);
        self.0.wake.notify_one();
    }
}

impl Agent {
    /// Creates the agent and starts its worker on the current tokio runtime.
    /// Registers `recall_indexed` and `recall_search`, and `load_skill` when skills exist; file
    /// tools are the caller's to register.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    pub fn new(config: AgentConfig) -> Self {
        let cwd = std::fs::canonicalize(&config.cwd).unwrap_or(config.cwd);
        // Opened once: the tools reach this directory, whatever later
        // happens to its path.
        let root = Root::open(&cwd).map_err(|e| {
            format!(
                "the working directory {} cannot be opened: {e}",
                cwd.display()
            )
        });
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            wake: Notify::new(),
            idle: watch::channel(true).0,
            hub: hub::Hub::default(),
            window_tokens: AtomicU64::new(0),
            model: Mutex::new((
                config.adaptor.model().to_string(),
                config.adaptor.accepts_images(),
            )),
            context_window: config.context.context_window,
            context_strategy: config.context.strategy,
            permits: Mutex::new((Permits::default(), Arc::default())),
            seen: SeenFiles::default(),
            hooks: Mutex::default(),
            journal_base: config.session.clone().zip(root.clone().ok()),
            pending_changes: Pending::default(),
            editor: Mutex::new(None),
        });
        let tools = ToolRegistry::new();
        let recall = RecallTool::new(config.session.clone());
        let skill_roots = skill_tool::SkillRoots::default();
        // Registration of our own fixed names and schemas cannot fail.
        let _ = tools.register(recall.clone());
        let _ = tools.register(RecallSearchTool::new(recall.clone()));
        if !config.context.skills.is_empty() {
            let _ = tools.register(LoadSkillTool::new(
                config.context.skills.clone(),
                skill_roots.clone(),
            ));
        }
        let worker = worker::Worker::new(worker::WorkerParts {
            shared: shared.clone(),
            tools: tools.clone(),
            root,
            session: config.session,
            adaptor: config.adaptor,
            context: config.context,
            loop_config: config.loop_config,
            recall,
            skill_roots: skill_roots.clone(),
        });
        tokio::spawn(worker.run());
        Self {
            shared: shared.clone(),
            tools,
            read_roots: skill_roots,
            _worker: Arc::new(WorkerGuard(shared)),
        }
    }

    /// The tool registry; register and remove tools here.
    pub fn tool(&self) -> &ToolRegistry {
        &self.tools
    }

    /// Lets `read_file` read the files beneath `dir` by absolute path (the
    /// shell's full command logs). The folder is created if missing and held
    /// open from now on.
    pub fn add_read_root(&self, dir: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        self.read_roots.add(crate::tool::fs::Root::open(dir)?);
        Ok(())
    }

    /// Queues a prompt; resolves when its turn has ended (after its
    /// `agent_stop`). Fails with [`AgentError::Withdrawn`] when the prompt
    /// was taken back before it ran.
    pub async fn prompt(&self, text: impl Into<String>) -> Result<TurnOutcome, AgentError> {
        self.prompt_with(text, Vec::new()).await
    }

    /// [`prompt`](Self::prompt) with images (checked already: an
    /// [`image::Image`] is only made by checking). Fails with
    /// [`AgentError::ImagesNotAccepted`], queueing nothing, when there are
    /// images and the model takes none.
    pub async fn prompt_with(
        &self,
        text: impl Into<String>,
        images: Vec<image::Image>,
    ) -> Result<TurnOutcome, AgentError> {
        let (done, outcome) = oneshot::channel();
        self.push_prompt(text.into(), images, Some(done), false)?;
        outcome.await.map_err(|_| AgentError::Withdrawn)
    }

    /// Queues a prompt and returns its id at once; its life is reported on
    /// [`subscribe_all`](Self::subscribe_all).
    pub fn submit(&self, text: impl Into<String>) -> Result<JobId, AgentError> {
        self.submit_prompt(text, Vec::new())
    }

    /// [`submit`](Self::submit) with images. Fails with
    /// [`AgentError::ImagesNotAccepted`], queueing nothing, when there are
    /// images and the model takes none. The images are stored with the
    /// turn's `input` event, once per content.
    pub fn submit_prompt(
        &self,
        text: impl Into<String>,
        images: Vec<image::Image>,
    ) -> Result<JobId, AgentError> {
        self.push_prompt(text.into(), images, None, false)
    }

    /// [`submit_prompt`](Self::submit_prompt) for a turn that may change
    /// nothing: its tool calls are decided in the read-only mode whatever
    /// the agent's mode (rules and "allow for the session" answers
    /// included), so no file is written and no command runs.
    pub fn submit_read_only(
        &self,
        text: impl Into<String>,
        images: Vec<image::Image>,
    ) -> Result<JobId, AgentError> {
        self.push_prompt(text.into(), images, None, true)
    }

    fn push_prompt(
        &self,
        text: String,
        images: Vec<image::Image>,
        done: Option<oneshot::Sender<TurnOutcome>>,
        read_only: bool,
    ) -> Result<JobId, AgentError> {
        if !images.is_empty() {
            let (model, accepts) = self.shared.model();
            if !accepts {
                return Err(AgentError::ImagesNotAccepted { model });
            }
        }
        self.push(Job::Prompt {
            text,
            images,
            done,
            read_only,
        })
    }

    /// Loads the session's context window (from its latest summary on) and
    /// token count, after any queued work.
    pub async fn load_session(&self) -> Result<(), AgentError> {
        let (done, result) = oneshot::channel();
        self.push(Job::LoadSession { done: Some(done) })?;
        result.await.map_err(|_| AgentError::Closed)?
    }

    /// Queues a session load (see [`load_session`](Self::load_session)) and
    /// returns its id at once. Prompts queued after it see the loaded window;
    /// when the load fails or is cancelled, the next prompt loads first.
    pub fn submit_load(&self) -> Result<JobId, AgentError> {
        self.push(Job::LoadSession { done: None })
    }

    /// Summarises older steps now (the `/compact` command), after any queued
    /// work. The outcome says whether anything was folded.
    pub async fn compact(&self) -> Result<TurnOutcome, AgentError> {
        let (done, outcome) = oneshot::channel();
        self.push(Job::Compact { done: Some(done) })?;
        outcome.await.map_err(|_| AgentError::Closed)
    }

    /// Restores the files changed by the latest turn that changed any (not
    /// undone yet), after any queued work; repeatable turn by turn. Files
    /// changed since by someone else are left alone and listed.
    pub async fn undo_last_turn(&self) -> Result<undo::UndoReport, AgentError> {
        let (done, report) = oneshot::channel();
        self.push(Job::Undo {
            from_turn: None,
            done,
        })?;
        report.await.map_err(|_| AgentError::Closed)?
    }

    /// Restores every file the turns from `turn` on changed to its content
    /// before that turn (the code half of a rewind), after any queued work.
    /// Files changed since by someone else are left alone and listed.
    pub async fn undo_from_turn(&self, turn: u64) -> Result<undo::UndoReport, AgentError> {
        let (done, report) = oneshot::channel();
        self.push(Job::Undo {
            from_turn: Some(turn),
            done,
        })?;
        report.await.map_err(|_| AgentError::Closed)?
    }

    /// Where the user's own command (`!cmd`) records what it changed, so
    /// `/undo` covers it: the working directory's root and a journal for
    /// the turn after the latest one (the next prompt's, with which it is
    /// undone). `None` without a session or before its first prompt (a
    /// draft has no row to record against). Does not wait for queued work.
    pub async fn command_journal(&self) -> Option<(Root, Journal)> {
        let (session, root) = self.shared.journal_base.clone()?;
        // A draft session has no row, so no journal, until its first event.
        if !session.is_written() {
            return None;
        }
        let turn = session.last_turn().await.ok()? + 1;
        let journal = Journal::new(Arc::new(undo::SessionJournal { session, turn }))
            .sharing(&self.shared.pending_changes);
        Some((root, journal))
    }

    /// The session's file changes as one unified diff (`/diff`).
    pub async fn session_diff(&self) -> Result<String, AgentError> {
        let (done, diff) = oneshot::channel();
        self.push(Job::Diff { done })?;
        diff.await.map_err(|_| AgentError::Closed)?
    }

    /// Replaces what gated tool calls (edits, commands) may do; calls that
    /// start afterwards use the new permits. The default asks nobody and so
    /// denies what is not allowed by a rule. The file tools refuse what
    /// [`Permits::read_denied`] lists from then on.
    pub fn set_permits(&self, permits: Permits) {
        let denied = Arc::new(DeniedReads::from_paths(permits.read_denied()));
        *self
            .shared
            .permits
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = (permits, denied);
    }

    /// Replaces the hooks tool calls go through; calls that start
    /// afterwards use the new ones.
    pub fn set_hooks(&self, hooks: hooks::Hooks) {
        *self
            .shared
            .hooks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Arc::new(hooks);
    }

    /// Routes the file tools' reads and writes of text files inside the
    /// directory through `editor` (its unsaved buffers), from the next tool
    /// call on; `None`: the disk only.
    pub fn set_editor(&self, editor: Option<Editor>) {
        *self
            .shared
            .editor
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = editor;
    }

    /// The permits gated tool calls run with (for `/permissions`).
    pub fn permits(&self) -> Permits {
        self.shared.permits()
    }

    /// Queues a compaction (see [`compact`](Self::compact)) and returns its
    /// id at once.
    pub fn submit_compact(&self) -> Result<JobId, AgentError> {
        self.push(Job::Compact { done: None })
    }

    /// Uses another model provider from the next turn on.
    pub fn set_adaptor(&self, adaptor: Arc<dyn Adaptor>) -> Result<(), AgentError> {
        let mut queue = self.shared.lock();
        if queue.closed {
            return Err(AgentError::Closed);
        }
        *self
            .shared
            .model
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) =
            (adaptor.model().to_string(), adaptor.accepts_images());
        // Ahead of queued prompts: the user switched models for what comes next.
        queue.jobs.push_front(Entry {
            id: JobId(0),
            job: Job::SetAdaptor { adaptor },
            cancel: CancellationToken::new(),
            reason: None,
        });
        self.shared.idle.send_replace(false);
        drop(queue);
        self.shared.wake.notify_one();
        Ok(())
    }

    /// Cancels the running job (a turn, a compaction, a session load) at
    /// once. When none runs yet, the next queued job is cancelled instead —
    /// it was submitted just before, and starts and ends as interrupted.
    /// Other queued prompts stay queued.
    pub fn interrupt(&self, reason: impl Into<String>) {
        let mut queue = self.shared.lock();
        let queue = &mut *queue;
        if let Some(running) = queue.running.as_mut() {
            running.reason.get_or_insert_with(|| reason.into());
            running.cancel.cancel();
        } else if let Some(next) = queue.jobs.iter_mut().find(|e| e.job.kind().is_some()) {
            next.reason.get_or_insert_with(|| reason.into());
            next.cancel.cancel();
        }
    }

    /// Removes and returns the queued prompts, oldest first (a prompt
    /// already cancelled by [`interrupt`](Self::interrupt) stays: it is as
    /// good as started). Reported as one `Withdrawn` update.
    pub fn take_queued(&self) -> Vec<String> {
        self.withdraw_where(|_| true)
            .into_iter()
            .map(|p| p.text)
            .collect()
    }

    /// Takes one queued prompt back; `None` when it already started (or
    /// never existed). Reported as a `Withdrawn` update.
    pub fn withdraw(&self, id: JobId) -> Option<String> {
        self.withdraw_where(|e| e.id == id)
            .into_iter()
            .next()
            .map(|p| p.text)
    }

    fn withdraw_where(&self, pick: impl Fn(&Entry) -> bool) -> Vec<WithdrawnPrompt> {
        let mut queue = self.shared.lock();
        let mut taken = Vec::new();
        queue.jobs.retain_mut(|entry| {
            let wanted = matches!(entry.job, Job::Prompt { .. })
                && !entry.cancel.is_cancelled()
                && pick(entry);
            match &mut entry.job {
                Job::Prompt { text, .. } if wanted => {
                    taken.push(WithdrawnPrompt {
                        id: entry.id,
                        text: std::mem::take(text),
                    });
                    false
                }
                _ => true,
            }
        });
        if !taken.is_empty() {
            if queue.jobs.is_empty() && queue.running.is_none() {
                self.shared.idle.send_replace(true);
            }
            self.shared.hub.job(JobUpdate::Withdrawn {
                prompts: taken.clone(),
            });
        }
        taken
    }

    /// Resolves once no job runs and none waits (at once when idle now).
    pub async fn idle(&self) {
        let mut idle = self.shared.idle.subscribe();
        // The sender lives as long as `self`, so this cannot fail.
        let _ = idle.wait_for(|idle| *idle).await;
    }

    /// Every event from now on, deltas included, in order.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<AgentEvent> {
        self.shared.hub.subscribe()
    }

    /// Sends `text` to every notice subscriber as a warning [`Notice::Message`]
    /// (something outside the loop, like an MCP server, that the user should know).
    pub fn warn(&self, text: impl Into<String>) {
        self.shared.hub.notice(Notice::warning(text));
    }

    /// Where a tool of this agent sends notices (`task`'s tagged child
    /// events); holds no handle, so it keeps no worker alive.
    pub fn notice_sink(&self) -> task::NoticeSink {
        let shared = self.shared.clone();
        Arc::new(move |notice| shared.hub.notice(notice))
    }

    /// Host notices (retry waits, warnings) from now on.
    pub fn subscribe_notices(&self) -> mpsc::UnboundedReceiver<Notice> {
        self.shared.hub.subscribe_notices()
    }

    /// Events, job updates and notices from now on, in one stream in the
    /// order they happened: a job's `Started` precedes its events and its
    /// `Ended` follows them.
    pub fn subscribe_all(&self) -> mpsc::UnboundedReceiver<AgentMessage> {
        self.shared.hub.subscribe_all()
    }

    /// Current state.
    pub fn state(&self) -> AgentState {
        let queue = self.shared.lock();
        self.shared.state(&queue)
    }

    fn push(&self, job: Job) -> Result<JobId, AgentError> {
        let mut queue = self.shared.lock();
        if queue.closed {
            return Err(AgentError::Closed);
        }
        queue.next_id += 1;
        let id = JobId(queue.next_id);
        if let Some(kind) = job.kind() {
            let text = match &job {
                Job::Prompt { text, .. } => text.clone(),
                _ => String::new(),
            };
            // Under the queue lock: `Queued` goes out before the worker can
            // pop the job and report `Started`.
            self.shared.hub.job(JobUpdate::Queued { id, kind, text });
        }
        queue.jobs.push_back(Entry {
            id,
            job,
            cancel: CancellationToken::new(),
            reason: None,
        });
        self.shared.idle.send_replace(false);
        drop(queue);
        self.shared.wake.notify_one();
        Ok(id)
    }
}
