//! Vendor adaptors: our event log in, a provider's Server-Sent Events out as
//! [`AgentEvent`]s.
//!
//! Architecture invariant: `ai` never sees schemars or the `ToolRegistry`;
//! tools arrive as plain [`ToolSpec`]s.
//!
//! Map of the module:
//! - [`openai`] and [`anthropic`]: the first two [`Adaptor`]s, each a
//!   request builder (history → wire JSON) and a [`WireDecoder`] (bytes →
//!   events); [`gemini`] (Google's native API) and [`responses`] (the
//!   OpenAI Responses API) follow the same layout.
//! - [`sse`]: Server-Sent Events framing shared by every decoder.
//! - `history`: the event log as a provider-neutral conversation. Events
//!   are taken in log order; thought/output/tool_calls of one step form one
//!   assistant message; its tool results follow in call order (matched by
//!   id); a call without a stored result gets an error result
//!   ([`INTERRUPTED_CALL_RESULT`]); a summary is a note labelled
//!   [`SUMMARY_LABEL`] where it sits; an `agent_stop` with cause `user`
//!   becomes the note [`INTERRUPTED_TURN_NOTE`] so the model knows its
//!   previous turn was cut short, one with cause `llm` right after a kept
//!   partial answer the note [`CUT_ANSWER_NOTE`]; other stops and traces
//!   are not sent. A user prompt is its text (with a placeholder line per
//!   image, `[image shot.png, 12 KB]`) followed by its images, each sent
//!   the format's way from [`ImageData`] (base64 made once per image).
//! - `client`: what each adaptor holds to reach its model (HTTP client,
//!   key header, model name, timeouts) and its keyed, logged POST.
//! - `http`: the shared client, [`HttpOptions`] timeouts and transport
//!   failures; `classify`: the one classification of what a provider
//!   reports (HTTP status or in-stream error event) into a final or
//!   retryable [`AiError`]. `stream`: the cancellable, idle-timed
//!   driver of one streamed call.
//! - `replay`: provider blobs (Gemini thought signatures, Responses
//!   reasoning items) kept in memory by tool-call id, because the event
//!   log has no place for them, and echoed when their step is replayed.
//! - [`retry`]: [`RetryPolicy`] and [`sleep_or_cancel`] for the loop (the
//!   adaptors never retry by themselves).

pub mod anthropic;
mod assemble;
mod classify;
mod client;
mod connection;
mod decode;
mod effort;
mod endpoint;
mod error;
pub mod gemini;
mod history;
mod http;
mod image;
pub mod openai;
mod probe;
pub(crate) mod repetition;
mod replay;
pub mod responses;
pub mod retry;
pub mod sse;
mod stream;
mod text;
pub mod web;

pub use anthropic::AnthropicAdaptor;
pub use decode::{StepTotals, WireDecoder};
pub use error::{AiError, AiErrorKind};
pub use gemini::GeminiAdaptor;
pub use history::{
    CUT_ANSWER_NOTE, INTERRUPTED_CALL_RESULT, INTERRUPTED_TURN_NOTE, SUMMARY_LABEL,
    SYSTEM_NOTE_LABEL,
};
pub use http::HttpOptions;
pub use image::{ImageData, Images};
pub use openai::OpenAiAdaptor;
pub use probe::{PROBE_TIMEOUT, probe_ollama};
pub use responses::ResponsesAdaptor;
pub use retry::{RetryPolicy, sleep_or_cancel};

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use tokio_util::sync::CancellationToken;

use crate::protocol::{AgentEvent, ToolSpec, Usage};

/// What one model call is given.
#[derive(Debug, Clone, Default)]
pub struct StreamRequest {
    /// System prompt (may be empty).
    pub system_prompt: String,
    /// Canonical history in log order, possibly starting with a summary.
    pub events: Vec<AgentEvent>,
    /// Tools the model may call.
    pub tools: Vec<ToolSpec>,
    /// The bytes of the images `events` reference, by hash; an image missing
    /// here is sent as its placeholder text only.
    pub images: Images,
}

/// A non-streamed, tool-less completion (used for summaries).
#[derive(Debug, Clone, Default)]
pub struct TextRequest {
    /// System prompt.
    pub system_prompt: String,
    /// The single user message.
    pub prompt: String,
}

/// The answer to a [`TextRequest`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextResponse {
    /// Generated text.
    pub text: String,
    /// Provider-reported tokens.
    pub usage: Usage,
}

/// The events of one model call, or the error that ended it.
pub type EventStream = BoxStream<'static, Result<AgentEvent, AiError>>;

/// A model provider.
///
/// `stream` yields `thought_delta` / `output_delta` while the model streams,
/// then the full `thought`, `output` and `tool_calls` events, then one
/// `agent_trace`. Events carry default coordinates; the loop stamps them.
/// When `cancel` fires the HTTP response is dropped and the stream ends with
/// an [`AiErrorKind::Aborted`] error.
pub trait Adaptor: Send + Sync {
    /// Streams one model call.
    fn stream(&self, req: StreamRequest, cancel: CancellationToken) -> EventStream;
    /// Runs one non-streamed completion without tools.
    fn generate_text(&self, req: TextRequest) -> BoxFuture<'static, Result<TextResponse, AiError>>;
    /// The model name requests are sent for.
    fn model(&self) -> &str;
    /// Whether the model takes image input. A host refuses a prompt with
    /// images before any request when this is false.
    fn accepts_images(&self) -> bool {
        true
    }
}
