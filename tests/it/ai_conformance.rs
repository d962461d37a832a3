//! What every adaptor does alike, run for each of the four wire formats
//! of the vendor table (`support::vendors`): its decoder's byte-split
//! contract over the fixtures, the request it sends, the events it yields,
//! how it classifies failures, cuts, timeouts and cancellation. Each case is one test per vendor (`case::gemini`, …).
//! The vendor files (`ai_gemini.rs`, `ai_responses.rs`) keep only their
//! quirks; what the agent loop does with a failure is in `agent_retries.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use light_agent::ai::{Adaptor, AiError, AiErrorKind, HttpOptions, ImageData, TextRequest};
use light_agent::protocol::{AgentEvent, Effort, ImageRef, InputSource, Meta, ToolCall, Usage};
use proptest::prelude::{ProptestConfig, any, prop_assert_eq};
use proptest::sample::Index;
use proptest::test_runner::TestRunner;
use serde_json::json;
use support::adaptor_calls::{
    assert_cancel_while_hanging_ends_fast, collect_request, hello_request,
};
use support::decoding::{Decoded, assert_same_at_every_split, deltas_concat, fixture, full_text};
use support::vendors::{
    HttpFailure, KEY, QUOTA_TEXT, SERVER_ERROR_TEXT, StreamFailure, Vendor, for_vendors,
};
use support::{MockModel, Reply};
use tokio_util::sync::CancellationToken;

/// Every item of one call of [`hello_request`].
async fn collect(adaptor: &dyn Adaptor) -> (Vec<AgentEvent>, Option<AiError>) {
    collect_request(adaptor, hello_request(), CancellationToken::new()).await
}

/// The error one call of [`hello_request`] against a mock answering
/// `reply` ends with.
async fn failure(vendor: Vendor, reply: Reply) -> AiError {
    let mock = MockModel::start([reply]).await;
    let (_, error) = collect(vendor.adaptor(&mock).as_ref()).await;
    error.unwrap_or_else(|| panic!("{vendor}: the call did not fail"))
}

fn kinds(events: &[AgentEvent]) -> Vec<&'static str> {
    events.iter().map(AgentEvent::kind).collect()
}

/// `bytes` through a fresh decoder of `vendor`, cut at `cuts`.
fn decode_cut(vendor: Vendor, bytes: &[u8], cuts: &[usize]) -> Decoded {
    support::decoding::decode_cut(vendor.decoder().as_mut(), bytes, cuts)
}

// ---------------------------------------------------------------- decoders

for_vendors!(every_fixture_decodes_identically_at_every_split_point);
async fn every_fixture_decodes_identically_at_every_split_point(vendor: Vendor) {
    for name in vendor.all_fixtures() {
        assert_same_at_every_split(
            &format!("{vendor}: {name}"),
            &fixture(name),
            |bytes, cuts| decode_cut(vendor, bytes, cuts),
        );
    }
}

