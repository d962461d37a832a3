//! Both adaptors against the mock model server: what is sent, what comes
//! back, failures, retries, timeouts and cancellation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::{Duration, Instant};

use light_agent::ai::{
    Adaptor, AiError, AiErrorKind, AnthropicAdaptor, HttpOptions, OpenAiAdaptor, RetryPolicy,
    TextRequest, anthropic, openai,
};
use light_agent::protocol::{AgentEvent, ToolCall, Usage};
use serde_json::json;
use support::adaptor_calls::{
    assert_cancel_while_hanging_ends_fast, call_with_retries, collect_request, hello_request,
    quick_retries,
};
use support::{AnthropicStream, MockModel, OpenAiStream, Reply};
use tokio_util::sync::CancellationToken;

const KEY: &str = "sk-test-SECRET-4242";

fn openai(mock: &MockModel) -> OpenAiAdaptor {
    OpenAiAdaptor::new(
        mock.openai_base_url(),
        Some(KEY.into()),
        "test-model",
        HttpOptions::default(),
    )
    .unwrap()
}

fn anthropic(mock: &MockModel) -> AnthropicAdaptor {
    AnthropicAdaptor::new(
        mock.anthropic_base_url(),
        Some(KEY.into()),
        "claude-test",
        HttpOptions::default(),
    )
    .unwrap()
    .with_max_tokens(1024)
}

/// Every item of one call: the events before the end, and how it ended.
async fn collect(
    adaptor: &dyn Adaptor,
    cancel: CancellationToken,
) -> (Vec<AgentEvent>, Option<AiError>) {
    collect_request(adaptor, hello_request(), cancel).await
}

fn kinds(events: &[AgentEvent]) -> Vec<&'static str> {
    events.iter().map(AgentEvent::kind).collect()
}

#[tokio::test]
async fn openai_stream_sends_the_built_body_and_yields_events_in_order() {
    let reply = OpenAiStream::new()
        .reasoning("Let me think.")
        .text("Calling grep.")
        .tool_call("call_1", "grep", &["{\"search_", "strs\": [\"é\"]}"])
        .usage(120, 30)
        .into_reply()
        .chunk_every(7);
    let mock = MockModel::start([reply]).await;
    let adaptor = openai(&mock);
    let (events, error) = collect(&adaptor, CancellationToken::new()).await;
    assert_eq!(error, None);

    let kinds = kinds(&events);
    let first_full = kinds.iter().position(|k| *k == "thought").unwrap();
    assert!(kinds[..first_full].iter().all(|k| k.ends_with("_delta")));
    assert_eq!(
        &kinds[first_full..],
        ["thought", "output", "tool_calls", "agent_trace"]
    );
    let calls = events.iter().find_map(|e| match e {
        AgentEvent::ToolCalls { calls, .. } => Some(calls.clone()),
        _ => None,
    });
    assert_eq!(
        calls.unwrap(),
        vec![ToolCall {
            id: "call_1".into(),
            name: "grep".into(),
            args: json!({"search_strs": ["é"]})
        }]
    );
    match events.last().unwrap() {
        AgentEvent::AgentTrace {
            usage,
            model,
            started_at,
            ended_at,
            ..
        } => {
            assert_eq!(
                *usage,
                Usage {
                    input: 120,
                    output: 30,
                    total: 150,
                    cached: None
                }
            );
            assert_eq!(model, "mock-model");
            assert!(started_at <= ended_at && *started_at > 0);
        }
        other => panic!("expected a trace, got {other:?}"),
    }

    let sent = &mock.requests()[0];
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(
        sent.body,
        openai::build_request_body("test-model", &hello_request())
    );
}

