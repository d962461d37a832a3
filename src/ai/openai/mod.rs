//! OpenAI Chat Completions adaptor, also serving DeepSeek, Ollama, vLLM,
//! llama.cpp's server, LM Studio and OpenRouter.
//!
//! - [`request`]: history → `POST {base}/chat/completions` body.
//! - [`decode`]: stream chunks → events, with every provider quirk.

pub mod decode;
pub mod request;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use decode::OpenAiDecoder;
pub use request::{TOOL_ERROR_PREFIX, build_request_body, build_text_body};

use super::http::{HttpOptions, build_client};
use super::stream::{CallSpec, drive};
use super::text::{post_json, usage_u64};
use super::{Adaptor, AiError, AiErrorKind, EventStream, StreamRequest, TextRequest, TextResponse};
use crate::protocol::Usage;

/// A client for one model behind an OpenAI-compatible endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiAdaptor {
    client: reqwest::Client,
    endpoint: String,
    api_key: Option<String>,
    model: String,
    http: HttpOptions,
}

impl OpenAiAdaptor {
    /// A client for `model` at `base_url` (e.g. `https://api.openai.com/v1`;
    /// requests go to `{base_url}/chat/completions`). The key, when given,
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
        Ok(Self {
            client: build_client(&http)?,
            endpoint: format!("{}/chat/completions", base.trim_end_matches('/')),
            api_key: api_key.filter(|k| !k.is_empty()),
            model: model.into(),
            http,
        })
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

impl Adaptor for OpenAiAdaptor {
    fn stream(&self, req: StreamRequest, cancel: CancellationToken) -> EventStream {
        let body = build_request_body(&self.model, &req);
        let spec = CallSpec {
            request: self.post(&body),
            api_key: self.api_key.clone(),
            model: self.model.clone(),
            idle: self.http.idle_timeout,
        };
        drive(spec, OpenAiDecoder::new(), cancel)
    }

    fn generate_text(&self, req: TextRequest) -> BoxFuture<'static, Result<TextResponse, AiError>> {
        let request = self.post(&build_text_body(&self.model, &req));
        let api_key = self.api_key.clone();
        let idle = self.http.idle_timeout;
        async move {
            let body = post_json(request, api_key.as_deref(), idle).await?;
            parse_text_response(&body)
        }
        .boxed()
    }

    fn model(&self) -> &str {
        &self.model
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
