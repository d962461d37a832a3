//! Streams recorded from the real APIs by other projects, for all four wire
//! formats (`tests/fixtures/recorded/`, provenance in its README), replayed
//! through the decoders whole and at split points.

use light_agent::ai::anthropic::AnthropicDecoder;
use light_agent::ai::gemini::{CallIds, GeminiDecoder};
use light_agent::ai::openai::OpenAiDecoder;
use light_agent::ai::responses::ResponsesDecoder;
use light_agent::ai::{AiErrorKind, WireDecoder};
use light_agent::protocol::{AgentEvent, ToolCall, Usage};
use serde_json::json;
use support::decoding::{
    Decoded, assert_same_at_split_points, deltas_concat, finals, full_text, recorded,
};

use crate::support;

#[derive(Debug, Clone, Copy)]
enum Wire {
    OpenAi,
    Anthropic,
    Gemini,
    Responses,
}

/// Every recorded stream and the decoder it is replayed through.
const RECORDED: [(Wire, &str); 16] = [
    (Wire::OpenAi, "openai_gpt_4o_mini_tool_call.sse"),
    (Wire::OpenAi, "openai_gpt_4o_mini_text.sse"),
    (Wire::Anthropic, "anthropic_claude_sonnet_4_thinking.sse"),
    (Wire::Gemini, "gemini_2_0_flash_text_shrinking_usage.sse"),
    (Wire::Gemini, "gemini_2_5_pro_thoughts.sse"),
    (Wire::Gemini, "gemini_3_pro_call_with_signature.sse"),
    (Wire::Gemini, "gemini_3_pro_answer_after_call.sse"),
    (Wire::Gemini, "gemini_3_flash_call_with_id.sse"),
    (Wire::Gemini, "gemini_blocked_prompt.sse"),
    (Wire::Responses, "responses_gpt_4o_text.sse"),
    (Wire::Responses, "responses_gpt_4o_function_call.sse"),
    (Wire::Responses, "responses_gpt_5_1_codex_reasoning_1.sse"),
    (Wire::Responses, "responses_gpt_5_1_codex_reasoning_2.sse"),
    (Wire::Responses, "responses_gpt_5_1_codex_reasoning_3.sse"),
    (Wire::Responses, "responses_gpt_5_1_codex_reasoning_4.sse"),
    (Wire::Responses, "responses_gpt_5_nano_quota_error.sse"),
];

fn decode_cut(wire: Wire, bytes: &[u8], cuts: &[usize]) -> Decoded {
    match wire {
        Wire::OpenAi => support::decoding::decode_cut(&mut OpenAiDecoder::new(), bytes, cuts),
        Wire::Anthropic => support::decoding::decode_cut(&mut AnthropicDecoder::new(), bytes, cuts),
        Wire::Gemini => support::decoding::decode_cut(
            &mut GeminiDecoder::new(CallIds::with_token("t")),
            bytes,
            cuts,
        ),
        Wire::Responses => support::decoding::decode_cut(&mut ResponsesDecoder::new(), bytes, cuts),
    }
}

fn decode(wire: Wire, name: &str) -> Decoded {
    decode_cut(wire, &recorded(name), &[])
}

fn output(text: &str) -> AgentEvent {
    AgentEvent::Output {
        text: text.into(),
        meta: Default::default(),
    }
}

fn call(id: &str, name: &str, args: serde_json::Value) -> AgentEvent {
    AgentEvent::ToolCalls {
        calls: vec![ToolCall {
            id: id.into(),
            name: name.into(),
            args,
        }],
        meta: Default::default(),
    }
}

fn usage(input: u64, output: u64, total: u64, cached: Option<u64>) -> Usage {
    Usage {
        input,
        output,
        total,
        cached,
    }
}

/// Recordings up to this size are cut once at every offset; larger ones
/// (long reasoning streams, where that is quadratic) are fed a byte at a
/// time and cut once around every line break.
const CUT_AT_EVERY_OFFSET_UP_TO: usize = 4 * 1024;

#[test]
fn every_recording_decodes_identically_at_every_split_point() {
    for (wire, name) in RECORDED {
        assert_same_at_split_points(
            name,
            &recorded(name),
            CUT_AT_EVERY_OFFSET_UP_TO,
            |bytes, cuts| decode_cut(wire, bytes, cuts),
        );
    }
}

