//! The session host: the one runtime every front end drives.
//!
//! A front end (the TUI, `exec`, an editor over ACP) submits
//! [`Submission`]s to a [`Host`] and reads one ordered stream of
//! [`HostEvent`]s; that is the whole contract (`crate::protocol`).
//!
//! - [`Host`] is a cheap handle in the mini-redis style. Interrupts and
//!   approval decisions take effect in [`Host::submit`] itself, so an Esc is
//!   never queued behind a database call, a file write or the MCP grace;
//!   every other op goes, in order, to the actor.
//! - `actor`: owns the session, the agent slot ([`Slot`]: no model / failed
//!   / ready), the MCP servers, the command runner and the user's
//!   commands; answers ops one at a time.
//! - `forward`: one task per agent turns its ordered stream into host
//!   events, stamping job updates with the op id of the prompt that made
//!   them; it runs beside the actor, so a slow op never holds events back.
//! - [`build`]: settings → adaptor, session, agent, shell, MCP servers.
//! - `approver`: approval requests out as events, decisions back in.
//! - `sessions`, `reports`, `user_shell`, [`project_mcp`]: the ops' bodies.
//!
//! Architecture invariant: the host knows no front end; it never blocks
//! event forwarding on I/O.

mod actor;
mod approver;
mod attach;
pub mod build;
pub mod commands;
mod error;
mod forward;
pub mod hooks;
mod parts;
mod project_agents;
pub mod project_hooks;
mod project_hooks_ops;
pub mod project_mcp;
mod project_mcp_ops;
mod reports;
mod rewind;
mod sessions;
mod subagents;
mod user_shell;
pub mod web;
mod workspace;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::agent::Agent;
use crate::config::{Paths, Settings};
use crate::permission::Mode;
use crate::protocol::{HostEvent, NoticeLevel, Op, OpId, Submission};
use crate::session::{AgentSession, SessionManager};

pub use build::{FreshHint, SessionChoice};
pub use error::HostError;

/// What a host starts with.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Canonical working directory.
    pub cwd: PathBuf,
    /// Config, data and log locations.
    pub paths: Paths,
    /// Resolved settings.
    pub settings: Settings,
    /// Why no model can be used, if none can.
    pub model_missing: Option<String>,
    /// Which session to open (an id already resolved and checked).
    pub choice: SessionChoice,
    /// A session the caller already opened and claimed (`choice` is then
    /// not used): a front end that must refuse a busy session before it
    /// starts, as `exec` does.
    pub session: Option<AgentSession>,
    /// Whether an undecided project file (`.mcp.json`) is offered to the
    /// user (the TUI); otherwise only an accepted one is used and the
    /// front end is told why another is not.
    pub offer_project_files: bool,
    /// The process environment (commands start from it, secrets removed).
    pub env: Vec<(OsString, OsString)>,
    /// The permission mode when no flag, variable or file sets one.
    pub default_mode: Mode,
    /// Whether the front end answers approval requests; without one, what
    /// needs asking is denied with the rule that would allow it.
    pub approvals: bool,
    /// How front end and user start a fresh session (named in hints).
    pub fresh_hint: build::FreshHint,
    /// How long a prompt waits for MCP servers still starting.
    pub mcp_wait: McpWait,
    /// A title for a fresh session (else the first prompt's first line).
    pub title: Option<String>,
    /// The editor whose buffers the file tools read and write (an ACP
    /// client offering `fs/*`); `None`: the disk only.
    pub editor: Option<crate::tool::editor::Editor>,
}

/// How long a prompt waits for MCP servers still starting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpWait {
    /// A short grace counted from their start (the TUI: a prompt typed later
    /// never waits).
    Grace,
    /// Until each is up or failed (scripts get every tool or a notice).
    Settled,
}

/// A handle to a running host. Cheap to clone; the host stops after
/// [`Op::Quit`] or when every handle is dropped.
#[derive(Clone)]
pub struct Host {
    ops: UnboundedSender<Envelope>,
    shared: Arc<Shared>,
}

/// An op on its way to the actor, with the interrupt count when it was
/// submitted: a prompt that an interrupt overtook is handed back, not run.
struct Envelope {
    submission: Submission,
    interrupts: u64,
}