#[tokio::test]
async fn anthropic_stream_sends_headers_and_body_and_yields_events_in_order() {
    let reply = AnthropicStream::new()
        .thinking("Hmm.")
        .text("Done.")
        .tool_use("toolu_1", "grep", &["", "{\"search_strs\":", " [\"x\"]}"])
        .usage(50, 7)
        .into_reply()
        .chunk_every(5);
    let mock = MockModel::start([reply]).await;
    let adaptor = anthropic(&mock);
    let (events, error) = collect(&adaptor, CancellationToken::new()).await;
    assert_eq!(error, None);
    let kinds = kinds(&events);
    let first_full = kinds.iter().position(|k| *k == "thought").unwrap();
    assert_eq!(
        &kinds[first_full..],
        ["thought", "output", "tool_calls", "agent_trace"]
    );
    assert!(matches!(
        events.last().unwrap(),
        AgentEvent::AgentTrace {
            usage: Usage {
                input: 50,
                output: 7,
                total: 57,
                ..
            },
            ..
        }
    ));

    let sent = &mock.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(
        sent.header("anthropic-version"),
        Some(anthropic::ANTHROPIC_VERSION)
    );
    assert_eq!(
        sent.body,
        anthropic::build_request_body("claude-test", 1024, &hello_request())
    );
}

#[tokio::test]
async fn rate_limit_with_retry_after_is_retried_once_after_about_a_second() {
    let mock = MockModel::start([
        Reply::status(429).retry_after(1),
        Reply::openai_text("All good."),
    ])
    .await;
    let adaptor = openai(&mock);
    let (result, retries) =
        call_with_retries(&adaptor, &hello_request(), RetryPolicy::default()).await;
    let events = result.unwrap();
    assert_eq!(retries, 1);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::Output { text, .. } if text == "All good."))
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let gap = requests[1].received_at - requests[0].received_at;
    println!("retry gap: {gap:?}");
    assert!(
        gap >= Duration::from_millis(900) && gap < Duration::from_secs(5),
        "{gap:?}"
    );
}

