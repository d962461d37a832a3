//! Exactly what each wire format is sent for typical histories (insta
//! snapshots, plus explicit checks of the rules the snapshots embody).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use light_agent::ai::{StreamRequest, anthropic, openai};

use serde_json::{Value, json};
use support::history::{
    call_with_bad_arguments_and_its_error_result, input, output,
    parallel_calls_with_reversed_results, request, summary_then_system_note,
    unanswered_call_then_interrupt,
};

/// Both bodies, side by side.
fn bodies(req: &StreamRequest) -> Value {
    json!({
        "openai": openai::build_request_body("gpt-test", req),
        "anthropic": anthropic::build_request_body("claude-test", 8192, req),
    })
}

fn roles(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_owned())
        .collect()
}

/// Snapshots `bodies` with object keys sorted: the order a body's JSON
/// keeps depends on serde_json's `preserve_order`, which a dependency may
/// turn on (the ACP schema crate does); what is sent must read the same
/// either way. A macro, so the snapshot keeps its test's name.
macro_rules! assert_bodies {
    ($bodies:expr) => {
        insta::with_settings!({sort_maps => true}, {
            insta::assert_yaml_snapshot!($bodies);
        })
    };
}

#[test]
fn plain_prompt() {
    let req = request(vec![input(1, "Hello")]);
    let bodies = bodies(&req);
    assert_eq!(roles(&bodies["openai"]), ["system", "user"]);
    assert_eq!(bodies["openai"]["stream_options"]["include_usage"], true);
    assert_eq!(bodies["anthropic"]["system"], "You are light-agent.");
    assert_bodies!(bodies);
}

#[test]
fn parallel_tool_calls_with_results_stored_in_reverse_order() {
    let bodies = bodies(&request(parallel_calls_with_reversed_results()));
    let openai = &bodies["openai"];
    assert_eq!(
        roles(openai),
        ["system", "user", "assistant", "tool", "tool", "assistant"]
    );
    assert_eq!(openai["messages"][3]["tool_call_id"], "call_a");
    assert_eq!(openai["messages"][4]["tool_call_id"], "call_b");
    assert_eq!(
        openai["messages"][2]["reasoning_content"],
        "Search and read in parallel."
    );
    let anthropic = &bodies["anthropic"];
    assert_eq!(roles(anthropic), ["user", "assistant", "user", "assistant"]);
    let results = &anthropic["messages"][2]["content"];
    assert_eq!(results[0]["tool_use_id"], "call_a");
    assert_eq!(results[1]["tool_use_id"], "call_b");
    assert_bodies!(bodies);
}

#[test]
fn error_result_is_marked_for_the_model() {
    let req = request(call_with_bad_arguments_and_its_error_result());
    let bodies = bodies(&req);
    let tool = &bodies["openai"]["messages"][3];
    assert_eq!(
        tool["content"],
        "[tool error] invalid arguments: EOF while parsing"
    );
    assert_eq!(
        bodies["openai"]["messages"][2]["tool_calls"][0]["function"]["arguments"],
        "{}"
    );
    let block = &bodies["anthropic"]["messages"][2]["content"][0];
    assert_eq!(block["is_error"], true);
    assert_bodies!(bodies);
}

#[test]
fn unanswered_call_after_an_interrupt_gets_an_interrupted_result_and_a_note() {
    let req = request(unanswered_call_then_interrupt());
    let bodies = bodies(&req);
    let openai = &bodies["openai"];
    assert_eq!(
        roles(openai),
        [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "user",
            "user"
        ]
    );
    assert_eq!(
        openai["messages"][4]["content"],
        "[tool error] interrupted by user: this tool call did not finish"
    );
    assert_eq!(
        openai["messages"][5]["content"],
        "[the previous turn was interrupted by the user]"
    );
    assert_eq!(roles(&bodies["anthropic"]), ["user", "assistant", "user"]);
    assert_bodies!(bodies);
}

#[test]
fn summary_is_a_labelled_note_where_it_sits() {
    let req = request(summary_then_system_note());
    let bodies = bodies(&req);
    let openai = &bodies["openai"];
    assert_eq!(
        roles(openai),
        ["system", "system", "user", "user", "assistant"]
    );
    let summary = openai["messages"][1]["content"].as_str().unwrap();
    assert!(summary.starts_with("[history summary of earlier turns]\nGoal"));
    assert_eq!(
        openai["messages"][3]["content"],
        "[system note] Skill loaded: clap."
    );
    assert_eq!(roles(&bodies["anthropic"]), ["user", "assistant"]);
    assert_bodies!(bodies);
}

#[test]
fn history_starting_with_the_assistant_still_opens_with_a_user_message_for_anthropic() {
    let req = request(vec![output(1, 1, "Hi.")]);
    let body = anthropic::build_request_body("claude-test", 8192, &req);
    assert_eq!(roles(&body), ["user", "assistant"]);
}

#[test]
fn no_tools_means_no_tools_field() {
    let mut req = request(vec![input(1, "Hello")]);
    req.tools.clear();
    let bodies = bodies(&req);
    assert!(bodies["openai"].get("tools").is_none());
    assert!(bodies["openai"].get("tool_choice").is_none());
    assert!(bodies["anthropic"].get("tools").is_none());
}
