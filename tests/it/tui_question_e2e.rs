#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `ask_user` and `update_plan` in the real binary, in a pty against the
//! mock model: the question overlay, an option chosen by its digit, a free
//! answer, the answers in the next request; the plan pinned above the
//! composer.

use crate::support;
use crate::tui_e2e::child::agent_command;
use crate::tui_e2e::pty;

use pty::{Key, Pty, WAIT};
use serde_json::json;
use support::child_env::Workspace;
use support::{MockModel, OpenAiStream, Reply};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_answered_by_digit_and_text_and_the_plan_is_pinned() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    let ask = json!({"questions": [
        {"question": "Which database?", "options": ["sqlite", "postgres"]},
        {"question": "Which port?"}]});
    let plan = json!({"plan": [
        {"step": "Create the schema", "status": "in_progress"},
        {"step": "Write the migration", "status": "pending"}]});
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "ask_user", &[&ask.to_string()])
            .into_reply(),
        OpenAiStream::new()
            .tool_call("call_2", "update_plan", &[&plan.to_string()])
            .into_reply(),
        Reply::openai_text("Planned with postgres."),
    ])
    .await;
    let pty = Pty::spawn(agent_command(&f, Some(&mock.openai_base_url())));
    pty.wait_for_text("mock-model", WAIT);

    pty.type_text("Set up the database");
    pty.wait_for_text("Set up the database", WAIT);
    pty.press(Key::Enter);
    pty.wait_for_text("Which database?", WAIT);
    pty.wait_for_text("2. postgres", WAIT);
    pty.type_text("2");
    pty.wait_for_text("Which port?", WAIT);
    pty.type_text("5433");
    pty.wait_for_text("› 5433", WAIT);
    pty.press(Key::Enter);

    pty.wait_for_anywhere("Planned with postgres.", WAIT);
    pty.wait_for_text("plan 0/2 (ctrl+p folds)", WAIT);
    pty.wait_for_text("[>] Create the schema", WAIT);
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("answer: postgres") && sent.contains("answer: 5433"),
        "{sent}"
    );
}
