//! The TUI's [`Approver`]: each question goes to the UI as a transient
//! [`UiInput::Approval`] and waits for the matching [`Op::Approval`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use futures::FutureExt;
use futures::future::BoxFuture;
use light_agent::permission::{ApprovalDecision, ApprovalDetail, ApprovalRequest, Approver};
use light_agent::tui::{ApprovalAnswer, ApprovalPrompt, UiInput};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<ApprovalDecision>>>>;

/// Asks the TUI. Cheap to share; the bridge answers through [`Self::answer`].
pub struct TuiApprover {
    ui: UnboundedSender<UiInput>,
    pending: Pending,
    next_id: AtomicU64,
}

fn lock(pending: &Pending) -> MutexGuard<'_, HashMap<u64, oneshot::Sender<ApprovalDecision>>> {
    // A poisoned map still holds valid senders.
    pending
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes a question nobody waits for any more (the call was interrupted).
struct Withdraw {
    pending: Pending,
    id: u64,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        lock(&self.pending).remove(&self.id);
    }
}

impl TuiApprover {
    /// An approver sending its questions to `ui`.
    pub fn new(ui: UnboundedSender<UiInput>) -> Arc<Self> {
        Arc::new(Self {
            ui,
            pending: Arc::default(),
            next_id: AtomicU64::new(1),
        })
    }

    /// Delivers the user's answer to question `id` (ignored when the call
    /// is gone).
    pub fn answer(&self, id: u64, answer: ApprovalAnswer) {
        if let Some(waiting) = lock(&self.pending).remove(&id) {
            let decision = match answer {
                ApprovalAnswer::Approve => ApprovalDecision::Approve,
                ApprovalAnswer::ApproveForSession => ApprovalDecision::ApproveForSession,
                ApprovalAnswer::Deny(reason) => ApprovalDecision::Deny { reason },
            };
            let _ = waiting.send(decision);
        }
    }
}

impl Approver for TuiApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let diff = match request.detail {
            ApprovalDetail::Diff { unified } => unified,
            ApprovalDetail::Command {
                command,
                workdir,
                sandbox,
                destructive,
            } => {
                let mut text = format!("$ {command}\n(in {workdir}, {sandbox})\n");
                for why in destructive {
                    text.push_str(&format!("destructive: {why}\n"));
                }
                text
            }
            ApprovalDetail::Mcp { server, tool, args } => format!("{server}.{tool} {args}\n"),
        };
        let sent = self.ui.send(UiInput::Approval(ApprovalPrompt {
            id,
            call_id: request.call_id,
            tool: request.tool,
            title: request.title,
            diff,
        }));
        let withdraw = Withdraw {
            pending: self.pending.clone(),
            id,
        };
        async move {
            let _withdraw = withdraw;
            if sent.is_err() {
                return ApprovalDecision::Deny {
                    reason: Some("the terminal UI is gone".into()),
                };
            }
            rx.await.unwrap_or(ApprovalDecision::Deny { reason: None })
        }
        .boxed()
    }
}
