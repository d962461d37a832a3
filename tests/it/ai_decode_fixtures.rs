//! Recorded-shape OpenAI-compatible and Anthropic streams through their
//! decoders: what each fixture decodes to, and the OpenAI dialects'
//! quirks. (Every fixture split at every byte, for all four formats, is in
//! `ai_conformance.rs`.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use light_agent::ai::anthropic::AnthropicDecoder;
use light_agent::ai::openai::OpenAiDecoder;
use light_agent::ai::{AiErrorKind, WireDecoder};
use light_agent::protocol::{AgentEvent, ToolCall, Usage};
use serde_json::json;
use support::decoding::{Decoded, finals, fixture};

#[derive(Debug, Clone, Copy)]
enum Wire {
    OpenAi,
    Anthropic,
}

fn decoder(wire: Wire) -> Box<dyn WireDecoder> {
    match wire {
        Wire::OpenAi => Box::new(OpenAiDecoder::new()),
        Wire::Anthropic => Box::new(AnthropicDecoder::new()),
    }
}

/// Feeds `bytes` cut at `cuts` (sorted offsets) and finishes.
fn decode_cut(wire: Wire, bytes: &[u8], cuts: &[usize]) -> Decoded {
    support::decoding::decode_cut(decoder(wire).as_mut(), bytes, cuts)
}

fn decode_whole(wire: Wire, name: &str) -> Decoded {
    decode_cut(wire, &fixture(name), &[])
}

fn thought(text: &str) -> AgentEvent {
    AgentEvent::Thought {
        text: text.into(),
        meta: Default::default(),
    }
}

fn output(text: &str) -> AgentEvent {
    AgentEvent::Output {
        text: text.into(),
        meta: Default::default(),
    }
}

fn calls(calls: Vec<(&str, &str, serde_json::Value)>) -> AgentEvent {
    AgentEvent::ToolCalls {
        calls: calls
            .into_iter()
            .map(|(id, name, args)| ToolCall {
                id: id.into(),
                name: name.into(),
                args,
            })
            .collect(),
        meta: Default::default(),
    }
}

const ERROR_FIXTURES: [(Wire, &str); 3] = [
    (Wire::OpenAi, "openai_error_after_finish.sse"),
    (Wire::OpenAi, "openai_error_event.sse"),
    (Wire::Anthropic, "anthropic_error_event.sse"),
];

#[test]
fn openai_parallel_tool_calls_assemble_by_index() {
    let (events, totals) = decode_whole(Wire::OpenAi, "openai_parallel_tools.sse");
    assert_eq!(
        finals(&events),
        vec![
            output("Let me look."),
            calls(vec![
                (
                    "call_Aa1",
                    "grep",
                    json!({"search_strs": ["fn main"], "_intent": "find the entry point"})
                ),
                (
                    "call_Bb2",
                    "read_file",
                    json!({"path": "src/main.rs", "_intent": "read it ✓"})
                ),
            ]),
        ]
    );
    let totals = totals.unwrap();
    assert_eq!(
        totals.usage,
        Usage {
            input: 812,
            output: 64,
            total: 876,
            cached: Some(512)
        }
    );
    assert_eq!(totals.model.as_deref(), Some("gpt-4o-2024-08-06"));
}

#[test]
fn deepseek_reasoning_content_and_usage_on_the_finish_chunk() {
    let (events, totals) = decode_whole(Wire::OpenAi, "deepseek_reasoning.sse");
    assert_eq!(
        finals(&events),
        vec![
            thought("The user asks for 2+2. That is 4; answer briefly."),
            output("2 + 2 = **4**."),
        ]
    );
    let usage = totals.unwrap().usage;
    assert_eq!((usage.input, usage.output, usage.total), (17, 45, 62));
}

#[test]
fn ollama_whole_calls_at_index_zero_stay_separate() {
    let (events, totals) = decode_whole(Wire::OpenAi, "ollama_tools.sse");
    assert_eq!(
        finals(&events),
        vec![
            thought("Need the tree first."),
            calls(vec![
                (
                    "call_h3k2",
                    "tree",
                    json!({"path": ".", "_intent": "see the layout"})
                ),
                ("call_p9q1", "grep", json!({"search_strs": ["TODO"]})),
            ]),
        ]
    );
    assert_eq!(totals.unwrap().usage.total, 271);
}

