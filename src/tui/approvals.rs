//! The queue of changes waiting for the user's approval, in the order the
//! model made the calls; the first is shown in the overlay
//! ([`ApprovalView`]).

use crossterm::event::KeyEvent;

use super::app::App;
use super::bridge::{ApprovalAnswer, ApprovalPrompt, Op};
use super::view::approval::ApprovalView;

impl App {
    /// Queues `prompt` behind the prompts of calls the model made before it.
    pub(crate) fn queue_approval(&mut self, prompt: ApprovalPrompt) {
        let order = |call_id: &str| self.tools.iter().position(|t| t.pane.call.id == call_id);
        let rank = order(&prompt.call_id).unwrap_or(usize::MAX);
        let at = self
            .approvals
            .iter()
            .position(|queued| order(&queued.prompt.call_id).unwrap_or(usize::MAX) > rank)
            .unwrap_or(self.approvals.len());
        self.approvals.insert(at, ApprovalView::new(prompt));
    }

    /// Whether the approval overlay is open.
    pub fn approval_open(&self) -> bool {
        !self.approvals.is_empty()
    }

    /// A key while the overlay is open. `a` also approves the queued
    /// prompts of the same tool.
    pub(crate) fn approval_key(&mut self, key: KeyEvent) {
        let Some(view) = self.approvals.first_mut() else {
            return;
        };
        let Some(answer) = view.key(key) else {
            return;
        };
        let answered = self.approvals.remove(0);
        if answer == ApprovalAnswer::ApproveForSession {
            let tool = answered.prompt.tool.clone();
            let (same, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.approvals)
                .into_iter()
                .partition(|v| v.prompt.tool == tool);
            self.approvals = rest;
            for view in same {
                self.ops.push(Op::Approval {
                    id: view.prompt.id,
                    answer: ApprovalAnswer::Approve,
                });
            }
        }
        self.ops.push(Op::Approval {
            id: answered.prompt.id,
            answer,
        });
    }

    /// The turn ended: its pending calls were interrupted, nothing is left
    /// to answer.
    pub(crate) fn drop_approvals(&mut self) {
        self.approvals.clear();
    }
}