for_vendors!(random_splits_give_the_same_events);
async fn random_splits_give_the_same_events(vendor: Vendor) {
    let names = vendor.all_fixtures();
    let mut runner = TestRunner::new(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let strategy = (
        0..names.len(),
        proptest::collection::vec(any::<Index>(), 0..40),
    );
    let result = runner.run(&strategy, |(which, raw_cuts)| {
        let bytes = fixture(names[which]);
        let mut cuts: Vec<usize> = raw_cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let whole = decode_cut(vendor, &bytes, &[]);
        let split = decode_cut(vendor, &bytes, &cuts);
        prop_assert_eq!(split.0, whole.0, "{}", names[which]);
        prop_assert_eq!(split.1, whole.1, "{}", names[which]);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{vendor}: {failure}");
    }
}

for_vendors!(deltas_concatenate_to_the_full_events);
async fn deltas_concatenate_to_the_full_events(vendor: Vendor) {
    for name in vendor.fixtures() {
        let (events, _) = decode_cut(vendor, &fixture(name), &[]);
        for thought in [true, false] {
            assert_eq!(
                deltas_concat(&events, thought),
                full_text(&events, thought),
                "{vendor}: {name}"
            );
        }
    }
}

for_vendors!(a_stream_cut_halfway_is_a_transport_error_after_deltas);
async fn a_stream_cut_halfway_is_a_transport_error_after_deltas(vendor: Vendor) {
    // The first fixture of each vendor has deltas in its first half.
    for name in &vendor.fixtures()[..1] {
        let bytes = fixture(name);
        let mut decoder = vendor.decoder();
        let mut events = Vec::new();
        decoder
            .feed(&bytes[..bytes.len() / 2], &mut events)
            .unwrap();
        let err = decoder.finish(&mut events).unwrap_err();
        assert_eq!(err.kind, AiErrorKind::Transport, "{vendor}: {name}: {err}");
        assert!(decoder.saw_delta(), "{vendor}: {name}");
    }
}

// ---------------------------------------------------------------- adaptors

for_vendors!(a_stream_sends_the_built_request_and_yields_events_in_order);
async fn a_stream_sends_the_built_request_and_yields_events_in_order(vendor: Vendor) {
    let reply = vendor
        .full_step("Let me think.", "Calling grep.")
        .chunk_every(7);
    let mock = MockModel::start([reply]).await;
    let (events, error) = collect(vendor.adaptor(&mock).as_ref()).await;
    assert_eq!(error, None, "{vendor}");

    let kinds = kinds(&events);
    let first_full = kinds.iter().position(|k| *k == "thought").unwrap();
    assert!(
        kinds[..first_full].iter().all(|k| k.ends_with("_delta")),
        "{vendor}: {kinds:?}"
    );
    assert_eq!(
        &kinds[first_full..],
        ["thought", "output", "tool_calls", "agent_trace"],
        "{vendor}"
    );
    let calls = events.iter().find_map(|e| match e {
        AgentEvent::ToolCalls { calls, .. } => Some(calls.clone()),
        _ => None,
    });
    assert_eq!(
        calls.unwrap(),
        vec![ToolCall {
            id: vendor.call_id("call_1"),
            name: "grep".into(),
            args: json!({"search_strs": ["é"]})
        }],
        "{vendor}"
    );
    match events.last().unwrap() {
        AgentEvent::AgentTrace {
            usage,
            model,
            started_at,
            ended_at,
            ..
        } => {
            let expected = Usage {
                input: 120,
                output: 30,
                total: 150,
                cached: vendor.cached_in_streamed_usage(),
            };
            assert_eq!(*usage, expected, "{vendor}");
            assert_eq!(model, vendor.streamed_model(), "{vendor}");
            assert!(started_at <= ended_at && *started_at > 0, "{vendor}");
        }
        other => panic!("{vendor}: expected a trace, got {other:?}"),
    }

    let sent = &mock.requests()[0];
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("POST", vendor.stream_path().as_str()),
        "{vendor}"
    );
    for (name, value) in vendor.expected_headers() {
        assert_eq!(sent.header(name), Some(value.as_str()), "{vendor}: {name}");
    }
    assert_eq!(sent.body, vendor.request_body(&hello_request()), "{vendor}");
}

/// The parts of the first user message `vendor` sent (its text, then its
/// images).
fn user_parts(vendor: Vendor, body: &serde_json::Value) -> Vec<serde_json::Value> {
    let parts = match vendor {
        // The system prompt is the first message.
        Vendor::OpenAi => &body["messages"][1]["content"],
        Vendor::Anthropic => &body["messages"][0]["content"],
        Vendor::Gemini => &body["contents"][0]["parts"],
        Vendor::Responses => &body["input"][0]["content"],
    };
    parts.as_array().cloned().unwrap_or_default()
}

for_vendors!(a_prompt_image_is_sent_the_vendor_way_with_a_placeholder_naming_it);
async fn a_prompt_image_is_sent_the_vendor_way_with_a_placeholder_naming_it(vendor: Vendor) {
    let png = support::images::png(2, 2);
    let shot = ImageRef {
        hash: "h-shot".into(),
        media_type: "image/png".into(),
        name: "shot.png".into(),
        bytes: png.len() as u64,
    };
    // Its bytes are gone (not in the request's images): placeholder only.
    let lost = ImageRef {
        hash: "h-lost".into(),
        name: "lost.png".into(),
        ..shot.clone()
    };
    let mut request = hello_request();
    request.events = vec![AgentEvent::Input {
        text: "what is this?".into(),
        source: InputSource::User,
        meta: Meta::new(1, 1),
        images: vec![shot.clone(), lost],
    }];
    request
        .images
        .insert("h-shot".into(), ImageData::new("image/png", &png));
    let mock = MockModel::start([vendor.text("A tiny square.")]).await;
    let (_, error) = collect_request(
        vendor.adaptor(&mock).as_ref(),
        request.clone(),
        CancellationToken::new(),
    )
    .await;
    assert_eq!(error, None, "{vendor}");
    let sent = &mock.requests()[0].body;
    assert_eq!(*sent, vendor.request_body(&request), "{vendor}");

    let parts = user_parts(vendor, sent);
    assert_eq!(
        parts.len(),
        2,
        "{vendor}: text, then the one image: {parts:#?}"
    );
    let text = parts[0]["text"].as_str().unwrap();
    assert_eq!(
        text,
        format!(
            "what is this?\n{}\n[image lost.png, {} B]",
            shot.placeholder(),
            png.len()
        ),
        "{vendor}"
    );
    let data = support::images::base64(&png);
    let uri = format!("data:image/png;base64,{data}");
    let expected = match vendor {
        Vendor::OpenAi => json!({"type": "image_url", "image_url": {"url": uri}}),
        Vendor::Responses => json!({"type": "input_image", "image_url": uri}),
        Vendor::Anthropic => json!({"type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": data}}),
        Vendor::Gemini => json!({"inline_data": {"mime_type": "image/png", "data": data}}),
    };
    assert_eq!(parts[1], expected, "{vendor}");
}

