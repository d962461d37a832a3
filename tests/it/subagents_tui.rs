#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A subagent in the TUI's view-model: the `task` call is one pane whose
//! live line is the child's status (step, current tool); Ctrl+T shows the
//! child's transcript indented under its agent and call.

use crate::tui_support;

use crossterm::event::{KeyCode, KeyModifiers};
use light_agent::protocol::{AgentEvent, HostEvent, Notice, ToolCall};
use tui_support::*;

fn task_call(id: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "task".into(),
        args: serde_json::json!({"description": "find the parser", "prompt": "where is it?"}),
    }
}

fn child(call_id: &str, event: AgentEvent) -> HostEvent {
    HostEvent::Notice {
        notice: Notice::Subagent {
            call_id: call_id.into(),
            session_id: "s-child".into(),
            agent: "general".into(),
            event: Box::new(event),
        },
    }
}

#[test]
fn a_running_child_shows_its_status_in_its_pane_and_its_steps_in_the_transcript() {
    let (mut app, _) = app(80, 20);
    ev(&mut app, user_input("research"));
    ev(
        &mut app,
        AgentEvent::ToolCalls {
            calls: vec![task_call("c1")],
            meta: meta(),
        },
    );
    let mut grep = grep_call("k1");
    grep.args = serde_json::json!({"pattern": "fn parse"});
    input(
        &mut app,
        child(
            "c1",
            AgentEvent::ToolCalls {
                calls: vec![grep],
                meta: meta(),
            },
        ),
    );
    input(
        &mut app,
        HostEvent::Notice {
            notice: Notice::ToolOutput {
                call_id: "c1".into(),
                text: "step 1 · grep".into(),
            },
        },
    );
    let text = screen(&mut app, 80, 20);
    assert!(text.contains("task"), "{text}");
    assert!(text.contains("step 1 · grep"), "{text}");
    input(
        &mut app,
        child(
            "c1",
            AgentEvent::Output {
                text: "the parser is in src/parse.rs".into(),
                meta: meta(),
            },
        ),
    );
    key_mod(&mut app, KeyCode::Char('t'), KeyModifiers::CONTROL);
    let text = screen(&mut app, 80, 20);
    assert!(
        text.contains("│ general [c1] → grep"),
        "the child's call under its agent and call: {text}"
    );
    assert!(
        text.contains("│ general [c1] the parser is in src/parse.rs"),
        "{text}"
    );
}