#[test]
fn deltas_of_every_recording_add_up_to_its_full_events() {
    for (wire, name) in RECORDED {
        let (events, _) = decode(wire, name);
        for thought in [true, false] {
            assert_eq!(
                deltas_concat(&events, thought),
                full_text(&events, thought),
                "{name}"
            );
        }
    }
}

// ---- OpenAI Chat Completions and Anthropic ----

#[test]
fn openai_call_and_the_usage_chunk_after_the_finish() {
    let (events, totals) = decode(Wire::OpenAi, "openai_gpt_4o_mini_tool_call.sse");
    assert_eq!(
        finals(&events),
        vec![call(
            "call_ZR5UUuTt3pf61kjwAJIYdVMj",
            "get_capital",
            json!({"country": "UK"})
        )]
    );
    // Usage comes on its own chunk (`choices: []`) after finish_reason.
    let totals = totals.unwrap();
    assert_eq!(totals.usage, usage(53, 15, 68, Some(0)));
    assert_eq!(totals.model.as_deref(), Some("gpt-4o-mini-2024-07-18"));
    let (events, totals) = decode(Wire::OpenAi, "openai_gpt_4o_mini_text.sse");
    assert_eq!(
        finals(&events),
        vec![output("The capital of the UK is London.")]
    );
    assert_eq!(totals.unwrap().usage, usage(78, 9, 87, Some(0)));
}

#[test]
fn anthropic_thinking_then_text_with_cumulative_usage() {
    let (events, totals) = decode(Wire::Anthropic, "anthropic_claude_sonnet_4_thinking.sse");
    assert_eq!(finals(&events).len(), 2);
    let thought = full_text(&events, true);
    let answer = full_text(&events, false);
    assert!(
        thought.starts_with("This is a straightforward question about pedestrian safety."),
        "{thought}"
    );
    assert_eq!(thought.chars().count(), 202);
    assert!(
        answer.starts_with("Here are the basic steps for safely crossing the street:"),
        "{answer}"
    );
    assert_eq!(answer.chars().count(), 1021);
    let totals = totals.unwrap();
    assert_eq!(totals.usage, usage(43, 282, 325, Some(0)));
    assert_eq!(totals.model.as_deref(), Some("claude-sonnet-4-20250514"));
}

// ---- Gemini ----

#[test]
fn gemini_usage_is_the_last_chunk_s_even_when_the_prompt_count_shrinks() {
    // promptTokenCount goes 15, 15, 13; the SDK that recorded it reports 13 / 8 / 21.
    let (events, totals) = decode(Wire::Gemini, "gemini_2_0_flash_text_shrinking_usage.sse");
    assert_eq!(
        finals(&events),
        vec![output("The capital of France is Paris.\n")]
    );
    let totals = totals.unwrap();
    assert_eq!(totals.usage, usage(13, 8, 21, None));
    assert_eq!(totals.model.as_deref(), Some("gemini-2.0-flash-exp"));
}

#[test]
fn gemini_thought_parts_become_the_thought_and_count_as_output() {
    let (events, totals) = decode(Wire::Gemini, "gemini_2_5_pro_thoughts.sse");
    let kept = finals(&events);
    assert_eq!(kept.len(), 2, "{kept:?}");
    let thought = full_text(&events, true);
    let answer = full_text(&events, false);
    assert!(
        thought.starts_with("**Clarifying User Goals**"),
        "{thought}"
    );
    assert!(
        answer.starts_with("This is a great question! Safely crossing the street"),
        "{answer}"
    );
    assert!(
        answer.ends_with("Always assume a driver might not see you."),
        "{answer}"
    );
    assert!(
        !answer.contains("Clarifying"),
        "thoughts stay out of the answer"
    );
    // The text part that carries a thoughtSignature is answer text.
    assert_eq!(thought.chars().count(), 1575);
    assert_eq!(answer.chars().count(), 1938);
    // candidates 469 + thoughts 787.
    assert_eq!(totals.unwrap().usage, usage(34, 1256, 1290, None));
}

#[test]
fn gemini_calls_without_an_id_get_one_and_calls_with_one_keep_it() {
    let (events, totals) = decode(Wire::Gemini, "gemini_3_pro_call_with_signature.sse");
    assert_eq!(
        finals(&events),
        vec![call("gemini_1_t", "get_country", json!({}))]
    );
    assert_eq!(totals.unwrap().usage, usage(29, 212, 241, None));

    let (events, totals) = decode(Wire::Gemini, "gemini_3_flash_call_with_id.sse");
    assert_eq!(
        finals(&events),
        vec![call("96c1su3s", "get_user_country", json!({}))]
    );
    assert_eq!(totals.unwrap().usage, usage(29, 81, 110, None));
}