// Gemini sends a call's arguments as one JSON object, never as text.
for_vendors!(bad_json_tool_arguments_reach_the_caller_as_a_string: openai, anthropic, responses);
async fn bad_json_tool_arguments_reach_the_caller_as_a_string(vendor: Vendor) {
    let reply = vendor
        .tool_call_in_fragments("call_9", "grep", &["{\"search_strs\": [\"x\"", "]"])
        .unwrap();
    let mock = MockModel::start([reply]).await;
    let (events, error) = collect(vendor.adaptor(&mock).as_ref()).await;
    assert_eq!(error, None, "{vendor}");
    let call = events.iter().find_map(|e| match e {
        AgentEvent::ToolCalls { calls, .. } => Some(calls[0].clone()),
        _ => None,
    });
    assert_eq!(
        call.unwrap().args,
        json!("{\"search_strs\": [\"x\"]"),
        "{vendor}"
    );
}

for_vendors!(fixtures_served_in_three_byte_chunks_give_the_decoders_events);
async fn fixtures_served_in_three_byte_chunks_give_the_decoders_events(vendor: Vendor) {
    for name in vendor.fixtures() {
        let raw = String::from_utf8(fixture(name)).unwrap();
        let mock = MockModel::start([Reply::sse(raw.clone()).chunk_every(3)]).await;
        let mut decoder = vendor.decoder();
        let mut expected = Vec::new();
        decoder.feed(raw.as_bytes(), &mut expected).unwrap();
        let totals = decoder.finish(&mut expected).unwrap();

        let (mut events, error) = collect(vendor.adaptor(&mock).as_ref()).await;
        assert_eq!(error, None, "{vendor}: {name}");
        match events.pop() {
            Some(AgentEvent::AgentTrace { usage, model, .. }) => {
                assert_eq!(usage, totals.usage, "{vendor}: {name}");
                assert_eq!(Some(model), totals.model, "{vendor}: {name}");
            }
            other => panic!("{vendor}: {name}: expected a trace, got {other:?}"),
        }
        assert_eq!(events, expected, "{vendor}: {name}");
    }
}

