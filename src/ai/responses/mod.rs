//! OpenAI Responses API adaptor (`POST {base}/responses`), the API OpenAI's
//! reasoning models are served through first.
//!
//! - [`request`]: history → request body.
//! - [`decode`]: stream events → events.
//!
//! Reasoning items and the "echo them back" trap: a reasoning model's
//! tool step is preceded by a reasoning item, and the next request should
//! carry it so the model keeps its chain of thought across the call. The
//! event log (fixed protocol) keeps only the readable summary, so:
//! - every request is stateless (`store: false`, never
//!   `previous_response_id`) and asks for `reasoning.encrypted_content`;
//! - the adaptor remembers, in memory, the encrypted reasoning items of
//!   each tool step under the step's first call id, and echoes them before
//!   that step's `function_call` items;
//! - echoed items carry no output ids (`rs_…`, `fc_…`): with nothing
//!   stored those ids cannot be resolved, and an id without its companion
//!   item is exactly what the API rejects;
//! - after a restart (a resumed session) the memo is empty and steps are
//!   replayed without reasoning items, which the API accepts; the model
//!   only loses its hidden reasoning for those old steps.

pub mod decode;
pub mod request;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use decode::ResponsesDecoder;
pub use request::{ResponsesOptions, build_request_body, build_request_body_with, build_text_body};

use super::client::{KeyHeader, ModelClient};
use super::endpoint::{BaseUrl, Endpoint};
use super::http::HttpOptions;
use super::replay::ReplayMemo;
use super::text::usage_u64;
use super::{Adaptor, AiError, EventStream, StreamRequest, TextRequest, TextResponse};
use crate::protocol::Usage;
use crate::protocol::{Effort, Secret};

/// A client for one model behind the OpenAI Responses API.
#[derive(Debug, Clone)]
pub struct ResponsesAdaptor {
    client: ModelClient,
    endpoint: Endpoint,
    options: ResponsesOptions,
    reasoning: ReplayMemo<Vec<Value>>,
    effort: Option<Effort>,
}

impl ResponsesAdaptor {
    /// Says whether the model takes images (by default it is assumed to);
    /// a host refuses images for a model that does not, before any request.
    pub fn with_image_input(mut self, accepts: bool) -> Self {
        self.client.set_image_input(accepts);
        self
    }

    /// A client for `model` at `base_url` (e.g. `https://api.openai.com/v1`;
    /// requests go to `{base_url}/responses`), with the options the model
    /// name suggests ([`ResponsesOptions::for_model`]). The key, when given,
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
        let model = model.into();
        Ok(Self {
            endpoint: BaseUrl::parse(&base).join("/responses"),
            options: ResponsesOptions::for_model(&model),
            client: ModelClient::new(&base, api_key, KeyHeader::Bearer, model, http)?,
            reasoning: ReplayMemo::default(),
            effort: None,
        })
    }

    /// The same client asking reasoning models for `effort`
    /// (`reasoning.effort`; other models are sent nothing).
    pub fn with_effort(mut self, effort: Option<Effort>) -> Self {
        self.effort = effort;
        self
    }

    /// The same client with explicit request options.
    pub fn with_options(mut self, options: ResponsesOptions) -> Self {
        self.options = options;
        self
    }
}

impl Adaptor for ResponsesAdaptor {
    fn stream(&self, req: StreamRequest, cancel: CancellationToken) -> EventStream {
        let mut body = build_request_body_with(self.client.model(), self.options, &req, |id| {
            self.reasoning.get(id)
        });
        super::effort::apply_responses(&mut body, self.client.model(), self.effort);
        let request = self.client.post(&self.endpoint, &body);
        let decoder = ResponsesDecoder::new().with_reasoning_memo(self.reasoning.clone());
        self.client.stream(request, decoder, cancel)
    }

    fn generate_text(&self, req: TextRequest) -> BoxFuture<'static, Result<TextResponse, AiError>> {
        let body = build_text_body(self.client.model(), &req);
        let answer = self
            .client
            .send_json(self.client.post(&self.endpoint, &body));
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
        .get("output")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter(|item| item.get("type").and_then(Value::as_str) == Some("message"))
                .filter_map(|item| item.get("content").and_then(Value::as_array))
                .flatten()
                .filter(|part| part.get("type").and_then(Value::as_str) == Some("output_text"))
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect::<String>()
        })
        .unwrap_or_default();
    let usage = body.get("usage");
    let input = usage_u64(usage, "input_tokens");
    let output = usage_u64(usage, "output_tokens");
    let total = usage
        .and_then(|u| u.get("total_tokens"))
        .and_then(Value::as_u64)
        .unwrap_or(input + output);
    let cached = usage
        .and_then(|u| u.pointer("/input_tokens_details/cached_tokens"))
        .and_then(Value::as_u64);
    TextResponse {
        text,
        usage: Usage {
            input,
            output,
            total,
            cached,
        },
    }
}
