//! The host's [`Approver`]: each question goes to the front end as a
//! [`HostEvent::ApprovalRequested`] and waits for the [`Op::Approval`]
//! carrying its id. A host without a front end that answers denies at once.
//!
//! [`Op::Approval`]: crate::protocol::Op::Approval

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use super::lock;
use crate::permission::Approver;
use crate::protocol::{ApprovalDecision, ApprovalRequest, HostEvent, OpId};

type Pending = Arc<Mutex<HashMap<OpId, oneshot::Sender<ApprovalDecision>>>>;

/// Asks the front end. Cheap to share.
pub(super) struct HostApprover {
    events: UnboundedSender<HostEvent>,
    pending: Pending,
    next_id: AtomicU64,
    /// Whether the front end answers at all.
    answers: bool,
}

/// Removes a question nobody waits for any more (the call was interrupted).
struct Withdraw {
    pending: Pending,
    id: OpId,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        lock(&self.pending).remove(&self.id);
    }
}

impl HostApprover {
    /// An approver sending its questions to `events` (`answers`: whether
    /// anybody will answer them).
    pub(super) fn new(events: UnboundedSender<HostEvent>, answers: bool) -> Arc<Self> {
        Arc::new(Self {
            events,
            pending: Arc::default(),
            next_id: AtomicU64::new(1),
            answers,
        })
    }

    /// Whether the front end answers approval requests.
    pub(super) fn answers(&self) -> bool {
        self.answers
    }

    /// Delivers the decision on question `id` (ignored when the call is
    /// gone or the id is unknown).
    pub(super) fn answer(&self, id: &OpId, decision: ApprovalDecision) {
        if let Some(waiting) = lock(&self.pending).remove(id) {
            let _ = waiting.send(decision);
        }
    }
}

impl Approver for HostApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        let id = OpId(format!(
            "approval-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed)
        ));
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let sent = self.events.send(HostEvent::ApprovalRequested {
            id: id.clone(),
            request,
        });
        let withdraw = Withdraw {
            pending: self.pending.clone(),
            id,
        };
        async move {
            let _withdraw = withdraw;
            if sent.is_err() {
                return ApprovalDecision::Deny {
                    reason: Some("the front end is gone".into()),
                };
            }
            rx.await.unwrap_or(ApprovalDecision::Deny { reason: None })
        }
        .boxed()
    }
}
