//! Test support shared by integration tests (`mod support;`).
//!
//! - [`mock_model`]: a scripted model provider on 127.0.0.1 for both wire
//!   formats, recording every request.
//! - [`streams`]: builders for its OpenAI and Anthropic SSE replies.
//! - [`vendor_streams`]: builders for its Gemini and OpenAI Responses SSE replies.
#![allow(dead_code, unused_imports)]

pub mod mock_model;
pub mod streams;
pub mod vendor_streams;

pub use mock_model::{MockModel, RecordedRequest, Reply};
pub use streams::{AnthropicStream, OpenAiStream};
pub use vendor_streams::{GeminiStream, ResponsesStream};
