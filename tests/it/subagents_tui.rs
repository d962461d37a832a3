#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A subagent in the TUI, in the view-model and in a pty against the mock:
//! the `task` call is one pane whose live line is the child's status (step,
//! current tool); Ctrl+T shows the child's transcript indented under its
//! agent and call.

use crate::support;
use crate::tui_e2e::child::{agent_command, fixture, wait_ready};
use crate::tui_e2e::pty::{Key, Pty, WAIT};
use crate::tui_support;

use crossterm::event::{KeyCode, KeyModifiers};
use light_agent::protocol::{AgentEvent, HostEvent, Notice, ToolCall};
use serde_json::json;
use support::{MockModel, OpenAiStream, Reply};
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
        op: None,
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
            op: None,
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

/// The real binary in a pty: the `task` pane shows the running child's
/// step, Ctrl+T its steps; the parent's answer comes once the child's does.
#[tokio::test(flavor = "multi_thread")]
async fn in_the_terminal_a_child_is_one_pane_with_its_status_and_its_steps_in_ctrl_t() {
    let mock = MockModel::start([]).await;
    let (open, gate) = tokio::sync::watch::channel(false);
    mock.respond_with(move |request| {
        let parent = request.body["tools"].to_string().contains("\"task\"");
        let results = request.body["messages"]
            .to_string()
            .contains("\"role\":\"tool\"");
        match (parent, results) {
            (true, false) => {
                let args = json!({"description": "find main", "prompt": "where is main?"});
                OpenAiStream::new()
                    .tool_call("call_t", "task", &[&args.to_string()])
                    .into_reply()
            }
            (true, true) => Reply::openai_text("the parent is done"),
            (false, false) => {
                let args = json!({"_intent": "look", "path": "src/main.rs"});
                OpenAiStream::new()
                    .tool_call("call_r", "read_file", &[&args.to_string()])
                    .into_reply()
            }
            (false, true) => Reply::openai_text("main is in src/main.rs").held_until(gate.clone()),
        }
    });
    let f = fixture();
    std::fs::write(f.home.join("config.toml"), "[agents]\nenabled = true\n").unwrap();
    let mut cmd = agent_command(&f, Some(&mock.openai_base_url()));
    cmd.arg("--new");
    let pty = Pty::spawn(cmd);
    wait_ready(&pty);
    pty.type_text("find it");
    pty.wait_for_text("find it", WAIT);
    pty.press(Key::Enter);
    // The child read a file and waits for its model: its pane says so.
    pty.wait_for_text("step 2", WAIT);
    let screen = pty.screen();
    assert!(screen.contains("task"), "{screen}");
    pty.press(Key::CtrlT);
    pty.wait_for_text("general [call_t] → read_file", WAIT);
    pty.press(Key::Esc);
    pty.wait_for_text("step 2", WAIT);
    open.send_replace(true);
    pty.wait_for_anywhere("the parent is done", WAIT);
}
