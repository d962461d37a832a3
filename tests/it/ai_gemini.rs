//! The Gemini adaptor's quirks: what its fixtures decode to, blocked
//! prompts, id-less calls
//! named across turns, the key in a header, summaries without thoughts,
//! and the replay of call ids and thought signatures. What every adaptor
//! does alike (fixtures split at every byte among it) is in
//! `ai_conformance.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use light_agent::ai::gemini::{self, CallIds, GeminiDecoder, SKIP_SIGNATURE_SENTINEL};
use light_agent::ai::{
    Adaptor, AiError, AiErrorKind, GeminiAdaptor, HttpOptions, StreamRequest, TextRequest,
    WireDecoder,
};
use light_agent::protocol::{AgentEvent, Meta, ToolOutcome, ToolSpec, Usage};
use serde_json::{Value, json};
use support::adaptor_calls::{collect_request, hello_request};
use support::decoding::{Decoded, finals, fixture};
use support::history::call;
use support::{GeminiStream, MockModel, Reply};
use tokio_util::sync::CancellationToken;

const KEY: &str = "AIzaTEST-SECRET-4242";

// ---------------------------------------------------------------- fixtures

fn decode_cut(bytes: &[u8], cuts: &[usize]) -> Decoded {
    support::decoding::decode_cut(
        &mut GeminiDecoder::new(CallIds::with_token("t")),
        bytes,
        cuts,
    )
}

#[test]
fn thoughts_text_and_id_less_calls_decode_with_fresh_ids_and_usage() {
    let (events, totals) = decode_cut(&fixture("gemini_thought_tool_calls.sse"), &[]);
    assert_eq!(
        finals(&events),
        vec![
            AgentEvent::Thought {
                text: "**Planning** I need the layout and the entry point.".into(),
                meta: Meta::default()
            },
            AgentEvent::Output {
                text: "Let me look — ✓ first.".into(),
                meta: Meta::default()
            },
            AgentEvent::ToolCalls {
                calls: vec![
                    call(
                        "gemini_1_t",
                        "tree",
                        json!({"path": ".", "_intent": "see the layout"})
                    ),
                    call(
                        "gemini_2_t",
                        "grep",
                        json!({"search_strs": ["fn main"], "_intent": "find main"})
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
            input: 1210,
            output: 48 + 30,
            total: 1288,
            cached: Some(1024)
        }
    );
    assert_eq!(totals.model.as_deref(), Some("gemini-2.5-pro"));
}

#[test]
fn usage_on_the_last_chunk_only_and_no_final_blank_line() {
    let (events, totals) = decode_cut(&fixture("gemini_text_no_trailing_blank.sse"), &[]);
    assert_eq!(
        finals(&events),
        vec![AgentEvent::Output {
            text: "Two plus two is **4**.".into(),
            meta: Meta::default()
        }]
    );
    assert_eq!(
        totals.unwrap().usage,
        Usage {
            input: 9,
            output: 8,
            total: 17,
            cached: None
        }
    );
}

#[test]
fn an_error_chunk_ends_the_stream_with_a_retryable_provider_error() {
    let (_, totals) = decode_cut(&fixture("gemini_error_chunk.sse"), &[]);
    let err = totals.unwrap_err();
    assert_eq!((err.kind, err.retryable), (AiErrorKind::Provider, true));
    assert!(err.message.contains("overloaded"), "{err}");
}

#[test]
fn ids_keep_counting_across_turns_instead_of_repeating() {
    let ids = CallIds::with_token("t");
    let bytes = fixture("gemini_thought_tool_calls.sse");
    let mut seen = Vec::new();
    for _turn in 0..2 {
        let mut decoder = GeminiDecoder::new(ids.clone());
        let mut events = Vec::new();
        decoder.feed(&bytes, &mut events).unwrap();
        decoder.finish(&mut events).unwrap();
        for event in events {
            if let AgentEvent::ToolCalls { calls, .. } = event {
                seen.extend(calls.into_iter().map(|c| c.id));
            }
        }
    }
    assert_eq!(
        seen,
        ["gemini_1_t", "gemini_2_t", "gemini_3_t", "gemini_4_t"]
    );
}

#[test]
fn blocked_prompts_withheld_answers_and_malformed_calls_are_errors() {
    let cases = [
        (
            json!({"promptFeedback": {"blockReason": "SAFETY"}}),
            AiErrorKind::Request,
            false,
        ),
        (
            json!({"candidates": [{"finishReason": "SAFETY", "index": 0}]}),
            AiErrorKind::Request,
            false,
        ),
        (
            json!({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "index": 0}]}),
            AiErrorKind::Provider,
            true,
        ),
        (
            json!({"error": {"code": 400, "message": "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}),
            AiErrorKind::ContextLength,
            false,
        ),
    ];
    for (chunk, kind, retryable) in cases {
        let body = format!("data: {chunk}\r\n\r\n");
        let (_, totals) = decode_cut(body.as_bytes(), &[]);
        let err = totals.unwrap_err();
        assert_eq!(
            (err.kind, err.retryable),
            (kind, retryable),
            "{chunk}: {err}"
        );
    }
}

// ------------------------------------------------------------ mock server

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "grep".into(),
        description: "Search files.".into(),
        schema: json!({"type": "object", "additionalProperties": false,
            "properties": {"search_strs": {"type": "array", "items": {"type": "string"}}}}),
    }]
}

fn request() -> StreamRequest {
    StreamRequest {
        tools: tools(),
        ..hello_request()
    }
}

fn adaptor(mock: &MockModel, model: &str) -> GeminiAdaptor {
    GeminiAdaptor::new(mock.url(), Some(KEY.into()), model, HttpOptions::default())
        .unwrap()
        .with_call_ids(CallIds::with_token("t"))
}

async fn collect(adaptor: &dyn Adaptor) -> (Vec<AgentEvent>, Option<AiError>) {
    collect_request(adaptor, request(), CancellationToken::new()).await
}

#[tokio::test]
async fn the_key_goes_in_a_header_and_the_body_asks_for_thoughts_in_gemini_s_schema_dialect() {
    let mock = MockModel::start([GeminiStream::new().text("hi").into_reply()]).await;
    let (_, error) = collect(&adaptor(&mock, "gemini-2.5-pro")).await;
    assert_eq!(error, None);
    let sent = &mock.requests()[0];
    assert_eq!(sent.header("x-goog-api-key"), Some(KEY));
    assert!(
        !sent.path.contains("SECRET"),
        "the key never goes in the URL"
    );
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(
        sent.body,
        gemini::build_request_body("gemini-2.5-pro", &request())
    );
    assert_eq!(
        sent.body["generationConfig"]["thinkingConfig"]["includeThoughts"],
        true
    );
    assert_eq!(
        sent.body["systemInstruction"]["parts"][0]["text"],
        "You are terse."
    );
    assert!(
        sent.body["tools"][0]["functionDeclarations"][0]["parameters"]
            .get("additionalProperties")
            .is_none()
    );
}

#[tokio::test]
async fn generate_text_uses_generate_content_and_skips_thoughts() {
    let mock = MockModel::start([Reply::json(json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "Planning.", "thought": true}, {"text": "Summary "}, {"text": "text."}]},
            "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 6, "thoughtsTokenCount": 4,
                          "totalTokenCount": 50, "cachedContentTokenCount": 8},
    }))])
    .await;
    let req = TextRequest {
        system_prompt: "Summarise.".into(),
        prompt: "history".into(),
    };
    let answer = adaptor(&mock, "gemini-2.5-flash")
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
    assert_eq!(sent.path, "/v1beta/models/gemini-2.5-flash:generateContent");
    assert_eq!(sent.header("x-goog-api-key"), Some(KEY));
    assert_eq!(sent.body, gemini::build_text_body(&req));
}

