//! The OpenAI Responses adaptor's quirks: what its fixtures decode to,
//! the stateless request and who is asked for reasoning, summaries, and
//! the replay of encrypted reasoning items. What every adaptor does alike
//! (fixtures split at every byte among it) is in `ai_conformance.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use light_agent::ai::responses::{self, ResponsesDecoder, ResponsesOptions};
use light_agent::ai::{
    Adaptor, AiError, AiErrorKind, HttpOptions, ResponsesAdaptor, StreamRequest, TextRequest,
};
use light_agent::protocol::{AgentEvent, Meta, ToolOutcome, Usage};
use serde_json::json;
use support::adaptor_calls::{collect_request, hello_request};
use support::decoding::{Decoded, finals, fixture};
use support::history::call;
use support::{MockModel, Reply, ResponsesStream};
use tokio_util::sync::CancellationToken;

const KEY: &str = "sk-test-SECRET-4242";

// ---------------------------------------------------------------- fixtures

const ERROR_FIXTURES: [&str; 2] = ["responses_failed.sse", "responses_error_event.sse"];

fn decode_cut(bytes: &[u8], cuts: &[usize]) -> Decoded {
    support::decoding::decode_cut(&mut ResponsesDecoder::new(), bytes, cuts)
}

#[test]
fn reasoning_summary_text_and_parallel_calls_assemble_per_output_item() {
    let (events, totals) = decode_cut(&fixture("responses_reasoning_parallel_tools.sse"), &[]);
    assert_eq!(
        finals(&events),
        vec![
            AgentEvent::Thought {
                text: "**Finding main**\n\nI'll search for it.\n\nAnd read lib.rs ✓".into(),
                meta: Meta::default()
            },
            AgentEvent::Output {
                text: "Searching now.".into(),
                meta: Meta::default()
            },
            AgentEvent::ToolCalls {
                calls: vec![
                    call(
                        "call_grep",
                        "grep",
                        json!({"search_strs": ["fn main"], "_intent": "find main"})
                    ),
                    call(
                        "call_read",
                        "read_file",
                        json!({"path": "src/lib.rs", "_intent": "read lib"})
                    ),
                ],
                meta: Meta::default()
            },
        ]
    );
    let totals = totals.unwrap();
    assert_eq!(
        totals.usage,
        Usage {
            input: 2048,
            output: 190,
            total: 2238,
            cached: Some(1536)
        }
    );
    assert_eq!(totals.model.as_deref(), Some("gpt-5-2025-08-07"));
}

#[test]
fn a_call_seen_only_in_output_item_done_is_taken_whole() {
    let (events, totals) = decode_cut(&fixture("responses_whole_call_in_item_done.sse"), &[]);
    assert_eq!(
        finals(&events),
        vec![
            AgentEvent::Output {
                text: "Checking the tree.".into(),
                meta: Meta::default()
            },
            AgentEvent::ToolCalls {
                calls: vec![call("call_tree", "tree", json!({"path": "."}))],
                meta: Meta::default()
            },
        ]
    );
    assert_eq!(totals.unwrap().usage.total, 320);
}

#[test]
fn failed_responses_and_error_events_end_the_stream_with_retryable_errors() {
    let expectations = [
        "The server had an error while processing your request.",
        "Rate limit reached",
    ];
    for (name, text) in ERROR_FIXTURES.into_iter().zip(expectations) {
        let (_, totals) = decode_cut(&fixture(name), &[]);
        let err = totals.unwrap_err();
        assert_eq!(
            (err.kind, err.retryable),
            (AiErrorKind::Provider, true),
            "{name}"
        );
        assert!(err.message.contains(text), "{name}: {err}");
    }
}

#[test]
fn a_context_length_failure_has_its_own_kind() {
    let body = format!(
        "data: {}\n\n",
        json!({"type": "response.failed", "response": {"status": "failed", "error": {
            "code": "context_length_exceeded",
            "message": "Your input exceeds the context window of this model."}}})
    );
    let err = decode_cut(body.as_bytes(), &[]).1.unwrap_err();
    assert_eq!(
        (err.kind, err.retryable),
        (AiErrorKind::ContextLength, false)
    );
}

// ------------------------------------------------------------ mock server

fn adaptor(mock: &MockModel, model: &str) -> ResponsesAdaptor {
    ResponsesAdaptor::new(
        mock.openai_base_url(),
        Some(KEY.into()),
        model,
        HttpOptions::default(),
    )
    .unwrap()
}

async fn collect(adaptor: &dyn Adaptor) -> (Vec<AgentEvent>, Option<AiError>) {
    collect_request(adaptor, hello_request(), CancellationToken::new()).await
}

