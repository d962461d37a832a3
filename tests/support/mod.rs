//! Test support shared by integration tests (`mod support;`).
//!
//! - [`mock_model`]: a scripted model provider on 127.0.0.1 for both wire
//!   formats, recording every request.
#![allow(dead_code, unused_imports)]

pub mod mock_model;

pub use mock_model::{AnthropicStream, MockModel, OpenAiStream, RecordedRequest, Reply};
