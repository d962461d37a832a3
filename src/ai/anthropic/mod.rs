//! Anthropic Messages adaptor.
//!
//! - [`request`]: history → `POST {base}/v1/messages` body.
//! - [`decode`]: stream events → events.

pub mod decode;
pub mod request;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use decode::AnthropicDecoder;
pub use request::{build_request_body, build_request_body_with, build_text_body};

use super::client::{KeyHeader, ModelClient};
use super::effort;
use super::endpoint::{BaseUrl, Endpoint};
use super::http::HttpOptions;
use super::replay::ReplayMemo;
use super::text::usage_u64;
use super::{Adaptor, AiError, EventStream, StreamRequest, TextRequest, TextResponse};
use crate::protocol::Usage;
use crate::protocol::{Effort, Secret};

/// The `anthropic-version` header every request carries.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// `max_tokens` sent unless [`AnthropicAdaptor::with_max_tokens`] says otherwise.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// A client for one model behind the Anthropic Messages API.
#[derive(Debug, Clone)]
pub struct AnthropicAdaptor {
    client: ModelClient,
    endpoint: Endpoint,
    max_tokens: u32,
    effort: Option<Effort>,
    /// Thinking blocks of tool steps, sent back while thinking is on.
    thinking: ReplayMemo<Vec<Value>>,
}

impl AnthropicAdaptor {
    /// Says whether the model takes images (by default it is assumed to);
    /// a host refuses images for a model that does not, before any request.
    pub fn with_image_input(mut self, accepts: bool) -> Self {
        self.client.set_image_input(accepts);
        self
    }

    /// A client for `model` at `base_url` (e.g. `https://api.anthropic.com`;
    /// requests go to `{base_url}/v1/messages`). The key, when given, is
    /// sent as `x-api-key`.
    ///
    /// Fails only if the HTTP client cannot be built.
    pub fn new(
        base_url: impl Into<String>,
        api_key: Option<Secret>,
        model: impl Into<String>,
        http: HttpOptions,
    ) -> Result<Self, AiError> {
        let base = base_url.into();
        let key_header = KeyHeader::Named("x-api-key");
        Ok(Self {
            client: ModelClient::new(&base, api_key, key_header, model.into(), http)?,
            endpoint: BaseUrl::parse(&base).join("/v1/messages"),
            max_tokens: DEFAULT_MAX_TOKENS,
            effort: None,
            thinking: ReplayMemo::default(),
        })
    }

    /// The same client asking Claude models that think for `effort`
    /// (`thinking.budget_tokens`; others are sent nothing).
    pub fn with_effort(mut self, effort: Option<Effort>) -> Self {
        self.effort = effort;
        self
    }

    /// The same client with a different `max_tokens` per call.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        self.client
            .post(&self.endpoint, body)
            .header("anthropic-version", ANTHROPIC_VERSION)
    }
}

impl Adaptor for AnthropicAdaptor {
    fn stream(&self, req: StreamRequest, cancel: CancellationToken) -> EventStream {
        let model = self.client.model();
        let thinks = self
            .effort
            .is_some_and(|e| effort::anthropic_budget(model, e).is_some());
        let mut body = build_request_body_with(model, self.max_tokens, &req, |id| {
            thinks.then(|| self.thinking.get(id)).flatten()
        });
        effort::apply_anthropic(&mut body, model, self.effort);
        let decoder = AnthropicDecoder::new().with_thinking_memo(self.thinking.clone());
        self.client.stream(self.post(&body), decoder, cancel)
    }

    fn generate_text(&self, req: TextRequest) -> BoxFuture<'static, Result<TextResponse, AiError>> {
        let body = build_text_body(self.client.model(), self.max_tokens, &req);
        let answer = self.client.send_json(self.post(&body));
        async move { Ok(parse_text_response(&answer.await?)) }.boxed()
    }

    fn model(&self) -> &str {
        self.client.model()
    }

    fn accepts_images(&self) -> bool {
        self.client.image_input()
    }
}

fn parse_text_response(body: &Value) -> TextResponse {
    let text = body
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<String>()
        })
        .unwrap_or_default();
    let usage = body.get("usage");
    let cache_read = usage
        .and_then(|u| u.get("cache_read_input_tokens"))
        .and_then(Value::as_u64);
    let input = usage_u64(usage, "input_tokens")
        + usage_u64(usage, "cache_creation_input_tokens")
        + cache_read.unwrap_or(0);
    let output = usage_u64(usage, "output_tokens");
    TextResponse {
        text,
        usage: Usage {
            input,
            output,
            total: input + output,
            cached: cache_read,
        },
    }
}
