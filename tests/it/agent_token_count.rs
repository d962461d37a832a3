#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue #23.2: a token count that holds against a provider that counts
//! dense text at 1.4 bytes a token (Qwen2.5 on base64 and minified code).
//! The mock counts every request so and refuses one over its window as the
//! vendor does (HTTP 400, or an error event inside a 200 stream). With usage
//! reports no request is over the window after the first report; without
//! them an over-window request is fitted tighter and sent once more, and
//! the turn completes.

use crate::support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use light_agent::agent::{Agent, AgentConfig, LoopConfig, Notice};
use light_agent::context::ContextConfig;
use light_agent::protocol::StopCause;
use light_agent::tool::builtin;
use serde_json::json;
use support::agent_harness::{tools_context, write_demo_repo};
use support::vendors::{Vendor, for_vendors, gemini_error};
use support::{
    AnthropicStream, GeminiStream, MockModel, OpenAiStream, RecordedRequest, Reply, ResponsesStream,
};

/// Bytes a token, as the mock counts.
const BYTES_PER_TOKEN: f64 = 1.4;

fn mock_tokens(request: &RecordedRequest) -> u64 {
    (request.body_bytes as f64 / BYTES_PER_TOKEN).ceil() as u64
}

/// Standard base64 of `len` pseudo-random bytes, in 76-character lines.
fn base64_blob(len: usize, seed: u64) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut state = seed;
    let bytes: Vec<u8> = (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) as u8
        })
        .collect();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, b| (n << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
        }
        if out.len() % 77 == 76 {
            out.push('\n');
        }
    }
    out
}

/// Minified JavaScript of about `len` bytes, in 160-byte lines.
fn minified_js(len: usize) -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.len() < len {
        out += &format!("function a{i}(e,t){{var n=e.length;return n>t?e.slice(0,t):e}}");
        i += 1;
        if out.len() % 170 > 150 {
            out.push('\n');
        }
    }
    out
}

/// An answer calling `read_file` on `path` (id `call_N`), reporting
/// `input` tokens (0: no usage report).
fn read_call(vendor: Vendor, n: usize, path: &str, input: u64) -> Reply {
    let id = format!("call_{n}");
    let args = json!({ "path": path, "_intent": format!("read {path}") });
    let text = args.to_string();
    match vendor {
        Vendor::OpenAi => {
            let s = OpenAiStream::new().tool_call(&id, "read_file", &[&text]);
            if input > 0 { s.usage(input, 5) } else { s }.into_reply()
        }
        Vendor::Anthropic => AnthropicStream::new()
            .tool_use(&id, "read_file", &[&text])
            .usage(input, 5)
            .into_reply(),
        Vendor::Gemini => GeminiStream::new()
            .function_call("read_file", args)
            .usage(input, 5)
            .into_reply(),
        Vendor::Responses => ResponsesStream::new()
            .function_call(&id, "read_file", &[&text])
            .usage(input, 5)
            .into_reply(),
    }
}

fn final_text(vendor: Vendor, input: u64) -> Reply {
    match vendor {
        Vendor::OpenAi => {
            let s = OpenAiStream::new().text("all read");
            if input > 0 { s.usage(input, 5) } else { s }.into_reply()
        }
        Vendor::Anthropic => AnthropicStream::new()
            .text("all read")
            .usage(input, 5)
            .into_reply(),
        Vendor::Gemini => GeminiStream::new()
            .text("all read")
            .usage(input, 5)
            .into_reply(),
        Vendor::Responses => ResponsesStream::new()
            .text("all read")
            .usage(input, 5)
            .into_reply(),
    }
}

/// The vendor's refusal of a request of `tokens` over `window`: HTTP 400
/// for Chat Completions and Gemini, an error event in a 200 stream for
/// Responses and Anthropic.
fn over_window(vendor: Vendor, tokens: u64, window: u64) -> Reply {
    match vendor {
        Vendor::OpenAi => Reply::status(400).body_json(json!({"error": {
            "message": format!("This model's maximum context length is {window} tokens. However, your messages resulted in {tokens} tokens."),
            "type": "invalid_request_error", "code": "context_length_exceeded"}})),
        Vendor::Gemini => Reply::status(400).body_json(gemini_error(
            400,
            "INVALID_ARGUMENT",
            &format!("The input token count ({tokens}) exceeds the maximum number of tokens allowed ({window})."),
        )),
        Vendor::Anthropic => Reply::sse(format!(
            "event: error\ndata: {}\n\n",
            json!({"type": "error", "error": {"type": "invalid_request_error",
                   "message": format!("prompt is too long: {tokens} tokens > {window} maximum")}})
        )),
        Vendor::Responses => Reply::sse(format!(
            "event: error\ndata: {}\n\n",
            json!({"type": "error", "code": "context_length_exceeded",
                   "message": format!("Your input exceeds the context window of this model ({tokens} > {window}).")})
        )),
    }
}

/// An agent for `vendor` over `mock` in `repo` with a `window`-token window.
fn agent(vendor: Vendor, mock: &MockModel, repo: &std::path::Path, window: u64) -> Agent {
    let agent = Agent::new(AgentConfig {
        cwd: repo.to_path_buf(),
        session: None,
        adaptor: vendor.adaptor(mock),
        context: ContextConfig {
            // What is measured is the fitting of each request, not when a
            // summary is made: the mock answers no summary request.
            compact_at: 1.0,
            ..tools_context(window)
        },
        loop_config: LoopConfig {
            max_steps: 10,
            ..LoopConfig::default()
        },
    });
    builtin::register_all(agent.tool()).unwrap();
    agent
}

