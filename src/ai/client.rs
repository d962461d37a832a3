//! [`ModelClient`]: what every adaptor holds to reach its model (the HTTP
//! client, the API key and the header it travels in, the model name, the
//! timeouts) and the three things each adaptor does with it: build a
//! logged, keyed POST, stream its answer through a decoder, or send it for
//! one JSON answer.

use std::future::Future;

use futures::{FutureExt, StreamExt};
use reqwest::RequestBuilder;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::connection::Clients;
use super::decode::WireDecoder;
use super::endpoint::Endpoint;
use super::http::{HttpOptions, log_request};
use super::stream::{CallSpec, drive};
use super::text::post_json;
use super::{AiError, EventStream};
use crate::protocol::{Redactor, Secret, redact_url};

/// How a provider wants the API key sent.
#[derive(Debug, Clone, Copy)]
pub(crate) enum KeyHeader {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// The key as the whole value of this header.
    Named(&'static str),
}

/// The connection to one model; cheap to clone. `Debug` shows neither the
/// key nor the base URL's credentials.
#[derive(Debug, Clone)]
pub(crate) struct ModelClient {
    clients: Clients,
    api_key: Option<Secret>,
    key_header: KeyHeader,
    /// Scrubs the key and `base_url`'s credentials from every error
    /// message and logged URL.
    redactor: Redactor,
    model: String,
    http: HttpOptions,
    /// Whether the model takes images (see `Adaptor::accepts_images`).
    image_input: bool,
}

impl ModelClient {
    /// A client for `model` at `base_url`, sending `api_key` (an empty key
    /// counts as none) as `key_header` says.
    ///
    /// Fails only if the HTTP client cannot be built.
    pub(crate) fn new(
        base_url: &str,
        api_key: Option<Secret>,
        key_header: KeyHeader,
        model: String,
        http: HttpOptions,
    ) -> Result<Self, AiError> {
        let api_key = api_key.filter(|k| !k.expose().is_empty());
        Ok(Self {
            clients: Clients::new(&http)?,
            redactor: Redactor::new(api_key.as_ref(), &[base_url]),
            api_key,
            key_header,
            model,
            http,
            image_input: true,
        })
    }

    /// The model name requests are sent for.
    pub(crate) fn model(&self) -> &str {
        &self.model
    }

    /// Whether the model takes images (true unless set otherwise).
    pub(crate) fn image_input(&self) -> bool {
        self.image_input
    }

    /// Says whether the model takes images.
    pub(crate) fn set_image_input(&mut self, accepts: bool) {
        self.image_input = accepts;
    }

    /// A POST of `body` as JSON to `url`, carrying the key; the body is
    /// logged first.
    pub(crate) fn post(&self, url: &Endpoint, body: &Value) -> RequestBuilder {
        let url = url.as_str();
        log_request(&self.redactor.redact(&redact_url(url)), body);
        let request = self.clients.pooled.post(url).json(body);
        match (&self.api_key, self.key_header) {
            (None, _) => request,
            (Some(key), KeyHeader::Bearer) => request.bearer_auth(key.expose()),
            (Some(key), KeyHeader::Named(name)) => {
                match reqwest::header::HeaderValue::from_str(key.expose()) {
                    Ok(mut value) => {
                        // Kept out of any debug output of the request.
                        value.set_sensitive(true);
                        request.header(name, value)
                    }
                    // reqwest reports the bad value at send, without its text.
                    Err(_) => request.header(name, key.expose()),
                }
            }
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
            clients: self.clients.clone(),
            api_key: self.api_key.clone(),
            model: self.model.clone(),
            idle: self.http.idle_timeout,
            first_byte: self
                .http
                .first_byte_timeout
                .unwrap_or(self.http.idle_timeout),
            retry_slow_start: self.http.retry_slow_start,
        };
        let redactor = self.redactor.clone();
        drive(spec, decoder, cancel)
            .map(move |item| item.map_err(|e| redact_error(&redactor, e)))
            .boxed()
    }

    /// Sends `request` and resolves to the JSON body of a success; fails
    /// as [`post_json`] does.
    pub(crate) fn send_json(
        &self,
        request: RequestBuilder,
    ) -> impl Future<Output = Result<Value, AiError>> + Send + 'static {
        let api_key = self.api_key.clone();
        // A whole answer comes at once here: it waits at least as long as a
        // stream waits for its first byte.
        let idle = self
            .http
            .idle_timeout
            .max(self.http.first_byte_timeout.unwrap_or_default());
        let redactor = self.redactor.clone();
        let clients = self.clients.clone();
        async move {
            post_json(
                &clients,
                request,
                api_key.as_ref().map(Secret::expose),
                idle,
            )
            .await
            .map_err(|e| redact_error(&redactor, e))
        }
        .boxed()
    }
}

/// `error` with every known secret scrubbed from its message (transport
/// errors quote the request URL, provider errors may quote the key).
fn redact_error(redactor: &Redactor, mut error: AiError) -> AiError {
    if let std::borrow::Cow::Owned(clean) = redactor.redact(&error.message) {
        error.message = clean;
    }
    error
}
