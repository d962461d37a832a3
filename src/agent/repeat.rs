//! A call the model repeats unchanged from its previous step.
//!
//! A weak model that does not know what to do next often sends the very
//! call it just made (the same search, the same plan) until the step limit.
//! The call still runs — its result may differ, and withholding it would
//! be a guess — but the result then says so and asks for a different move.

use crate::protocol::{AgentEvent, INTENT_FIELD, Meta, ToolCall};

/// What a repeated call's result ends with.
pub(super) const REPEAT_NOTE: &str = "\n[repeat]: you made this same call in your previous step; \
use its result instead of calling again: take the next step with another tool or other arguments, \
or answer";

/// The calls of the step before `meta`'s in the same turn, from `window`
/// (empty for a turn's first step).
pub(super) fn previous_step_calls(window: &[AgentEvent], meta: Meta) -> &[ToolCall] {
    window
        .iter()
        .rev()
        .find_map(|event| match event {
            AgentEvent::ToolCalls { calls, meta: m }
                if m.turn == meta.turn && m.step + 1 == meta.step =>
            {
                Some(calls.as_slice())
            }
            _ => None,
        })
        .unwrap_or_default()
}

/// Whether `call` names the same tool as `earlier` with the same arguments,
/// `_intent` aside.
pub(super) fn same_call(call: &ToolCall, earlier: &ToolCall) -> bool {
    call.name == earlier.name && without_intent(&call.args) == without_intent(&earlier.args)
}

fn without_intent(args: &serde_json::Value) -> serde_json::Value {
    let mut args = args.clone();
    if let Some(object) = args.as_object_mut() {
        object.remove(INTENT_FIELD);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            args,
        }
    }

    fn step(turn: u64, step: u32, calls: Vec<ToolCall>) -> AgentEvent {
        AgentEvent::ToolCalls {
            calls,
            meta: Meta::new(turn, step),
        }
    }

    #[test]
    fn the_previous_step_is_the_one_just_before_in_the_same_turn() {
        let grep = call("a", "grep", json!({"search_strs": ["port"]}));
        let read = call("b", "read_file", json!({"path": "a.py"}));
        let window = vec![
            step(1, 1, vec![read.clone()]),
            step(2, 1, vec![grep.clone()]),
            step(2, 2, vec![read.clone()]),
        ];
        assert_eq!(previous_step_calls(&window, Meta::new(2, 2)), &[grep]);
        assert_eq!(previous_step_calls(&window, Meta::new(2, 3)), &[read]);
        assert!(previous_step_calls(&window, Meta::new(2, 1)).is_empty());
        assert!(previous_step_calls(&window, Meta::new(3, 2)).is_empty());
    }

    #[test]
    fn the_same_call_ignores_the_intent_and_the_id_only() {
        let first = call(
            "a",
            "grep",
            json!({"search_strs": ["port"], "_intent": "find"}),
        );
        let again = call(
            "b",
            "grep",
            json!({"search_strs": ["port"], "_intent": "again"}),
        );
        let other = call(
            "c",
            "grep",
            json!({"search_strs": ["default"], "_intent": "find"}),
        );
        let renamed = call(
            "d",
            "tree",
            json!({"search_strs": ["port"], "_intent": "find"}),
        );
        assert!(same_call(&again, &first));
        assert!(!same_call(&other, &first));
        assert!(!same_call(&renamed, &first));
    }
}
