//! Test support shared by the integration tests (`crate::support`).
//!
//! - [`mock_model`]: a scripted model provider on 127.0.0.1 for every wire
//!   format, recording every request.
//! - [`streams`]: builders for its OpenAI and Anthropic SSE replies.
//! - [`vendor_streams`]: builders for its Gemini and OpenAI Responses SSE replies.
//! - [`adaptor_calls`]: one call through an adaptor, collected or cancelled.
//! - [`vendors`]: the vendor table the conformance and retry suites run
//!   every wire format from, and [`vendors::for_vendors!`].
//! - [`decoding`]: SSE fixtures through a decoder, whole or cut.
//! - [`history`]: typical histories built event by event.
//! - [`images`]: tiny PNG and JPEG images made in the test.
//! - [`json_lines`]: a child process spoken to in JSON lines.
//! - [`agent_harness`]: an agent over the mock in a small demo repo.
//! - [`bounded`]: hang guards (`ends`, `until`) instead of timed assertions.
//! - [`child_env`]: the environment a spawned `light-agent` must not inherit.
//! - [`mcp_server`]: the in-repo MCP test server (rmcp server side).
//! - [`npm`]: pinned npm packages installed once into `target/tmp`.
//! - [`write`]: a file beneath a test tree, its folders made; [`grep_hits`]:
//!   the matches a grep result lists.
#![allow(dead_code, unused_imports)]

pub mod adaptor_calls;
pub mod agent_harness;
pub mod bounded;
pub mod child_env;
pub mod decoding;
pub mod history;
pub mod images;
pub mod json_lines;
pub mod mcp_server;
pub mod mock_model;
pub mod npm;
pub mod shell_harness;
pub mod streams;
pub mod vendor_streams;
pub mod vendors;
pub mod web_server;

pub use mock_model::{MockModel, RecordedRequest, Reply};
pub use streams::{AnthropicStream, OpenAiStream};
pub use vendor_streams::{GeminiStream, ResponsesStream};

/// Writes `content` to `root/path`, making the folders on the way.
pub fn write(root: &std::path::Path, path: &str, content: impl AsRef<[u8]>) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// `(path, line)` of every match a `grep` tool result lists.
pub fn grep_hits(content: &str) -> Vec<(String, u64)> {
    content
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| {
            let (path, line) = l.rsplit_once(':')?;
            Some((path.to_owned(), line.parse().ok()?))
        })
        .collect()
}
