//! [`ModelClient`]: what every adaptor holds to reach its model (the HTTP
//! client, the API key and the header it travels in, the model name, the
//! timeouts) and the three things each adaptor does with it: build a
//! logged, keyed POST, stream its answer through a decoder, or send it for
//! one JSON answer.

use std::future::Future;

use reqwest::RequestBuilder;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::decode::WireDecoder;
use super::http::{HttpOptions, build_client, log_request};
use super::stream::{CallSpec, drive};
use super::text::post_json;
use super::{AiError, EventStream};

/// How a provider wants the API key sent.
#[derive(Debug, Clone, Copy)]
pub(crate) enum KeyHeader {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// The key as the whole value of this header.
    Named(&'static str),
}

/// The connection to one model; cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct ModelClient {
    http_client: reqwest::Client,
    api_key: Option<String>,
    key_header: KeyHeader,
    model: String,
    http: HttpOptions,
}

impl ModelClient {
    /// A client for `model`, sending `api_key` (an empty key counts as
    /// none) as `key_header` says.
    ///
    /// Fails only if the HTTP client cannot be built.
    pub(crate) fn new(
        api_key: Option<String>,
        key_header: KeyHeader,
        model: String,
        http: HttpOptions,
    ) -> Result<Self, AiError> {
        Ok(Self {
            http_client: build_client(&http)?,
            api_key: api_key.filter(|k| !k.is_empty()),
            key_header,
            model,
            http,
        })
    }

    /// The model name requests are sent for.
    pub(crate) fn model(&self) -> &str {
        &self.model
    }

    /// A POST of `body` as JSON to `url`, carrying the key; the body is
    /// logged first.
    pub(crate) fn post(&self, url: &str, body: &Value) -> RequestBuilder {
        log_request(url, body);
        let request = self.http_client.post(url).json(body);
        match (&self.api_key, self.key_header) {
            (None, _) => request,
            (Some(key), KeyHeader::Bearer) => request.bearer_auth(key),
            (Some(key), KeyHeader::Named(name)) => request.header(name, key),
        }
    }

    /// Streams the answer to `request` through `decoder`, under the idle
    /// timeout, until it ends or `cancel` fires.
    pub(crate) fn stream(
        &self,
        request: RequestBuilder,
        decoder: impl WireDecoder,
        cancel: CancellationToken,
    ) -> EventStream {
        let spec = CallSpec {
            request,
            api_key: self.api_key.clone(),
            model: self.model.clone(),
            idle: self.http.idle_timeout,
        };
        drive(spec, decoder, cancel)
    }

    /// Sends `request` and resolves to the JSON body of a success; fails
    /// as [`post_json`] does.
    pub(crate) fn send_json(
        &self,
        request: RequestBuilder,
    ) -> impl Future<Output = Result<Value, AiError>> + Send + 'static {
        let api_key = self.api_key.clone();
        let idle = self.http.idle_timeout;
        async move { post_json(request, api_key.as_deref(), idle).await }
    }
}
