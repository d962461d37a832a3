//! A plan marked done without the work.
//!
//! A weak model told "Now do X" often answers with another `update_plan`
//! that marks X completed, and the next, until every step is "completed"
//! and nothing was changed. Such an update is still accepted — a step may
//! need no tool, and the plan is the model's — but its result then says
//! that nothing ran since the previous one.

use crate::protocol::{AgentEvent, Plan, StepStatus, ToolCall, UPDATE_PLAN};

/// The note `call` gets when it is an `update_plan` that marks steps
/// completed although no other tool ran in this turn since the previous
/// `update_plan` (or since the turn began: a first plan "completed" at
/// once). `window` holds this step's calls already. `None` for any other
/// call, or when work was done in between.
pub(super) fn unworked_completion(
    window: &[AgentEvent],
    call: &ToolCall,
    turn: u64,
) -> Option<String> {
    let plan = Plan::from_call(call)?;
    let earlier = window.iter().rev().filter_map(|event| match event {
        AgentEvent::ToolCalls { calls, meta } if meta.turn == turn => Some(calls),
        _ => None,
    });
    let mut previous = None;
    'search: for calls in earlier {
        for other in calls.iter().rev().filter(|c| c.id != call.id) {
            if other.name != UPDATE_PLAN {
                return None;
            }
            previous = Plan::from_call(other);
            if previous.is_some() {
                break 'search;
            }
        }
    }
    let previous = previous.unwrap_or_default();
    let done_before = |step: &str| {
        previous
            .plan
            .iter()
            .any(|s| s.step == step && s.status == StepStatus::Completed)
    };
    let newly: Vec<String> = plan
        .plan
        .iter()
        .filter(|s| s.status == StepStatus::Completed && !done_before(&s.step))
        .map(|s| format!("{:?}", s.step))
        .collect();
    (!newly.is_empty()).then(|| {
        format!(
            "\n[check]: no other tool ran since your previous plan or the request, yet this marks {} completed; \
             if a step changes files or runs something, do it now with your other tools, then mark it completed",
            newly.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Meta;
    use serde_json::json;

    fn plan_call(id: &str, statuses: [&str; 2]) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: UPDATE_PLAN.into(),
            args: json!({"plan": [
                {"step": "bump the version", "status": statuses[0]},
                {"step": "add --version", "status": statuses[1]},
            ]}),
        }
    }

    fn edit_call(id: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "edit".into(),
            args: json!({"path": "version.py"}),
        }
    }

    fn step(turn: u64, step: u32, calls: Vec<ToolCall>) -> AgentEvent {
        AgentEvent::ToolCalls {
            calls,
            meta: Meta::new(turn, step),
        }
    }

    #[test]
    fn completing_a_step_with_nothing_run_since_the_last_plan_is_noted() {
        let now = plan_call("p2", ["completed", "pending"]);
        let window = vec![
            step(1, 1, vec![plan_call("p1", ["pending", "pending"])]),
            step(1, 2, vec![now.clone()]),
        ];
        let note = unworked_completion(&window, &now, 1).unwrap();
        assert!(
            note.contains("marks \"bump the version\" completed"),
            "{note}"
        );
        assert!(!note.contains("add --version"), "{note}");
        // A turn's first plan, all "completed" before anything ran (an
        // earlier turn's work does not count).
        let first = vec![
            step(1, 1, vec![edit_call("e1")]),
            step(2, 1, vec![now.clone()]),
        ];
        assert!(unworked_completion(&first, &now, 2).is_some());
    }

    #[test]
    fn work_in_between_or_beside_it_or_a_first_plan_is_not_noted() {
        let now = plan_call("p2", ["completed", "pending"]);
        let first = plan_call("p1", ["pending", "pending"]);
        // An edit between the two plans.
        let worked = vec![
            step(1, 1, vec![first.clone()]),
            step(1, 2, vec![edit_call("e1")]),
            step(1, 3, vec![now.clone()]),
        ];
        assert_eq!(unworked_completion(&worked, &now, 1), None);
        // An edit in the same step as the new plan.
        let beside = vec![
            step(1, 1, vec![first.clone()]),
            step(1, 2, vec![edit_call("e1"), now.clone()]),
        ];
        assert_eq!(unworked_completion(&beside, &now, 1), None);
        // The turn's first plan after work in the turn.
        let after_work = vec![
            step(2, 1, vec![edit_call("e1")]),
            step(2, 2, vec![now.clone()]),
        ];
        assert_eq!(unworked_completion(&after_work, &now, 2), None);
        // Nothing newly completed.
        let same = plan_call("p3", ["completed", "pending"]);
        let window = vec![step(1, 1, vec![now]), step(1, 2, vec![same.clone()])];
        assert_eq!(unworked_completion(&window, &same, 1), None);
        // Not a plan.
        assert_eq!(unworked_completion(&window, &edit_call("e2"), 1), None);
    }
}
