//! OpenAI Chat Completions adaptor, also serving DeepSeek, Ollama, vLLM,
//! llama.cpp's server, LM Studio and OpenRouter.
//!
//! - [`request`]: history → `POST {base}/chat/completions` body.
//! - [`decode`]: stream chunks → events, with every provider quirk.

pub mod decode;
mod models;
pub mod request;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use decode::OpenAiDecoder;
pub use models::list_models;
pub use request::{TOOL_ERROR_PREFIX, build_request_body, build_text_body};

use super::client::{KeyHeader, ModelClient};
use super::endpoint::{BaseUrl, Endpoint};
use super::http::HttpOptions;
use super::text::usage_u64;
use super::{Adaptor, AiError, AiErrorKind, EventStream, StreamRequest, TextRequest, TextResponse};
use crate::protocol::Usage;
use crate::protocol::{Effort, Secret};

/// A client for one model behind an OpenAI-compatible endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiAdaptor {
    client: ModelClient,
    endpoint: Endpoint,
    effort: Option<Effort>,
}

impl OpenAiAdaptor {
    /// Says whether the model takes images (by default it is assumed to);
    /// a host refuses images for a model that does not, before any request.
    pub fn with_image_input(mut self, accepts: bool) -> Self {
        self.client.set_image_input(accepts);
        self
    }

    /// A client for `model` at `base_url` (e.g. `https://api.openai.com/v1`;
    /// requests go to `{base_url}/chat/completions`). The key, when given,
    /// is sent as a bearer token.
    ///
    /// Fails only if the HTTP client cannot be built.
    pub fn new(
        base_url: impl Into<String>,
        api_key: Option<Secret>,
        model: impl Into<String>,
        http: HttpOptions,
    ) -> Result<Self, AiError> {
        let base = base_url.into();
        Ok(Self {
            client: ModelClient::new(&base, api_key, KeyHeader::Bearer, model.into(), http)?,
            endpoint: BaseUrl::parse(&base).join("/chat/completions"),
            effort: None,
        })
    }

    /// The same client asking reasoning models for `effort`
    /// (`reasoning_effort`; other models are sent nothing).
    pub fn with_effort(mut self, effort: Option<Effort>) -> Self {
        self.effort = effort;
        self
    }
}

impl Adaptor for OpenAiAdaptor {
    fn stream(&self, req: StreamRequest, cancel: CancellationToken) -> EventStream {
        let mut body = build_request_body(self.client.model(), &req);
        super::effort::apply_chat(&mut body, self.client.model(), self.effort);
        let request = self.client.post(&self.endpoint, &body);
        self.client.stream(request, OpenAiDecoder::new(), cancel)
    }

    fn generate_text(&self, req: TextRequest) -> BoxFuture<'static, Result<TextResponse, AiError>> {
        let body = build_text_body(self.client.model(), &req);
        let answer = self
            .client
            .send_json(self.client.post(&self.endpoint, &body));
        async move { parse_text_response(&answer.await?) }.boxed()
    }

    fn model(&self) -> &str {
        self.client.model()
    }

    fn accepts_images(&self) -> bool {
        self.client.image_input()
    }
}

fn parse_text_response(body: &Value) -> Result<TextResponse, AiError> {
    let message = body
        .pointer("/choices/0/message")
        .ok_or_else(|| AiError::new(AiErrorKind::Decode, "the completion has no choices"))?;
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let usage = body.get("usage");
    let input = usage_u64(usage, "prompt_tokens");
    let output = usage_u64(usage, "completion_tokens");
    let total = usage
        .and_then(|u| u.get("total_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(input + output);
    Ok(TextResponse {
        text,
        usage: Usage {
            input,
            output,
            total,
            cached: None,
        },
    })
}