#[test]
fn openrouter_reasoning_counted_once_and_late_usage_kept() {
    let (events, totals) = decode_whole(Wire::OpenAi, "openrouter_reasoning_usage.sse");
    assert_eq!(
        finals(&events),
        vec![
            thought("Thinking about haiku form."),
            output("Old pond—\na frog jumps in,\nwater's sound."),
        ]
    );
    assert_eq!(totals.unwrap().usage.total, 82);
}

#[test]
fn stream_without_done_is_complete_after_a_finish_reason() {
    let (events, totals) = decode_whole(Wire::OpenAi, "llamacpp_no_done.sse");
    assert_eq!(finals(&events), vec![output("Hi there")]);
    assert_eq!(totals.unwrap().usage.total, 11);
}

#[test]
fn anthropic_thinking_text_and_tool_use() {
    let (events, totals) = decode_whole(Wire::Anthropic, "anthropic_thinking_tool_use.sse");
    assert_eq!(
        finals(&events),
        vec![
            thought("I should read the file."),
            output("Reading `Cargo.toml` now."),
            calls(vec![(
                "toolu_01T1x",
                "read_file",
                json!({"path": "Cargo.toml", "_intent": "check deps"})
            )]),
        ]
    );
    let totals = totals.unwrap();
    assert_eq!(
        totals.usage,
        Usage {
            input: 472 + 2048,
            output: 89,
            total: 472 + 2048 + 89,
            cached: Some(2048)
        }
    );
    assert_eq!(totals.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
}

#[test]
fn error_objects_in_a_200_stream_end_it_with_that_error() {
    let expectations = [
        (AiErrorKind::Provider, "Upstream provider returned an error"),
        (AiErrorKind::Provider, "Rate limit reached"),
        (AiErrorKind::Provider, "Overloaded"),
    ];
    for ((wire, name), (kind, text)) in ERROR_FIXTURES.into_iter().zip(expectations) {
        let (_, totals) = decode_whole(wire, name);
        let err = totals.unwrap_err();
        assert_eq!(err.kind, kind, "{name}: {err}");
        assert!(err.retryable, "{name}: {err}");
        assert!(err.message.contains(text), "{name}: {err}");
    }
}

#[test]
fn bad_json_tool_arguments_become_a_string_and_empty_ones_an_object() {
    let chunk = |args: &str, id: &str, index: u32| {
        let value = json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":index,"id":id,"function":{"name":"grep","arguments":args}}]}}]});
        format!("data: {value}\n\n")
    };
    let body = [
        chunk("{\"search_strs\": [\"x\"", "call_bad", 0),
        chunk("", "call_empty", 1),
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n".into(),
    ]
    .concat();
    let (events, totals) = decode_cut(Wire::OpenAi, body.as_bytes(), &[]);
    totals.unwrap();
    assert_eq!(
        finals(&events),
        vec![calls(vec![
            ("call_bad", "grep", json!("{\"search_strs\": [\"x\"")),
            ("call_empty", "grep", json!({})),
        ])]
    );
}

#[test]
fn a_server_that_ignores_stream_true_still_works() {
    let body = json!({
        "id": "x", "object": "chat.completion", "model": "local-model",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Checking.", "reasoning_content": "Plan.",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "tree", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "grep", "arguments": "{\"search_strs\":[\"a\"]}"}}
            ]}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 11}
    })
    .to_string();
    let bytes = body.as_bytes();
    for k in 0..=bytes.len() {
        let (events, totals) = decode_cut(Wire::OpenAi, bytes, &[k]);
        assert_eq!(
            finals(&events),
            vec![
                thought("Plan."),
                output("Checking."),
                calls(vec![
                    ("c1", "tree", json!({})),
                    ("c2", "grep", json!({"search_strs": ["a"]})),
                ]),
            ]
        );
        let totals = totals.unwrap();
        assert_eq!(
            (totals.usage.total, totals.model.as_deref()),
            (11, Some("local-model"))
        );
    }
}

#[test]
fn done_without_any_finish_reason_is_a_complete_stream() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"\"}]}\n\ndata: [DONE]\n\n";
    let (events, totals) = decode_cut(Wire::OpenAi, body.as_bytes(), &[]);
    assert_eq!(finals(&events), vec![output("ok")]);
    assert_eq!(totals.unwrap().usage, Usage::default());
}

#[test]
fn a_json_error_body_under_200_is_surfaced() {
    let body = r#"{"error":{"message":"model is loading","type":"server_error"}}"#;
    let (_, totals) = decode_cut(Wire::OpenAi, body.as_bytes(), &[]);
    let err = totals.unwrap_err();
    assert_eq!(err.kind, AiErrorKind::Provider);
    assert!(err.message.contains("model is loading"), "{err}");
}