#[test]
fn gemini_a_blocked_prompt_is_a_final_error() {
    let (events, totals) = decode(Wire::Gemini, "gemini_blocked_prompt.sse");
    assert!(events.is_empty(), "{events:?}");
    let err = totals.unwrap_err();
    assert_eq!((err.kind, err.retryable), (AiErrorKind::Request, false));
    assert!(err.message.contains("PROHIBITED_CONTENT"), "{err}");
}

// ---- Responses ----

#[test]
fn responses_text_and_usage() {
    let (events, totals) = decode(Wire::Responses, "responses_gpt_4o_text.sse");
    assert_eq!(
        finals(&events),
        vec![output("The capital of France is Paris.")]
    );
    let totals = totals.unwrap();
    assert_eq!(totals.usage, usage(278, 9, 287, Some(0)));
    assert_eq!(totals.model.as_deref(), Some("gpt-4o-2024-08-06"));
}

#[test]
fn responses_a_call_is_named_by_its_call_id_not_its_item_id() {
    let (events, totals) = decode(Wire::Responses, "responses_gpt_4o_function_call.sse");
    // item id fc_67e554a1…, call id call_kL0PCQV7…: results are matched by the call id.
    assert_eq!(
        finals(&events),
        vec![call(
            "call_kL0PCQV7M2WMoVX8V8OtYSAL",
            "get_capital",
            json!({"country": "France"})
        )]
    );
    assert_eq!(totals.unwrap().usage, usage(255, 16, 271, Some(0)));
}

#[test]
fn responses_reasoning_summary_then_call_then_the_next_steps() {
    let (events, totals) = decode(Wire::Responses, "responses_gpt_5_1_codex_reasoning_1.sse");
    assert_eq!(
        full_text(&events, true),
        "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product."
    );
    assert_eq!(
        finals(&events)[1..],
        [call(
            "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
            "calculator",
            json!({"a": 12, "b": 7, "op": "add"})
        )]
    );
    assert_eq!(totals.unwrap().usage, usage(134, 28, 162, Some(0)));

    let steps = [
        (
            "responses_gpt_5_1_codex_reasoning_2.sse",
            "call_Q6pW65MUgW9vF59BmItYGos3",
            json!({"a": 19, "b": 3, "op": "multiply"}),
        ),
        (
            "responses_gpt_5_1_codex_reasoning_3.sse",
            "call_Zl5vIMnD7dVAjgU6FkhmiCZh",
            json!({"a": 57, "b": 10, "op": "multiply"}),
        ),
    ];
    for (name, id, args) in steps {
        let (events, _) = decode(Wire::Responses, name);
        assert_eq!(
            finals(&events),
            vec![call(id, "calculator", args)],
            "{name}"
        );
    }
    let (events, totals) = decode(Wire::Responses, "responses_gpt_5_1_codex_reasoning_4.sse");
    assert_eq!(
        finals(&events),
        vec![output("The final result is **570**.")]
    );
    assert_eq!(totals.unwrap().usage, usage(299, 12, 311, Some(0)));
}

#[test]
fn responses_an_in_stream_quota_error_is_final() {
    let (events, totals) = decode(Wire::Responses, "responses_gpt_5_nano_quota_error.sse");
    assert!(events.is_empty(), "{events:?}");
    let err = totals.unwrap_err();
    assert_eq!((err.kind, err.retryable), (AiErrorKind::Request, false));
    assert!(err.message.contains("insufficient_quota"), "{err}");
    assert!(err.message.contains("exceeded your current quota"), "{err}");
}

#[test]
fn a_recording_cut_short_is_a_retryable_cut_until_a_delta_was_seen() {
    let bytes = recorded("responses_gpt_4o_text.sse");
    let completed = bytes
        .windows(b"event: response.completed".len())
        .position(|w| w == b"event: response.completed")
        .unwrap();
    let mut decoder = ResponsesDecoder::new();
    let mut events = Vec::new();
    decoder.feed(&bytes[..completed], &mut events).unwrap();
    let err = decoder.finish(&mut events).unwrap_err();
    assert_eq!(err.kind, AiErrorKind::Transport);
    assert!(decoder.saw_delta(), "the answer was already streamed");
}