for_vendors!(deltas_decoded_before_a_mid_stream_error_are_delivered_first);
async fn deltas_decoded_before_a_mid_stream_error_are_delivered_first(vendor: Vendor) {
    // One chunk holds the delta and the error after it.
    let reply = vendor.stream_failing_after(1, StreamFailure::Overloaded);
    let mock = MockModel::start([reply]).await;
    let (events, error) = collect(vendor.adaptor(&mock).as_ref()).await;
    assert_eq!(kinds(&events), ["output_delta"], "{vendor}");
    let err = error.unwrap();
    assert_eq!(err.kind, AiErrorKind::Provider, "{vendor}: {err}");
    assert!(
        err.retryable,
        "{vendor}: the class survives a shown delta: {err}"
    );
}

for_vendors!(an_in_stream_quota_error_is_final);
async fn an_in_stream_quota_error_is_final(vendor: Vendor) {
    let err = failure(vendor, vendor.stream_failing_after(0, StreamFailure::Quota)).await;
    assert_eq!(
        (err.kind, err.retryable),
        (AiErrorKind::Request, false),
        "{vendor}: {err}"
    );
    assert!(err.message.contains(QUOTA_TEXT), "{vendor}: {err}");
}

for_vendors!(a_cut_after_deltas_surfaces_a_retryable_transport_error);
async fn a_cut_after_deltas_surfaces_a_retryable_transport_error(vendor: Vendor) {
    let reply = vendor
        .text("one two three")
        .cut_after(vendor.chunks_before_first_delta() + 2);
    let mock = MockModel::start([reply]).await;
    let (events, error) = collect(vendor.adaptor(&mock).as_ref()).await;
    assert_eq!(kinds(&events), ["output_delta", "output_delta"], "{vendor}");
    let err = error.unwrap();
    // The loop decides: it drops the partial answer from the screen and retries.
    assert_eq!(
        (err.kind, err.retryable),
        (AiErrorKind::Transport, true),
        "{vendor}: {err}"
    );
}

for_vendors!(a_cut_before_any_delta_is_a_retryable_transport_error);
async fn a_cut_before_any_delta_is_a_retryable_transport_error(vendor: Vendor) {
    let reply = vendor
        .text("never seen")
        .cut_after(vendor.chunks_before_first_delta());
    let mock = MockModel::start([reply]).await;
    let (events, error) = collect(vendor.adaptor(&mock).as_ref()).await;
    assert_eq!(kinds(&events), Vec::<&str>::new(), "{vendor}");
    let err = error.unwrap();
    assert_eq!(
        (err.kind, err.retryable),
        (AiErrorKind::Transport, true),
        "{vendor}: {err}"
    );
}

for_vendors!(cancel_while_the_server_hangs_ends_the_stream_fast_and_closes_the_connection);
async fn cancel_while_the_server_hangs_ends_the_stream_fast_and_closes_the_connection(
    vendor: Vendor,
) {
    let reply = vendor
        .text("partial answer")
        .hang_after(vendor.chunks_before_first_delta() + 1);
    let mock = MockModel::start([reply]).await;
    let adaptor = vendor.adaptor(&mock);
    assert_cancel_while_hanging_ends_fast(vendor.name(), adaptor.as_ref(), hello_request(), &mock)
        .await;
}

for_vendors!(cancel_before_the_response_arrives_is_aborted);
async fn cancel_before_the_response_arrives_is_aborted(vendor: Vendor) {
    let reply = vendor
        .text("late")
        .chunk_delay(Duration::from_secs(5))
        .hang_after(0);
    let mock = MockModel::start([reply]).await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let (events, error) =
        collect_request(vendor.adaptor(&mock).as_ref(), hello_request(), cancel).await;
    assert!(events.is_empty(), "{vendor}: {events:?}");
    let err = error.unwrap();
    assert!(err.is_aborted(), "{vendor}: {err}");
}

