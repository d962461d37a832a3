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

use super::http::{HttpOptions, build_client};
use super::replay::ReplayMemo;
use super::stream::{CallSpec, drive};
use super::text::{post_json, usage_u64};
use super::{Adaptor, AiError, EventStream, StreamRequest, TextRequest, TextResponse};
use crate::protocol::Usage;

/// A client for one model behind the OpenAI Responses API.
#[derive(Debug, Clone)]
pub struct ResponsesAdaptor {
    client: reqwest::Client,
    endpoint: String,
    api_key: Option<String>,
    model: String,
    options: ResponsesOptions,
    http: HttpOptions,
    reasoning: ReplayMemo<Vec<Value>>,
}

impl ResponsesAdaptor {
    /// A client for `model` at `base_url` (e.g. `https://api.openai.com/v1`;
    /// requests go to `{base_url}/responses`), with the options the model
    /// name suggests ([`ResponsesOptions::for_model`]). The key, when given,
    /// is sent as a bearer token.
    ///
    /// Fails only if the HTTP client cannot be built.
    pub fn new(
        base_url: impl Into<String>,
        api_key: Option<String>,
        model: impl Into<String>,
        http: HttpOptions,
    ) -> Result<Self, AiError> {
        let base = base_url.into();
        let model = model.into();
        Ok(Self {
            client: build_client(&http)?,
            endpoint: format!("{}/responses", base.trim_end_matches('/')),
            api_key: api_key.filter(|k| !k.is_empty()),
            options: ResponsesOptions::for_model(&model),
            model,
            http,
            reasoning: ReplayMemo::default(),
        })
    }

    /// The same client with explicit request options.
    pub fn with_options(mut self, options: ResponsesOptions) -> Self {
        self.options = options;
        self
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        super::http::log_request(&self.endpoint, body);
        let request = self.client.post(&self.endpoint).json(body);
        match &self.api_key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }
}

impl Adaptor for ResponsesAdaptor {
    fn stream(&self, req: StreamRequest, cancel: CancellationToken) -> EventStream {
        let body =
            build_request_body_with(&self.model, self.options, &req, |id| self.reasoning.get(id));
        let spec = CallSpec {
            request: self.post(&body),
            api_key: self.api_key.clone(),
            model: self.model.clone(),
            idle: self.http.idle_timeout,
        };
        let decoder = ResponsesDecoder::new().with_reasoning_memo(self.reasoning.clone());
        drive(spec, decoder, cancel)
    }

    fn generate_text(&self, req: TextRequest) -> BoxFuture<'static, Result<TextResponse, AiError>> {
        let request = self.post(&build_text_body(&self.model, &req));
        let api_key = self.api_key.clone();
        let idle = self.http.idle_timeout;
        async move {
            let body = post_json(request, api_key.as_deref(), idle).await?;
            Ok(parse_text_response(&body))
        }
        .boxed()
    }

    fn model(&self) -> &str {
        &self.model
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
