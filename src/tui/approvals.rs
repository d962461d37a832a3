//! The queue of changes waiting for the user's approval, in the order the
//! model made the calls; the first is shown in the overlay
//! ([`ApprovalView`]).

use crossterm::event::KeyEvent;

use super::app::App;
use super::view::approval::ApprovalView;
use super::view::question::Answered;
use crate::protocol::{ApprovalDecision, ApprovalRequest, Op, OpId, Submission};

impl App {
    /// Queues request `id` behind the requests of calls the model made
    /// before it.
    pub(crate) fn queue_approval(&mut self, id: OpId, request: ApprovalRequest) {
        let order = |call_id: &str| self.tools.iter().position(|t| t.pane.call.id == call_id);
        let rank = order(&request.call_id).unwrap_or(usize::MAX);
        let at = self
            .approvals
            .iter()
            .position(|queued| order(&queued.request.call_id).unwrap_or(usize::MAX) > rank)
            .unwrap_or(self.approvals.len());
        self.approvals.insert(at, ApprovalView::new(id, request));
    }

    /// Whether the approval overlay is open.
    pub fn approval_open(&self) -> bool {
        !self.approvals.is_empty()
    }

    /// A key while a question of `ask_user` is shown: the answers go back
    /// once the last question is answered, or none on Esc.
    pub(crate) fn question_key(&mut self, key: KeyEvent) {
        let Some(view) = self.question.as_mut() else {
            return;
        };
        let answers = match view.key(key) {
            Answered::Open => return,
            Answered::Done(answers) => answers,
            Answered::Declined => Vec::new(),
        };
        let id = view.id.clone();
        self.question = None;
        self.ops.push(Submission {
            id,
            op: Op::Answer { answers },
        });
    }

    /// A key while the overlay is open. `a` also approves the queued
    /// prompts of the same tool.
    pub(crate) fn approval_key(&mut self, key: KeyEvent) {
        let Some(view) = self.approvals.first_mut() else {
            return;
        };
        let Some(decision) = view.key(key) else {
            return;
        };
        let answered = self.approvals.remove(0);
        if decision == ApprovalDecision::ApproveForSession {
            let tool = answered.request.tool.clone();
            let (same, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.approvals)
                .into_iter()
                .partition(|v| v.request.tool == tool);
            self.approvals = rest;
            for view in same {
                self.push_decision(view.id, ApprovalDecision::Approve);
            }
        }
        self.push_decision(answered.id, decision);
    }

    /// The turn ended: its pending calls were interrupted, nothing is left
    /// to answer.
    pub(crate) fn drop_approvals(&mut self) {
        self.approvals.clear();
        self.question = None;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

    use super::*;
    use crate::protocol::{AgentEvent, Meta, StopCause, ToolCall};
    use crate::protocol::{ApprovalDetail, HostEvent, Op, Submission};
    use crate::tui::app::AppMsg;
    use crate::tui::options::TuiOptions;

    fn prompt(id: u64, call_id: &str, tool: &str) -> HostEvent {
        HostEvent::ApprovalRequested {
            id: OpId(format!("approval-{id}")),
            request: ApprovalRequest {
                call_id: call_id.into(),
                tool: tool.into(),
                title: format!("{tool} {call_id}"),
                detail: ApprovalDetail::Diff {
                    unified: "+x\n".into(),
                },
            },
        }
    }

    fn decision(id: u64, decision: ApprovalDecision) -> Submission {
        Submission::new(format!("approval-{id}"), Op::Approval { decision })
    }

    fn press(app: &mut App, c: char) {
        let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        app.update(AppMsg::Terminal(Event::Key(key)));
    }

    fn app_with_calls(ids: &[&str]) -> App {
        let mut app = App::new(TuiOptions::default(), 80, 24, Instant::now(), 0);
        let calls = ids
            .iter()
            .map(|id| ToolCall {
                id: (*id).into(),
                name: "edit".into(),
                args: serde_json::json!({"path": "a"}),
            })
            .collect();
        let meta = Meta { turn: 1, step: 1 };
        app.update(AppMsg::Input(HostEvent::Agent {
            event: AgentEvent::ToolCalls { calls, meta },
        }));
        app
    }

    #[test]
    fn prompts_queue_in_call_order_and_a_answers_the_same_tool() {
        let mut app = app_with_calls(&["c1", "c2", "c3"]);
        app.update(AppMsg::Input(prompt(30, "c3", "edit")));
        app.update(AppMsg::Input(prompt(10, "c1", "edit")));
        app.update(AppMsg::Input(prompt(20, "c2", "write")));
        let order: Vec<&str> = app.approvals.iter().map(|v| v.id.0.as_str()).collect();
        assert_eq!(order, ["approval-10", "approval-20", "approval-30"]);
        press(&mut app, 'y');
        assert_eq!(app.take_ops(), [decision(10, ApprovalDecision::Approve)]);
        press(&mut app, 'a');
        assert_eq!(
            app.take_ops(),
            [decision(20, ApprovalDecision::ApproveForSession)]
        );
        assert_eq!(app.approvals.len(), 1, "another tool's prompt stays");
    }

    #[test]
    fn the_end_of_a_turn_drops_what_was_pending() {
        let mut app = app_with_calls(&["c1"]);
        app.update(AppMsg::Input(prompt(1, "c1", "edit")));
        assert!(app.approval_open());
        let stop = AgentEvent::AgentStop {
            cause: StopCause::User,
            message: "interrupted by user".into(),
            meta: Meta { turn: 1, step: 1 },
        };
        app.update(AppMsg::Input(HostEvent::Agent { event: stop }));
        assert!(!app.approval_open());
        press(&mut app, 'y');
        assert!(app.take_ops().is_empty(), "keys go back to the composer");
    }
}
