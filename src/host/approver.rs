//! The host's [`Approver`] and [`Asker`]: each request goes to the front
//! end as an event ([`HostEvent::ApprovalRequested`],
//! [`HostEvent::QuestionAsked`]) and waits for the op carrying its id
//! ([`Op::Approval`], [`Op::Answer`]). A host without a front end that
//! answers denies at once and tells the model no user is present.
//!
//! [`Op::Approval`]: crate::protocol::Op::Approval
//! [`Op::Answer`]: crate::protocol::Op::Answer

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use super::hooks::HookSlot;
use super::lock;
use crate::permission::Approver;
use crate::protocol::{ApprovalDecision, ApprovalRequest, HostEvent, OpId, Question};
use crate::tool::builtin::Asker;

type Pending<T> = Arc<Mutex<HashMap<OpId, oneshot::Sender<T>>>>;

/// Requests of one kind waiting for their answers, by id.
struct Waiting<T> {
    pending: Pending<T>,
    next_id: AtomicU64,
    prefix: &'static str,
}

/// Removes a request nobody waits for any more (the call was interrupted).
struct Withdraw<T> {
    pending: Pending<T>,
    id: OpId,
}

impl<T> Drop for Withdraw<T> {
    fn drop(&mut self) {
        lock(&self.pending).remove(&self.id);
    }
}

impl<T: Send + 'static> Waiting<T> {
    fn new(prefix: &'static str) -> Self {
        Self {
            pending: Arc::default(),
            next_id: AtomicU64::new(1),
            prefix,
        }
    }

    /// A new request's id, and its answer (`None` when it is dropped
    /// unanswered). Dropping the future withdraws the request.
    fn open(&self) -> (OpId, BoxFuture<'static, Option<T>>) {
        let id = OpId(format!(
            "{}-{}",
            self.prefix,
            self.next_id.fetch_add(1, Ordering::Relaxed)
        ));
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let withdraw = Withdraw {
            pending: self.pending.clone(),
            id: id.clone(),
        };
        let answer = async move {
            let _withdraw = withdraw;
            rx.await.ok()
        };
        (id, answer.boxed())
    }

    /// Delivers the answer to request `id` (ignored when the call is gone
    /// or the id is unknown).
    fn answer(&self, id: &OpId, value: T) {
        if let Some(waiting) = lock(&self.pending).remove(id) {
            let _ = waiting.send(value);
        }
    }
}

/// Asks the front end. Cheap to share.
pub(super) struct HostApprover {
    events: UnboundedSender<HostEvent>,
    approvals: Waiting<ApprovalDecision>,
    questions: Waiting<Vec<String>>,
    /// Whether the front end answers at all.
    answers: bool,
    /// The `Notification` hooks run while a request waits.
    pub(super) hooks: HookSlot,
}

impl HostApprover {
    /// An approver sending its questions to `events` (`answers`: whether
    /// anybody will answer them).
    pub(super) fn new(events: UnboundedSender<HostEvent>, answers: bool) -> Arc<Self> {
        Arc::new(Self {
            events,
            approvals: Waiting::new("approval"),
            questions: Waiting::new("question"),
            answers,
            hooks: HookSlot::default(),
        })
    }

    /// Whether the front end answers approval requests and questions.
    pub(super) fn answers(&self) -> bool {
        self.answers
    }

    /// Delivers the decision on approval request `id`.
    pub(super) fn answer(&self, id: &OpId, decision: ApprovalDecision) {
        self.approvals.answer(id, decision);
    }

    /// Delivers the user's answers to question request `id`.
    pub(super) fn answer_question(&self, id: &OpId, answers: Vec<String>) {
        self.questions.answer(id, answers);
    }
}

impl Approver for HostApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        let (id, answer) = self.approvals.open();
        let message = format!("light-agent needs your permission to use {}", request.tool);
        let sent = self
            .events
            .send(HostEvent::ApprovalRequested { id, request });
        let notify = self.hooks.notification("permission_prompt", message);
        async move {
            if sent.is_err() {
                return ApprovalDecision::Deny {
                    reason: Some("the front end is gone".into()),
                };
            }
            while_notifying(answer, notify)
                .await
                .unwrap_or(ApprovalDecision::Deny { reason: None })
        }
        .boxed()
    }
}

impl Asker for HostApprover {
    fn ask(&self, questions: Vec<Question>) -> BoxFuture<'static, Option<Vec<String>>> {
        let (id, answer) = self.questions.open();
        let sent = self.events.send(HostEvent::QuestionAsked { id, questions });
        let message = "light-agent is waiting for your answer".to_string();
        let notify = self.hooks.notification("elicitation_dialog", message);
        async move {
            if sent.is_err() {
                return None;
            }
            while_notifying(answer, notify).await
        }
        .boxed()
    }
}

/// Waits for `answer` while `notify` (the `Notification` hooks) runs; a
/// hook still running when the answer comes is dropped, which kills it.
async fn while_notifying<T>(
    answer: BoxFuture<'static, Option<T>>,
    notify: BoxFuture<'static, ()>,
) -> Option<T> {
    let mut answer = answer;
    tokio::select! {
        biased;
        value = &mut answer => value,
        () = notify => answer.await,
    }
}