#[tokio::test]
async fn server_errors_are_retried_three_times_then_surface() {
    let mock = MockModel::start((0..4).map(|_| Reply::status(500))).await;
    let adaptor = openai(&mock);
    let policy = quick_retries();
    let (result, retries) = call_with_retries(&adaptor, &hello_request(), policy).await;
    let err = result.unwrap_err();
    assert_eq!(
        (err.kind, err.status, retries),
        (AiErrorKind::Provider, Some(500), 3)
    );
    assert!(err.message.contains("mock status 500"), "{err}");
    assert_eq!(mock.request_count(), 4);
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_never_shows_the_key() {
    let body = json!({"error": {"message": format!("Incorrect API key provided: {KEY}."), "code": "invalid_api_key"}});
    let mock = MockModel::start([
        Reply::status(401).body_json(body),
        Reply::openai_text("unused"),
    ])
    .await;
    let adaptor = openai(&mock);
    let (result, retries) =
        call_with_retries(&adaptor, &hello_request(), RetryPolicy::default()).await;
    let err = result.unwrap_err();
    assert_eq!(
        (err.kind, err.retryable, retries),
        (AiErrorKind::Request, false, 0)
    );
    assert!(err.message.contains("check your API key"), "{err}");
    assert!(!err.message.contains("SECRET"), "{err}");
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn context_length_refusal_has_its_own_kind() {
    let body = json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 201000 tokens > 200000 maximum"}});
    let mock = MockModel::start([Reply::status(400).body_json(body)]).await;
    let (_, error) = collect(&anthropic(&mock), CancellationToken::new()).await;
    let err = error.unwrap();
    assert_eq!(
        (err.kind, err.retryable),
        (AiErrorKind::ContextLength, false)
    );
}

#[tokio::test]
async fn cut_after_deltas_surfaces_a_retryable_transport_error() {
    let reply = OpenAiStream::new()
        .text("one two three")
        .into_reply()
        .cut_after(2);
    let mock = MockModel::start([reply]).await;
    let (events, error) = collect(&openai(&mock), CancellationToken::new()).await;
    assert_eq!(kinds(&events), ["output_delta", "output_delta"]);
    let err = error.unwrap();
    // The loop decides: it drops the partial answer from the screen and retries.
    assert_eq!((err.kind, err.retryable), (AiErrorKind::Transport, true));
}

#[tokio::test]
async fn cut_before_any_delta_is_retryable() {
    let reply = Reply::openai_text("never seen").cut_after(0);
    let mock = MockModel::start([reply, Reply::openai_text("second try")]).await;
    let policy = quick_retries();
    let (result, retries) = call_with_retries(&openai(&mock), &hello_request(), policy).await;
    assert_eq!(retries, 1);
    assert!(
        result
            .unwrap()
            .iter()
            .any(|e| matches!(e, AgentEvent::Output { text, .. } if text == "second try"))
    );
}

#[tokio::test]
async fn cancel_while_the_server_hangs_ends_the_stream_fast_and_closes_the_connection() {
    // Anthropic's first delta is the fourth SSE event (after message_start,
    // ping and content_block_start).
    for (mock, adaptor) in [
        {
            let mock = MockModel::start([Reply::openai_text("partial answer").hang_after(1)]).await;
            let adaptor: Box<dyn Adaptor> = Box::new(openai(&mock));
            (mock, adaptor)
        },
        {
            let mock =
                MockModel::start([Reply::anthropic_text("partial answer").hang_after(4)]).await;
            let adaptor: Box<dyn Adaptor> = Box::new(anthropic(&mock));
            (mock, adaptor)
        },
    ] {
        assert_cancel_while_hanging_ends_fast(
            "openai/anthropic",
            adaptor.as_ref(),
            hello_request(),
            &mock,
        )
        .await;
    }
}

#[tokio::test]
async fn cancel_before_the_response_arrives_is_aborted() {
    let reply = Reply::openai_text("late")
        .chunk_delay(Duration::from_secs(5))
        .hang_after(0);
    let mock = MockModel::start([reply]).await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let (events, error) = collect(&openai(&mock), cancel).await;
    assert!(events.is_empty());
    assert!(error.unwrap().is_aborted());
}

#[tokio::test]
async fn idle_gap_longer_than_the_timeout_is_a_retryable_transport_error() {
    let mock = MockModel::start([Reply::openai_text("x").hang_after(0)]).await;
    let http = HttpOptions {
        idle_timeout: Duration::from_millis(200),
        ..HttpOptions::default()
    };
    let adaptor = OpenAiAdaptor::new(mock.openai_base_url(), None, "m", http).unwrap();
    let started = Instant::now();
    let (events, error) = collect(&adaptor, CancellationToken::new()).await;
    let err = error.unwrap();
    println!("idle timeout fired after {:?}", started.elapsed());
    assert!(events.is_empty());
    assert_eq!((err.kind, err.retryable), (AiErrorKind::Transport, true));
    assert!(mock.wait_for_disconnect(Duration::from_secs(2)).await);
}

#[tokio::test]
async fn connection_refused_is_a_retryable_transport_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let adaptor = OpenAiAdaptor::new(
        format!("http://127.0.0.1:{port}/v1"),
        None,
        "m",
        HttpOptions::default(),
    )
    .unwrap();
    let (_, error) = collect(&adaptor, CancellationToken::new()).await;
    let err = error.unwrap();
    assert_eq!((err.kind, err.retryable), (AiErrorKind::Transport, true));
}

#[tokio::test]
async fn bad_json_tool_arguments_reach_the_caller_as_a_string() {
    let reply = OpenAiStream::new()
        .tool_call("call_9", "grep", &["{\"search_strs\": [\"x\"", "]"])
        .into_reply();
    let mock = MockModel::start([reply]).await;
    let (events, error) = collect(&openai(&mock), CancellationToken::new()).await;
    assert_eq!(error, None);
    let call = events.iter().find_map(|e| match e {
        AgentEvent::ToolCalls { calls, .. } => Some(calls[0].clone()),
        _ => None,
    });
    assert_eq!(call.unwrap().args, json!("{\"search_strs\": [\"x\"]"));
}

#[tokio::test]
async fn generate_text_works_for_both_wire_formats() {
    let mock = MockModel::start([
        Reply::json(json!({"choices": [{"message": {"role": "assistant", "content": "summary A"}}], "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}})),
        Reply::json(json!({"content": [{"type": "text", "text": "summary B"}], "usage": {"input_tokens": 8, "output_tokens": 2}})),
    ])
    .await;
    let req = TextRequest {
        system_prompt: "Summarise.".into(),
        prompt: "history".into(),
    };
    let a = openai(&mock).generate_text(req.clone()).await.unwrap();
    let b = anthropic(&mock).generate_text(req.clone()).await.unwrap();
    assert_eq!((a.text.as_str(), a.usage.total), ("summary A", 12));
    assert_eq!((b.text.as_str(), b.usage.total), ("summary B", 10));
    let sent = mock.requests();
    assert_eq!(sent[0].body, openai::build_text_body("test-model", &req));
    assert_eq!(sent[0].body["stream"], false);
    assert_eq!(
        sent[1].body,
        anthropic::build_text_body("claude-test", 1024, &req)
    );
}

#[tokio::test]
async fn generate_text_errors_are_classified() {
    let mock = MockModel::start([Reply::status(503).retry_after(2)]).await;
    let err = openai(&mock)
        .generate_text(TextRequest {
            system_prompt: String::new(),
            prompt: "x".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        (err.kind, err.retryable, err.retry_after),
        (AiErrorKind::Provider, true, Some(Duration::from_secs(2)))
    );
}

#[tokio::test]
async fn fixtures_served_in_three_byte_chunks_give_the_decoders_events() {
    use light_agent::ai::WireDecoder;
    for name in [
        "openai_parallel_tools.sse",
        "deepseek_reasoning.sse",
        "ollama_tools.sse",
        "openrouter_reasoning_usage.sse",
        "anthropic_thinking_tool_use.sse",
    ] {
        let path = format!("{}/tests/fixtures/sse/{name}", env!("CARGO_MANIFEST_DIR"));
        let raw = std::fs::read_to_string(path).unwrap();
        let mock = MockModel::start([Reply::sse(raw.clone()).chunk_every(3)]).await;
        let is_anthropic = name.starts_with("anthropic");
        let (adaptor, mut decoder): (Box<dyn Adaptor>, Box<dyn WireDecoder>) = if is_anthropic {
            (
                Box::new(anthropic(&mock)),
                Box::new(anthropic::AnthropicDecoder::new()),
            )
        } else {
            (
                Box::new(openai(&mock)),
                Box::new(openai::OpenAiDecoder::new()),
            )
        };
        let mut expected = Vec::new();
        decoder.feed(raw.as_bytes(), &mut expected).unwrap();
        let totals = decoder.finish(&mut expected).unwrap();

        let (mut events, error) = collect(adaptor.as_ref(), CancellationToken::new()).await;
        assert_eq!(error, None, "{name}");
        match events.pop() {
            Some(AgentEvent::AgentTrace { usage, model, .. }) => {
                assert_eq!(usage, totals.usage, "{name}");
                assert_eq!(Some(model), totals.model, "{name}");
            }
            other => panic!("{name}: expected a trace, got {other:?}"),
        }
        assert_eq!(events, expected, "{name}");
    }
}

#[tokio::test]
async fn deltas_decoded_before_a_mid_stream_error_are_delivered_first() {
    let path = format!(
        "{}/tests/fixtures/sse/openai_error_event.sse",
        env!("CARGO_MANIFEST_DIR")
    );
    let raw = std::fs::read_to_string(path).unwrap();
    let mock = MockModel::start([Reply::sse(raw).split_at(vec![])]).await;
    let (events, error) = collect(&openai(&mock), CancellationToken::new()).await;
    assert_eq!(kinds(&events), ["output_delta"]);
    let err = error.unwrap();
    assert_eq!(err.kind, AiErrorKind::Provider);
    assert!(err.retryable, "the class survives a shown delta: {err}");
}