/// `history` plus one step the adaptor produced (as step `step` of turn
/// 1), each of its calls answered "ok".
fn follow_up(history: &[AgentEvent], step: u32, produced: &[AgentEvent]) -> StreamRequest {
    let mut events = history.to_vec();
    for event in produced {
        match event {
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
            AgentEvent::Output { text, .. } => events.push(AgentEvent::Output {
                text: text.clone(),
                meta: Meta::new(1, step),
            }),
            _ => {}
        }
    }
    StreamRequest {
        events,
        ..request()
    }
}

fn call_parts(body: &Value) -> Vec<Value> {
    body["contents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap().clone())
        .filter(|p| p.get("functionCall").is_some())
        .collect()
}

#[tokio::test]
async fn thought_signatures_are_echoed_and_ids_stay_unique_across_steps() {
    let signed = GeminiStream::new()
        .signed_function_call("grep", json!({"search_strs": ["a"]}), "SIG-ONE")
        .function_call("tree", json!({}))
        .into_reply();
    let second = GeminiStream::new()
        .function_call("grep", json!({"search_strs": ["b"]}))
        .into_reply();
    let mock = MockModel::start([
        signed,
        second,
        GeminiStream::new().text("done").into_reply(),
    ])
    .await;
    let adaptor = adaptor(&mock, "gemini-3-pro-preview");

    let (first, error) = collect(&adaptor).await;
    assert_eq!(error, None);
    let req2 = follow_up(&request().events, 1, &first);
    let (second, error) = collect_request(&adaptor, req2.clone(), CancellationToken::new()).await;
    assert_eq!(error, None);
    let req3 = follow_up(&req2.events, 2, &second);
    let (_, error) = collect_request(&adaptor, req3, CancellationToken::new()).await;
    assert_eq!(error, None);

    let requests = mock.requests();
    let parts = call_parts(&requests[1].body);
    assert_eq!(parts.len(), 2);
    assert_eq!(
        parts[0]["thoughtSignature"], "SIG-ONE",
        "the real signature is replayed"
    );
    assert!(parts[1].get("thoughtSignature").is_none(), "{}", parts[1]);
    let ids: Vec<String> = call_parts(&requests[2].body)
        .iter()
        .map(|p| p["functionCall"]["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["gemini_1_t", "gemini_2_t", "gemini_3_t"]);
    let third_step_first_call = &call_parts(&requests[2].body)[2];
    assert_eq!(
        third_step_first_call["thoughtSignature"], SKIP_SIGNATURE_SENTINEL,
        "an unsigned step gets the documented sentinel on Gemini 3"
    );
    let responses: Vec<String> = requests[1].body["contents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap().clone())
        .filter_map(|p| p["functionResponse"]["id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        responses,
        ["gemini_1_t", "gemini_2_t"],
        "results in call order"
    );
}
