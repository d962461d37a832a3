//! Exactly what the Gemini and Responses wire formats are sent for the
//! typical histories of `ai_request_shape.rs` (insta snapshots, plus
//! explicit checks of the rules the snapshots embody).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;
use light_agent::ai::StreamRequest;
use light_agent::ai::gemini;
use light_agent::ai::responses::{self, ResponsesOptions};

use serde_json::{Value, json};
use support::history::{
    call_with_bad_arguments_and_its_error_result, input, output,
    parallel_calls_with_reversed_results, request, summary_then_system_note,
    unanswered_call_then_interrupt,
};

/// Both bodies, side by side. The Gemini call `call_a` has a remembered
/// thought signature and the Responses step starting with `call_a` has a
/// remembered reasoning item, as after a live step.
fn bodies(req: &StreamRequest) -> Value {
    let signature = |id: &str| (id == "call_a").then(|| "SIG-A".to_owned());
    let reasoning = |id: &str| {
        (id == "call_a").then(|| {
            vec![json!({"type": "reasoning", "encrypted_content": "ENC-A",
                        "summary": [{"type": "summary_text", "text": "Plan."}]})]
        })
    };
    json!({
        "gemini": gemini::build_request_body_with("gemini-2.5-pro", req, signature),
        "responses": responses::build_request_body_with(
            "gpt-5", ResponsesOptions { reasoning: true }, req, reasoning),
    })
}

/// `role` of each Gemini content.
fn gemini_roles(body: &Value) -> Vec<String> {
    body["gemini"]["contents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["role"].as_str().unwrap().to_owned())
        .collect()
}

/// `type` (and `role` for messages) of each Responses input item.
fn responses_items(body: &Value) -> Vec<String> {
    body["responses"]["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| match i["role"].as_str() {
            Some(role) => format!("{}:{role}", i["type"].as_str().unwrap()),
            None => i["type"].as_str().unwrap().to_owned(),
        })
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
fn tool_step_with_parallel_calls_and_results_stored_in_reverse_order() {
    let bodies = bodies(&request(parallel_calls_with_reversed_results()));
    assert_eq!(gemini_roles(&bodies), ["user", "model", "user", "model"]);
    let gemini = &bodies["gemini"]["contents"];
    assert_eq!(gemini[1]["parts"][1]["functionCall"]["id"], "call_a");
    assert_eq!(gemini[1]["parts"][1]["thoughtSignature"], "SIG-A");
    assert_eq!(gemini[2]["parts"][0]["functionResponse"]["id"], "call_a");
    assert_eq!(gemini[2]["parts"][1]["functionResponse"]["id"], "call_b");
    assert_eq!(
        gemini[2]["parts"][0]["functionResponse"]["response"]["output"],
        "src/main.rs:1: fn main() {"
    );
    assert_eq!(
        responses_items(&bodies),
        [
            "message:user",
            "reasoning",
            "message:assistant",
            "function_call",
            "function_call",
            "function_call_output",
            "function_call_output",
            "message:assistant"
        ]
    );
    let input = &bodies["responses"]["input"];
    assert_eq!(input[5]["call_id"], "call_a");
    assert_eq!(input[6]["call_id"], "call_b");
    assert_eq!(bodies["responses"]["instructions"], "You are light-agent.");
    assert_bodies!(bodies);
}

#[test]
fn error_result_is_marked_for_the_model() {
    let req = request(call_with_bad_arguments_and_its_error_result());
    let bodies = bodies(&req);
    let gemini = &bodies["gemini"]["contents"];
    assert_eq!(gemini[1]["parts"][0]["functionCall"]["args"], json!({}));
    assert_eq!(
        gemini[2]["parts"][0]["functionResponse"]["response"],
        json!({"error": "invalid arguments: EOF while parsing"})
    );
    let input = &bodies["responses"]["input"];
    assert_eq!(input[1]["arguments"], "{}");
    assert_eq!(
        input[2]["output"],
        "[tool error] invalid arguments: EOF while parsing"
    );
    assert_bodies!(bodies);
}

#[test]
fn unanswered_call_after_an_interrupt_gets_an_interrupted_result_and_a_note() {
    let req = request(unanswered_call_then_interrupt());
    let bodies = bodies(&req);
    assert_eq!(gemini_roles(&bodies), ["user", "model", "user"]);
    let last = &bodies["gemini"]["contents"][2]["parts"];
    assert_eq!(
        last[1]["functionResponse"]["response"]["error"],
        "interrupted by user: this tool call did not finish"
    );
    assert_eq!(
        last[2]["text"],
        "[the previous turn was interrupted by the user]"
    );
    assert_eq!(last[3]["text"], "Never mind, stop.");
    let input = &bodies["responses"]["input"];
    assert_eq!(
        input[5]["output"],
        "[tool error] interrupted by user: this tool call did not finish"
    );
    assert_eq!(
        input[6]["content"][0]["text"],
        "[the previous turn was interrupted by the user]"
    );
    assert_bodies!(bodies);
}

#[test]
fn summary_is_a_labelled_note_where_it_sits() {
    let req = request(summary_then_system_note());
    let bodies = bodies(&req);
    assert_eq!(gemini_roles(&bodies), ["user", "model"]);
    let first = bodies["gemini"]["contents"][0]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(first.starts_with("[history summary of earlier turns]\nGoal"));
    let summary = bodies["responses"]["input"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(summary.starts_with("[history summary of earlier turns]\nGoal"));
    assert_bodies!(bodies);
}

#[test]
fn gemini_history_starting_with_the_model_opens_with_a_user_turn() {
    let body = gemini::build_request_body("gemini-2.5-pro", &request(vec![output(1, 1, "Hi.")]));
    let roles: Vec<&str> = body["contents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "model"]);
}

#[test]
fn no_tools_means_no_tool_fields() {
    let mut req = request(vec![input(1, "Hello")]);
    req.tools.clear();
    let bodies = bodies(&req);
    for key in ["tools", "toolConfig"] {
        assert!(bodies["gemini"].get(key).is_none(), "{key}");
    }
    for key in ["tools", "tool_choice", "parallel_tool_calls"] {
        assert!(bodies["responses"].get(key).is_none(), "{key}");
    }
}

#[test]
fn legacy_gemini_models_are_not_asked_for_thoughts() {
    let req = request(vec![input(1, "Hello")]);
    assert!(
        gemini::build_request_body("gemini-2.0-flash", &req)
            .get("generationConfig")
            .is_none()
    );
    assert_eq!(
        gemini::build_request_body("gemini-2.5-flash", &req)["generationConfig"],
        json!({"thinkingConfig": {"includeThoughts": true}})
    );
}