for_vendors!(an_idle_gap_longer_than_the_timeout_is_a_retryable_transport_error);
async fn an_idle_gap_longer_than_the_timeout_is_a_retryable_transport_error(vendor: Vendor) {
    let mock = MockModel::start([vendor.text("x").hang_after(0)]).await;
    let http = HttpOptions {
        idle_timeout: Duration::from_millis(200),
        ..HttpOptions::default()
    };
    let adaptor = vendor.adaptor_at(vendor.base_url(&mock.url()), http);
    let (events, error) = collect(adaptor.as_ref()).await;
    let err = error.unwrap();
    assert!(events.is_empty(), "{vendor}: {events:?}");
    assert_eq!(
        (err.kind, err.retryable),
        (AiErrorKind::Transport, true),
        "{vendor}: {err}"
    );
    assert!(
        mock.wait_for_disconnect(Duration::from_secs(2)).await,
        "{vendor}: the connection stays open"
    );
}

for_vendors!(connection_refused_is_a_retryable_transport_error);
async fn connection_refused_is_a_retryable_transport_error(vendor: Vendor) {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let base = vendor.base_url(&format!("http://127.0.0.1:{port}"));
    let adaptor = vendor.adaptor_at(base, HttpOptions::default());
    let (_, error) = collect(adaptor.as_ref()).await;
    let err = error.unwrap();
    assert_eq!(
        (err.kind, err.retryable),
        (AiErrorKind::Transport, true),
        "{vendor}: {err}"
    );
}

for_vendors!(a_rate_limit_is_retryable_with_the_wait_it_asks_for);
async fn a_rate_limit_is_retryable_with_the_wait_it_asks_for(vendor: Vendor) {
    let err = failure(vendor, vendor.http_error(HttpFailure::RateLimited)).await;
    assert_eq!(
        (err.kind, err.retryable, err.status, err.retry_after),
        (
            AiErrorKind::Provider,
            true,
            Some(429),
            Some(Duration::from_secs(1))
        ),
        "{vendor}: {err}"
    );
}

for_vendors!(a_server_error_is_a_retryable_provider_error_with_its_status);
async fn a_server_error_is_a_retryable_provider_error_with_its_status(vendor: Vendor) {
    let err = failure(vendor, vendor.http_error(HttpFailure::ServerError)).await;
    assert_eq!(
        (err.kind, err.retryable, err.status),
        (AiErrorKind::Provider, true, Some(500)),
        "{vendor}: {err}"
    );
    assert!(err.message.contains(SERVER_ERROR_TEXT), "{vendor}: {err}");
}

for_vendors!(a_bad_key_is_a_final_request_error_that_never_shows_the_key);
async fn a_bad_key_is_a_final_request_error_that_never_shows_the_key(vendor: Vendor) {
    for reply in vendor.bad_key_replies() {
        let err = failure(vendor, reply).await;
        assert_eq!(
            (err.kind, err.retryable),
            (AiErrorKind::Request, false),
            "{vendor}: {err}"
        );
        assert!(
            err.message.contains("check your API key"),
            "{vendor}: {err}"
        );
        assert!(!err.message.contains("SECRET"), "{vendor}: {err}");
        assert!(!err.message.contains(KEY), "{vendor}: {err}");
    }
}

for_vendors!(too_long_a_prompt_is_a_context_length_error);
async fn too_long_a_prompt_is_a_context_length_error(vendor: Vendor) {
    let err = failure(vendor, vendor.http_error(HttpFailure::ContextTooLong)).await;
    assert_eq!(
        (err.kind, err.retryable),
        (AiErrorKind::ContextLength, false),
        "{vendor}: {err}"
    );
}

