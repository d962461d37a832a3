//! Google Gemini adaptor (the native `generateContent` API).
//!
//! - [`request`]: history → `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`.
//! - [`schema`]: our JSON Schema → Gemini's schema dialect.
//! - [`decode`]: stream chunks → events.
//! - [`call_ids`]: ids for calls the API leaves unnamed, unique per session.
//!
//! The key travels in the `x-goog-api-key` header, never in the URL, so
//! it cannot end up in a logged URL or a transport error message.

pub mod call_ids;
pub mod decode;
pub mod request;
pub mod schema;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use call_ids::CallIds;
pub use decode::GeminiDecoder;
pub use request::{
    SKIP_SIGNATURE_SENTINEL, build_request_body, build_request_body_with, build_text_body,
};
pub use schema::to_gemini_schema;

use super::client::{KeyHeader, ModelClient};
use super::endpoint::BaseUrl;
use super::http::HttpOptions;
use super::replay::ReplayMemo;
use super::text::usage_u64;
use super::{Adaptor, AiError, EventStream, StreamRequest, TextRequest, TextResponse};
use crate::protocol::Usage;
use crate::protocol::{Effort, Secret};

/// A client for one Gemini model.
#[derive(Debug, Clone)]
pub struct GeminiAdaptor {
    client: ModelClient,
    /// `{base}/{version}/models/{model}`, to which `:method` is joined.
    model_url: BaseUrl,
    call_ids: CallIds,
    signatures: ReplayMemo<String>,
    effort: Option<Effort>,
}

/// `{base}/v1beta` unless `base` already names an API version.
fn versioned_root(base: &str) -> String {
    let base = BaseUrl::parse(base);
    let base = base.root();
    let has_version = base
        .rsplit('/')
        .next()
        .is_some_and(|last| last.starts_with("v1"));
    if has_version {
        base.to_owned()
    } else {
        format!("{base}/v1beta")
    }
}

impl GeminiAdaptor {
    /// Says whether the model takes images (by default it is assumed to);
    /// a host refuses images for a model that does not, before any request.
    pub fn with_image_input(mut self, accepts: bool) -> Self {
        self.client.set_image_input(accepts);
        self
    }

    /// A client for `model` at `base_url`: either the API root
    /// (`https://generativelanguage.googleapis.com`, `/v1beta` is added) or
    /// a versioned root (`…/v1beta`, used as is). The key, when given, is
    /// sent as `x-goog-api-key`.
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
        let root = format!(
            "{}/models/{}",
            versioned_root(&base),
            request::bare_model(&model)
        );
        let model_url = BaseUrl::parse(&base).with_root(root);
        let key_header = KeyHeader::Named("x-goog-api-key");
        Ok(Self {
            client: ModelClient::new(&base, api_key, key_header, model, http)?,
            model_url,
            call_ids: CallIds::new(),
            signatures: ReplayMemo::default(),
            effort: None,
        })
    }

    /// The same client asking Gemini models that think for `effort`
    /// (`thinkingConfig.thinkingBudget`; others are sent nothing).
    pub fn with_effort(mut self, effort: Option<Effort>) -> Self {
        self.effort = effort;
        self
    }

    /// The same client naming id-less calls from `call_ids` (e.g. a fixed
    /// token in tests).
    pub fn with_call_ids(mut self, call_ids: CallIds) -> Self {
        self.call_ids = call_ids;
        self
    }

    fn post(&self, method: &str, body: &Value) -> reqwest::RequestBuilder {
        self.client
            .post(&self.model_url.join(&format!(":{method}")), body)
    }
}

impl Adaptor for GeminiAdaptor {
    fn stream(&self, req: StreamRequest, cancel: CancellationToken) -> EventStream {
        let mut body =
            build_request_body_with(self.client.model(), &req, |id| self.signatures.get(id));
        super::effort::apply_gemini(&mut body, self.client.model(), self.effort);
        let request = self.post("streamGenerateContent?alt=sse", &body);
        let decoder =
            GeminiDecoder::new(self.call_ids.clone()).with_signature_memo(self.signatures.clone());
        self.client.stream(request, decoder, cancel)
    }

    fn generate_text(&self, req: TextRequest) -> BoxFuture<'static, Result<TextResponse, AiError>> {
        let answer = self
            .client
            .send_json(self.post("generateContent", &build_text_body(&req)));
        async move {
            let body = answer.await?;
            Ok(parse_text_response(&body))
        }
        .boxed()
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
        .pointer("/candidates/0/content/parts")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<String>()
        })
        .unwrap_or_default();
    let usage = body.get("usageMetadata");
    let input = usage_u64(usage, "promptTokenCount");
    let output = usage_u64(usage, "candidatesTokenCount") + usage_u64(usage, "thoughtsTokenCount");
    let total = usage
        .and_then(|u| u.get("totalTokenCount"))
        .and_then(Value::as_u64)
        .unwrap_or(input + output);
    let cached = usage
        .and_then(|u| u.get("cachedContentTokenCount"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_with_or_without_a_version_reach_the_same_place() {
        for base in [
            "https://generativelanguage.googleapis.com",
            "https://generativelanguage.googleapis.com/",
            "https://generativelanguage.googleapis.com/v1beta",
        ] {
            assert_eq!(
                versioned_root(base),
                "https://generativelanguage.googleapis.com/v1beta"
            );
        }
        assert_eq!(versioned_root("http://proxy/v1"), "http://proxy/v1");
    }
}