const PROMPT: &str = "read the three files";

/// Tokens (as the mock counts) of the first request of a session: the
/// system prompt, the tools and the prompt.
async fn first_request_tokens(vendor: Vendor, repo: &std::path::Path) -> u64 {
    let mock = MockModel::start([final_text(vendor, 0)]).await;
    let probe = agent(vendor, &mock, repo, 1_000_000);
    probe.prompt(PROMPT).await.unwrap();
    mock_tokens(&mock.requests()[0])
}

/// What a run saw: every streamed request's mock count and whether it was
/// refused, the turn's end, and the agent's warnings.
struct Run {
    requests: Vec<(u64, bool)>,
    cause: StopCause,
    /// The turn's closing message (why it failed, if it did).
    message: String,
    warnings: Vec<String>,
    window: u64,
}

/// A turn reading a base64 blob, a minified bundle and another blob, the
/// mock counting at 1.4 bytes a token, with usage reports or without.
async fn run(vendor: Vendor, report_usage: bool) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let repo = write_demo_repo(dir.path());
    let base = first_request_tokens(vendor, &repo).await;
    // Room for the first request and about half of it again: one file on
    // top of it is over the window.
    let window = base * 8 / 5;
    let file_bytes = (base as f64 * BYTES_PER_TOKEN * 0.9) as usize;
    std::fs::write(repo.join("blob.b64"), base64_blob(file_bytes * 3 / 4, 1)).unwrap();
    std::fs::write(repo.join("bundle.min.js"), minified_js(file_bytes)).unwrap();
    std::fs::write(repo.join("icon.b64"), base64_blob(file_bytes * 3 / 4, 2)).unwrap();

    let mock = MockModel::start([]).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let answered = AtomicUsize::new(0);
    let log = seen.clone();
    mock.respond_with(move |request| {
        let tokens = mock_tokens(request);
        let refused = tokens > window;
        log.lock().unwrap().push((tokens, refused));
        if refused {
            return over_window(vendor, tokens, window);
        }
        let input = if report_usage { tokens } else { 0 };
        match answered.fetch_add(1, Ordering::SeqCst) {
            0 => read_call(vendor, 1, "blob.b64", input),
            1 => read_call(vendor, 2, "bundle.min.js", input),
            2 => read_call(vendor, 3, "icon.b64", input),
            _ => final_text(vendor, input),
        }
    });
    let agent = agent(vendor, &mock, &repo, window);
    let mut notices = agent.subscribe_notices();
    let outcome = agent.prompt(PROMPT).await.unwrap();
    let mut warnings = Vec::new();
    while let Ok(notice) = notices.try_recv() {
        if let Notice::Message {
            level: light_agent::protocol::NoticeLevel::Warn,
            text,
        } = notice
        {
            warnings.push(text);
        }
    }
    let requests = seen.lock().unwrap().clone();
    Run {
        requests,
        cause: outcome.cause,
        message: outcome.message.clone(),
        warnings,
        window,
    }
}

/// The turn ended done; every request is listed on failure.
fn assert_done(vendor: Vendor, run: &Run) {
    assert_eq!(
        run.cause,
        StopCause::Done,
        "{vendor}: {}: {:?}",
        run.message,
        run.requests
    );
}

for_vendors!(with_usage_reports_no_request_is_over_the_window_after_the_first_report);
async fn with_usage_reports_no_request_is_over_the_window_after_the_first_report(vendor: Vendor) {
    let run = run(vendor, true).await;
    assert_done(vendor, &run);
    assert_eq!(run.requests.len(), 4, "{vendor}: {:?}", run.requests);
    for (tokens, refused) in &run.requests[1..] {
        assert!(
            !refused && *tokens <= run.window,
            "{vendor}: {tokens} > {}: {:?}",
            run.window,
            run.requests
        );
    }
    assert!(run.warnings.is_empty(), "{vendor}: {:?}", run.warnings);
}

// Chat Completions and Gemini refuse with HTTP 400; Responses and Anthropic
// with an error event inside the stream.
for_vendors!(without_usage_reports_an_over_window_request_is_refitted_and_sent_once_more);
async fn without_usage_reports_an_over_window_request_is_refitted_and_sent_once_more(
    vendor: Vendor,
) {
    let run = run(vendor, false).await;
    assert_done(vendor, &run);
    let refused = run.requests.iter().filter(|(_, r)| *r).count();
    assert!(
        refused >= 1,
        "{vendor}: nothing was over: {:?}",
        run.requests
    );
    // Each refusal is followed by the same request fitted tighter, which
    // went through.
    for pair in run.requests.windows(2) {
        if pair[0].1 {
            assert!(
                !pair[1].1,
                "{vendor}: refused twice in a row: {:?}",
                run.requests
            );
            assert!(pair[1].0 < pair[0].0, "{vendor}: {:?}", run.requests);
        }
    }
    assert_eq!(run.warnings.len(), refused, "{vendor}: {:?}", run.warnings);
    assert!(
        run.warnings[0].contains("fitted it tighter and sent it once more"),
        "{vendor}: {:?}",
        run.warnings
    );
}