for_vendors!(generate_text_sends_the_text_body_and_returns_text_and_usage);
async fn generate_text_sends_the_text_body_and_returns_text_and_usage(vendor: Vendor) {
    let mock = MockModel::start([vendor.text_answer("summary A")]).await;
    let req = TextRequest {
        system_prompt: "Summarise.".into(),
        prompt: "history".into(),
    };
    let answer = vendor
        .adaptor(&mock)
        .generate_text(req.clone())
        .await
        .unwrap();
    assert_eq!(
        (
            answer.text.as_str(),
            answer.usage.input,
            answer.usage.output,
            answer.usage.total
        ),
        ("summary A", 8, 2, 10),
        "{vendor}"
    );
    let sent = &mock.requests()[0];
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("POST", vendor.text_path().as_str()),
        "{vendor}"
    );
    for (name, value) in vendor.expected_headers() {
        assert_eq!(sent.header(name), Some(value.as_str()), "{vendor}: {name}");
    }
    assert_eq!(sent.body, vendor.text_body(&req), "{vendor}");
    if let Vendor::OpenAi | Vendor::Responses = vendor {
        assert_eq!(sent.body["stream"], false, "{vendor}");
    }
}

for_vendors!(generate_text_errors_are_classified);
async fn generate_text_errors_are_classified(vendor: Vendor) {
    let mock = MockModel::start([vendor.http_error(HttpFailure::Unavailable)]).await;
    let err = vendor
        .adaptor(&mock)
        .generate_text(TextRequest {
            system_prompt: String::new(),
            prompt: "x".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        (err.kind, err.retryable, err.retry_after),
        (AiErrorKind::Provider, true, Some(Duration::from_secs(2))),
        "{vendor}: {err}"
    );
}

// ---------------------------------------------------------------- effort

for_vendors!(effort_is_sent_as_the_formats_own_field_and_omitted_where_the_model_takes_none);
async fn effort_is_sent_as_the_formats_own_field_and_omitted_where_the_model_takes_none(
    vendor: Vendor,
) {
    let (thinks, plain) = vendor.effort_models();
    let mock = MockModel::start([vendor.text("a"), vendor.text("b")]).await;
    for model in [thinks, plain] {
        let adaptor = vendor.effort_adaptor(vendor.base_url(&mock.url()), model, Effort::High);
        let (_, error) = collect(adaptor.as_ref()).await;
        assert!(error.is_none(), "{vendor} {model}: {error:?}");
    }
    let requests = mock.requests();
    let field = |i: usize| requests[i].body.pointer(vendor.effort_pointer()).cloned();
    let expected = match vendor {
        Vendor::OpenAi | Vendor::Responses => json!("high"),
        Vendor::Anthropic => json!(32_000),
        Vendor::Gemini => json!(24_576),
    };
    assert_eq!(
        field(0),
        Some(expected),
        "{vendor} {thinks}: {}",
        requests[0].body
    );
    assert_eq!(
        field(1),
        None,
        "{vendor} {plain} takes no effort: {}",
        requests[1].body
    );
    if vendor == Vendor::Anthropic {
        assert_eq!(
            requests[0].body["max_tokens"],
            1024 + 32_000,
            "room for the answer stays"
        );
        assert!(requests[1].body.get("thinking").is_none());
    }
}

/// With extended thinking on, Claude requires a tool step's thinking block
/// (with its signature) back before the `tool_use` it led to.
#[tokio::test]
async fn anthropic_thinking_blocks_come_back_before_their_tool_use() {
    use support::agent_harness::Harness;
    use support::streams::AnthropicStream;
    let vendor = Vendor::Anthropic;
    let args = r#"{"search_strs":["fn main"],"_intent":"find main"}"#;
    let replies = vec![
        AnthropicStream::new()
            .signed_thinking("I should grep.", "sig-123")
            .tool_use("toolu_1", "grep", &[args])
            .into_reply(),
        vendor.text("Found it."),
    ];
    let h = Harness::start(replies, |mock| {
        vendor.effort_adaptor(
            vendor.base_url(&mock.url()),
            "claude-sonnet-4-5",
            Effort::Low,
        )
    })
    .await;
    let outcome = h.agent.prompt("where is main?").await.unwrap();
    assert_eq!(outcome.message, "");
    let second = &h.mock.requests()[1].body;
    let assistant = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap();
    assert_eq!(
        assistant["content"][0],
        json!({ "type": "thinking", "thinking": "I should grep.", "signature": "sig-123" })
    );
    assert_eq!(assistant["content"][1]["type"], "tool_use");
}
