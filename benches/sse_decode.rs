//! Decoding throughput of a 10 MB OpenAI Chat Completions stream through
//! `OpenAiDecoder` (SSE framing + chunk JSON + assembly), fed in 16 KiB
//! reads as a socket would deliver it. Figures: docs/PERFORMANCE.md.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use light_agent::ai::WireDecoder;
use light_agent::ai::openai::OpenAiDecoder;
use serde_json::json;

const TARGET_BYTES: usize = 10 * 1024 * 1024;
const READ_SIZE: usize = 16 * 1024;

/// A realistic stream: reasoning deltas, then answer deltas (a few words
/// each, some with escapes and non-ASCII), a tool call in fragments, a
/// finish chunk, a usage chunk and `[DONE]`.
fn openai_stream() -> Vec<u8> {
    let words = [
        "The ",
        "function ",
        "`parse_args` ",
        "returns ",
        "a ",
        "\"Result\"",
        " — ",
        "see ",
        "src/main.rs",
        ":42.\n",
        "Then ",
        "it ",
        "calls ",
        "`run()`",
        ". ",
    ];
    let chunk = |delta: serde_json::Value| {
        let value = json!({
            "id": "chatcmpl-9xYzAbCdEf", "object": "chat.completion.chunk", "created": 1727000000,
            "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_5f20662549",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": null}],
            "usage": null,
        });
        format!("data: {value}\n\n")
    };
    let mut out = String::with_capacity(TARGET_BYTES + 4096);
    let mut n = 0;
    while out.len() < TARGET_BYTES / 4 {
        out += &chunk(json!({"reasoning_content": words[n % words.len()]}));
        n += 1;
    }
    while out.len() < TARGET_BYTES - 4096 {
        out += &chunk(json!({"content": words[n % words.len()]}));
        n += 1;
    }
    out += &chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "grep", "arguments": ""}}]}),
    );
    for fragment in ["{\"search_", "strs\": [\"fn ", "main\"]}"] {
        out += &chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]}));
    }
    out += "data: {\"id\":\"chatcmpl-9xYzAbCdEf\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n";
    out += "data: {\"id\":\"chatcmpl-9xYzAbCdEf\",\"choices\":[],\"usage\":{\"prompt_tokens\":900,\"completion_tokens\":40000,\"total_tokens\":40900}}\n\n";
    out += "data: [DONE]\n\n";
    out.into_bytes()
}

fn decode(bytes: &[u8]) -> usize {
    let mut decoder = OpenAiDecoder::new();
    let mut events = Vec::with_capacity(256);
    let mut count = 0;
    for read in bytes.chunks(READ_SIZE) {
        decoder.feed(read, &mut events).unwrap();
        count += events.len();
        events.clear();
    }
    decoder.finish(&mut events).unwrap();
    count + events.len()
}

fn bench(c: &mut Criterion) {
    let bytes = openai_stream();
    let mut group = c.benchmark_group("sse_decode");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(20);
    group.bench_function("openai_10mb", |b| b.iter(|| decode(black_box(&bytes))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