/// What the handle and the actor share: just enough for the fast paths.
struct Shared {
    /// The ready agent, if any (a clone of the slot's).
    agent: Mutex<Option<Agent>>,
    /// Answers approval requests.
    approver: Arc<approver::HostApprover>,
    /// Stops the user's running commands.
    user_cancel: Mutex<CancellationToken>,
    /// Interrupts so far.
    interrupts: watch::Sender<u64>,
    /// The front end's event stream.
    events: UnboundedSender<HostEvent>,
}

impl Shared {
    fn agent(&self) -> Option<Agent> {
        lock(&self.agent).clone()
    }

    fn send(&self, event: HostEvent) {
        let _ = self.events.send(event);
    }

    fn notice(&self, level: NoticeLevel, text: impl Into<String>) {
        self.send(HostEvent::message(level, text));
    }

    /// A notice answering the submission `op`.
    fn reply(&self, op: OpId, level: NoticeLevel, text: impl Into<String>) {
        self.send(HostEvent::reply(op, level, text));
    }

    fn interrupts(&self) -> u64 {
        *self.interrupts.borrow()
    }

    /// Resolves once an interrupt came after the `seen`-th.
    async fn interrupted_after(&self, seen: u64) {
        let mut interrupts = self.interrupts.subscribe();
        // The sender lives as long as `self`.
        let _ = interrupts.wait_for(|n| *n != seen).await;
    }

    /// Esc: stops the user's commands and the running job; queued prompts
    /// come back as one `withdrawn` update.
    fn interrupt(&self) {
        self.interrupts.send_modify(|n| *n += 1);
        {
            let mut cancel = lock(&self.user_cancel);
            cancel.cancel();
            *cancel = CancellationToken::new();
        }
        if let Some(agent) = self.agent() {
            agent.interrupt("interrupted by user");
            agent.take_queued();
        }
    }

    fn user_cancel(&self) -> CancellationToken {
        lock(&self.user_cancel).clone()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock still holds valid data here.
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Host {
    /// Starts a host: it opens the chosen session (a fresh one, with a
    /// note, when that fails) and puts an agent on it. Events go to
    /// `events`, in order. The returned task ends when the host has stopped
    /// (after [`Op::Quit`], or when every handle is dropped) and the session
    /// is marked idle.
    pub fn start(
        config: HostConfig,
        manager: SessionManager,
        events: UnboundedSender<HostEvent>,
    ) -> (Host, JoinHandle<()>) {
        let (ops_tx, ops_rx) = unbounded_channel();
        let shared = Arc::new(Shared {
            agent: Mutex::new(None),
            approver: approver::HostApprover::new(events.clone(), config.approvals),
            user_cancel: Mutex::new(CancellationToken::new()),
            interrupts: watch::channel(0).0,
            events,
        });
        let task = tokio::spawn(actor::run(config, manager, shared.clone(), ops_rx));
        (
            Host {
                ops: ops_tx,
                shared,
            },
            task,
        )
    }

    /// Submits one op; never waits. Interrupts and approval decisions take
    /// effect before this returns.
    pub fn submit(&self, submission: Submission) {
        match &submission.op {
            Op::Interrupt => self.shared.interrupt(),
            Op::Approval { decision } => {
                self.shared
                    .approver
                    .answer(&submission.id, decision.clone());
            }
            Op::Answer { answers } => {
                self.shared
                    .approver
                    .answer_question(&submission.id, answers.clone());
            }
            _ => {
                let envelope = Envelope {
                    interrupts: self.shared.interrupts(),
                    submission,
                };
                if self.ops.send(envelope).is_err() {
                    self.shared
                        .notice(NoticeLevel::Error, "the host has stopped");
                }
            }
        }
    }

    /// Forwards every submission from `ops` until it closes (or sends
    /// [`Op::Quit`]); then the host stops.
    pub async fn serve(self, mut ops: UnboundedReceiver<Submission>) {
        while let Some(submission) = ops.recv().await {
            let quit = submission.op == Op::Quit;
            self.submit(submission);
            if quit {
                return;
            }
        }
        self.submit(Submission::new("", Op::Quit));
    }
}