#[tokio::test]
async fn reasoning_models_get_a_stateless_request_asking_for_encrypted_reasoning() {
    let mock = MockModel::start([ResponsesStream::new().text("hi").into_reply()]).await;
    let (_, error) = collect(&adaptor(&mock, "gpt-5")).await;
    assert_eq!(error, None);
    let sent = &mock.requests()[0];
    let options = ResponsesOptions::for_model("gpt-5");
    assert_eq!(
        sent.body,
        responses::build_request_body("gpt-5", options, &hello_request())
    );
    assert_eq!(sent.body["store"], false);
    assert_eq!(sent.body["stream"], true);
    assert_eq!(sent.body["instructions"], "You are terse.");
    assert_eq!(sent.body["include"], json!(["reasoning.encrypted_content"]));
    assert!(sent.body.get("previous_response_id").is_none());
    assert_eq!(sent.body["tools"][0]["name"], "grep");
}

#[tokio::test]
async fn plain_models_are_not_asked_for_reasoning() {
    let mock = MockModel::start([ResponsesStream::new().text("hi").into_reply()]).await;
    let (_, error) = collect(&adaptor(&mock, "gpt-4.1")).await;
    assert_eq!(error, None);
    let body = &mock.requests()[0].body;
    assert!(
        body.get("reasoning").is_none() && body.get("include").is_none(),
        "{body}"
    );
}

#[tokio::test]
async fn generate_text_is_a_non_streamed_request() {
    let mock = MockModel::start([Reply::json(json!({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5",
        "output": [
            {"id": "rs_1", "type": "reasoning", "summary": []},
            {"id": "msg_1", "type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "Summary ", "annotations": []},
                         {"type": "output_text", "text": "text.", "annotations": []}]}
        ],
        "usage": {"input_tokens": 40, "output_tokens": 10, "total_tokens": 50,
                  "input_tokens_details": {"cached_tokens": 8}}
    }))])
    .await;
    let req = TextRequest {
        system_prompt: "Summarise.".into(),
        prompt: "history".into(),
    };
    let answer = adaptor(&mock, "gpt-5")
        .generate_text(req.clone())
        .await
        .unwrap();
    assert_eq!(answer.text, "Summary text.");
    assert_eq!(
        answer.usage,
        Usage {
            input: 40,
            output: 10,
            total: 50,
            cached: Some(8)
        }
    );
    let sent = &mock.requests()[0];
    assert_eq!(sent.path, "/v1/responses");
    assert_eq!(sent.body, responses::build_text_body("gpt-5", &req));
    assert_eq!(sent.body["stream"], false);
}

fn answered(history: &[AgentEvent], step: u32, produced: &[AgentEvent]) -> StreamRequest {
    let mut events = history.to_vec();
    for event in produced {
        match event {
            AgentEvent::Output { text, .. } => events.push(AgentEvent::Output {
                text: text.clone(),
                meta: Meta::new(1, step),
            }),
            AgentEvent::ToolCalls { calls, .. } => {
                events.push(AgentEvent::ToolCalls {
                    calls: calls.clone(),
                    meta: Meta::new(1, step),
                });
                for call in calls {
                    events.push(AgentEvent::ToolResult {
                        outcome: ToolOutcome {
                            id: call.id.clone(),
                            name: call.name.clone(),
                            result: "ok".into(),
                            is_error: false,
                            display: None,
                        },
                        meta: Meta::new(1, step),
                    });
                }
            }
            _ => {}
        }
    }
    StreamRequest {
        events,
        ..hello_request()
    }
}

#[tokio::test]
async fn encrypted_reasoning_items_are_echoed_before_their_calls_without_ids() {
    let step1 = ResponsesStream::new()
        .reasoning("Plan A.", Some("ENC-A"))
        .function_call("call_a", "grep", &["{}"])
        .into_reply();
    let step2 = ResponsesStream::new()
        .reasoning("No blob.", None)
        .function_call("call_b", "grep", &["{}"])
        .into_reply();
    let mock = MockModel::start([
        step1,
        step2,
        ResponsesStream::new().text("done").into_reply(),
    ])
    .await;
    let adaptor = adaptor(&mock, "gpt-5");
    let (first, error) = collect(&adaptor).await;
    assert_eq!(error, None);
    let req2 = answered(&hello_request().events, 1, &first);
    let (second, error) = collect_request(&adaptor, req2.clone(), CancellationToken::new()).await;
    assert_eq!(error, None);
    let req3 = answered(&req2.events, 2, &second);
    let (_, error) = collect_request(&adaptor, req3, CancellationToken::new()).await;
    assert_eq!(error, None);

    let input = mock.requests()[2].body["input"].as_array().unwrap().clone();
    let types: Vec<&str> = input.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "message",
            "reasoning",
            "function_call",
            "function_call_output",
            "function_call",
            "function_call_output"
        ],
        "a reasoning item without encrypted content is not replayable and is left out"
    );
    assert_eq!(
        input[1],
        json!({"type": "reasoning", "encrypted_content": "ENC-A",
               "summary": [{"type": "summary_text", "text": "Plan A."}]})
    );
    assert!(
        input.iter().all(|i| i.get("id").is_none()),
        "no output ids are echoed"
    );
    assert_eq!(input[2]["call_id"], "call_a");
}
