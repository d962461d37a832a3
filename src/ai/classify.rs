//! One classification of every failure a provider reports, whether it came
//! as an HTTP status with an error body or as an error event inside a 200
//! stream, for all four wire formats.
//!
//! What the caller should do decides the class:
//! - final (the same request fails again): quota or billing exhausted, bad
//!   or missing key, refused request, unknown model or URL, prompt over the
//!   context window, content blocked by the provider's filters;
//! - retried: overload, rate limits (honouring a requested wait), server
//!   errors and unrecognised in-stream errors.
//!
//! Quota wording without a code ("You exceeded your current quota") is
//! final unless the provider also names a wait (Gemini's per-minute quota
//! sends `RetryInfo`), which makes it a rate limit.

use std::time::Duration;

use serde_json::Value;

use super::http::redact;
use super::{AiError, AiErrorKind};

/// What a provider said about a failure, from either path.
#[derive(Debug, Default)]
pub(crate) struct ProviderFailure {
    /// The HTTP status, or the numeric code an in-stream error carries
    /// (Gemini's and OpenRouter's `error.code`).
    pub(crate) status: Option<u16>,
    /// The error's string `code`, `type` and `status` fields, lower-cased
    /// (`insufficient_quota`, `overloaded_error`, `resource_exhausted`).
    pub(crate) codes: Vec<String>,
    /// The provider's message (already redacted).
    pub(crate) message: String,
    /// The wait the provider asked for (`Retry-After`, Gemini `RetryInfo`).
    pub(crate) retry_after: Option<Duration>,
    /// Whether the failure arrived inside a 200 stream.
    pub(crate) mid_stream: bool,
}

/// Code for a provider's content block, given by decoders that see one in
/// a stream's shape rather than in an error object (Gemini's
/// `promptFeedback.blockReason`, safety finish reasons).
pub(crate) const CONTENT_BLOCKED: &str = "content_blocked";

/// What the caller should do about a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailureClass {
    /// The prompt does not fit the model's context window.
    ContextLength,
    /// The account's quota or credit is used up.
    Quota,
    /// The key is missing, wrong or not allowed to do this.
    Auth,
    /// The provider's filters blocked the prompt or the answer.
    Blocked,
    /// The model or endpoint does not exist.
    NotFound,
    /// The request itself is wrong.
    Invalid,
    /// Too many requests for now.
    RateLimit,
    /// The provider is overloaded.
    Overload,
    /// The provider failed, or said something unrecognised mid-stream.
    Server,
}

const CONTEXT_CODES: [&str; 3] = [
    "context_length_exceeded",
    "context_length",
    // llama.cpp's server
    "exceed_context_size_error",
];
const CONTEXT_PHRASES: [&str; 7] = [
    // llama.cpp: "the request exceeds the available context size"
    "context size",
    "maximum context length",
    "prompt is too long",
    "context window",
    "context length",
    // Gemini: "The input token count (N) exceeds the maximum number of tokens allowed (M)."
    "exceeds the maximum number of tokens",
    "input token count",
];
const QUOTA_CODES: [&str; 4] = [
    "insufficient_quota",
    "billing_error",
    "billing_hard_limit_reached",
    "billing_not_active",
];
const QUOTA_PHRASES: [&str; 2] = ["exceeded your current quota", "credit balance is too low"];
const AUTH_CODES: [&str; 7] = [
    "invalid_api_key",
    "authentication_error",
    "permission_error",
    "unauthenticated",
    "permission_denied",
    "invalid_authentication",
    "api_key_invalid",
];
// Gemini answers a bad key with 400 INVALID_ARGUMENT and says so only in words.
const AUTH_PHRASES: [&str; 2] = ["api key not valid", "api_key_invalid"];
const BLOCKED_CODES: [&str; 3] = [
    CONTENT_BLOCKED,
    "content_filter",
    "content_policy_violation",
];
const NOT_FOUND_CODES: [&str; 3] = ["not_found_error", "not_found", "model_not_found"];
const RATE_CODES: [&str; 4] = [
    "rate_limit_error",
    "rate_limit_exceeded",
    "resource_exhausted",
    "tokens_exceeded",
];
const OVERLOAD_CODES: [&str; 4] = [
    "overloaded_error",
    "unavailable",
    "server_is_overloaded",
    "slow_down",
];
const SERVER_CODES: [&str; 6] = [
    "api_error",
    "server_error",
    "internal",
    "internal_error",
    "deadline_exceeded",
    "timeout",
];
const INVALID_CODES: [&str; 6] = [
    "invalid_request_error",
    "invalid_argument",
    "failed_precondition",
    "request_too_large",
    "invalid_prompt",
    "invalid_value",
];

/// The one classification: message and codes first (they say more than a
/// status), then the status.
pub(crate) fn classify(failure: &ProviderFailure) -> FailureClass {
    let lower = failure.message.to_ascii_lowercase();
    let has_code = |set: &[&str]| failure.codes.iter().any(|c| set.contains(&c.as_str()));
    let says = |set: &[&str]| set.iter().any(|p| lower.contains(p));
    if has_code(&CONTEXT_CODES) || says(&CONTEXT_PHRASES) {
        return FailureClass::ContextLength;
    }
    if has_code(&QUOTA_CODES) || (says(&QUOTA_PHRASES) && failure.retry_after.is_none()) {
        return FailureClass::Quota;
    }
    if has_code(&AUTH_CODES) || says(&AUTH_PHRASES) || matches!(failure.status, Some(401 | 403)) {
        return FailureClass::Auth;
    }
    let by_code = [
        (&BLOCKED_CODES[..], FailureClass::Blocked),
        (&NOT_FOUND_CODES[..], FailureClass::NotFound),
        (&RATE_CODES[..], FailureClass::RateLimit),
        (&OVERLOAD_CODES[..], FailureClass::Overload),
        (&SERVER_CODES[..], FailureClass::Server),
        (&INVALID_CODES[..], FailureClass::Invalid),
    ];
    if let Some((_, class)) = by_code.iter().find(|(set, _)| has_code(set)) {
        return *class;
    }
    match failure.status {
        Some(404) => FailureClass::NotFound,
        Some(429) => FailureClass::RateLimit,
        Some(503 | 529) => FailureClass::Overload,
        Some(408 | 409 | 500..=599) => FailureClass::Server,
        Some(_) => FailureClass::Invalid,
        // An error object in a stream that names nothing we know: the
        // provider failed this attempt.
        None => FailureClass::Server,
    }
}

impl FailureClass {
    /// Whether the same request may succeed when sent again.
    pub(crate) fn is_retryable(self) -> bool {
        matches!(
            self,
            FailureClass::RateLimit | FailureClass::Overload | FailureClass::Server
        )
    }

    fn kind(self) -> AiErrorKind {
        match self {
            FailureClass::ContextLength => AiErrorKind::ContextLength,
            FailureClass::RateLimit | FailureClass::Overload | FailureClass::Server => {
                AiErrorKind::Provider
            }
            _ => AiErrorKind::Request,
        }
    }

    fn label(self) -> &'static str {
        match self {
            FailureClass::ContextLength => "context length exceeded",
            FailureClass::Quota => "quota exhausted: check your plan and billing",
            FailureClass::Auth => "authentication failed: check your API key",
            FailureClass::Blocked => "the model provider blocked the content",
            FailureClass::NotFound => "not found: check the base URL and the model name",
            FailureClass::Invalid => "the model provider refused the request",
            FailureClass::RateLimit | FailureClass::Overload => {
                "the model provider asked to retry later"
            }
            FailureClass::Server => "the model provider failed",
        }
    }
}

/// The [`AiError`] for `failure`, classified by [`classify`].
pub(crate) fn failure_error(failure: ProviderFailure) -> AiError {
    let class = classify(&failure);
    let mut origin = match failure.status {
        Some(status) if !failure.mid_stream => format!("HTTP {status}"),
        _ => "mid-stream".to_owned(),
    };
    if let Some(code) = failure
        .codes
        .first()
        .filter(|c| failure.mid_stream && *c != CONTENT_BLOCKED)
    {
        origin = format!("{origin}, {code}");
    }
    let message = if failure.message.is_empty() {
        format!("{} ({origin})", class.label())
    } else {
        format!("{} ({origin}): {}", class.label(), failure.message)
    };
    let mut error = AiError::new(class.kind(), message)
        .with_retryable(class.is_retryable())
        .with_retry_after(failure.retry_after);
    if let Some(status) = failure.status.filter(|_| !failure.mid_stream) {
        error = error.with_status(status);
    }
    error
}

/// The parts of a provider error body, in OpenAI (`{"error":{"message",
/// "code","type"}}`), Anthropic (`{"type":"error","error":{"type",
/// "message"}}`), Gemini (`{"error":{"code":429,"message","status",
/// "details"}}`) or Responses (`{"type":"error","error":{…}}` or flat
/// `{"type":"error","code","message"}`) shape.
fn read_failure(body: &Value) -> ProviderFailure {
    let error = body.get("error").filter(|e| !e.is_null()).unwrap_or(body);
    let message = match error {
        Value::String(text) => text.clone(),
        _ => error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_default(),
    };
    let mut codes = Vec::new();
    let mut status = None;
    for key in ["code", "type", "status"] {
        match error.get(key) {
            Some(Value::String(s)) if !s.is_empty() && s != "error" => {
                codes.push(s.to_ascii_lowercase());
            }
            Some(Value::Number(n)) => status = n.as_u64().and_then(|n| u16::try_from(n).ok()),
            _ => {}
        }
    }
    ProviderFailure {
        status,
        codes,
        message,
        retry_after: gemini_retry_delay(error),
        mid_stream: false,
    }
}

/// Gemini's `details[].retryDelay` (`"27s"`, `"1.5s"`) of a `RetryInfo`.
fn gemini_retry_delay(error: &Value) -> Option<Duration> {
    error
        .get("details")?
        .as_array()?
        .iter()
        .filter(|d| {
            d.get("@type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.ends_with("google.rpc.RetryInfo"))
        })
        .find_map(|d| {
            d.get("retryDelay")?
                .as_str()?
                .strip_suffix('s')?
                .parse()
                .ok()
        })
        .and_then(|secs: f64| Duration::try_from_secs_f64(secs).ok())
}

/// Classifies a non-success HTTP response: `status`, the server's
/// `Retry-After`, and the error body, with `api_key` scrubbed from what is
/// quoted.
pub(crate) fn classify_status(
    status: u16,
    retry_after: Option<Duration>,
    body: &str,
    api_key: Option<&str>,
) -> AiError {
    let mut failure = match serde_json::from_str::<Value>(body) {
        Ok(parsed) => read_failure(&parsed),
        Err(_) => ProviderFailure::default(),
    };
    if failure.message.is_empty() {
        failure.message = body.trim().chars().take(500).collect();
    }
    failure.message = redact(&failure.message, api_key);
    failure.status = Some(status);
    failure.retry_after = retry_after.or(failure.retry_after);
    failure_error(failure)
}

/// Classifies an error object that arrived inside a 200 stream (an
/// `{"error":…}` chunk, an `event: error`, a Responses `error` event or
/// `response.failed`).
pub(crate) fn stream_error(body: &Value) -> AiError {
    let mut failure = read_failure(body);
    if failure.message.is_empty() {
        failure.message = body.to_string();
    }
    failure.message = redact(&failure.message, None);
    failure.mid_stream = true;
    failure_error(failure)
}

/// A content block seen in a stream's shape (not in an error object).
pub(crate) fn blocked_error(message: String) -> AiError {
    failure_error(ProviderFailure {
        codes: vec![CONTENT_BLOCKED.to_owned()],
        message,
        mid_stream: true,
        ..ProviderFailure::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn statuses_are_classified_by_what_the_caller_should_do() {
        let cases = [
            (400, AiErrorKind::Request, false),
            (401, AiErrorKind::Request, false),
            (403, AiErrorKind::Request, false),
            (404, AiErrorKind::Request, false),
            (408, AiErrorKind::Provider, true),
            (409, AiErrorKind::Provider, true),
            (429, AiErrorKind::Provider, true),
            (500, AiErrorKind::Provider, true),
            (503, AiErrorKind::Provider, true),
            (529, AiErrorKind::Provider, true),
        ];
        for (status, kind, retryable) in cases {
            let err = classify_status(status, None, "", None);
            assert_eq!((err.kind, err.retryable), (kind, retryable), "{status}");
            assert_eq!(err.status, Some(status));
        }
    }

    #[test]
    fn auth_failure_says_check_the_key_and_hides_it() {
        let body = r#"{"error":{"message":"Incorrect API key provided: sk-secret-123. Find yours","code":"invalid_api_key"}}"#;
        let err = classify_status(401, None, body, Some("sk-secret-123"));
        assert!(
            err.message.contains("check your API key"),
            "{}",
            err.message
        );
        assert!(!err.message.contains("secret"), "{}", err.message);
    }

    #[test]
    fn context_length_is_its_own_kind_in_both_shapes() {
        let openai = r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","code":"context_length_exceeded"}}"#;
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
        for body in [openai, anthropic] {
            let err = classify_status(400, None, body, None);
            assert_eq!(err.kind, AiErrorKind::ContextLength, "{body}");
            assert!(!err.retryable);
        }
    }

    #[test]
    fn provider_message_is_surfaced() {
        let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        let err = classify_status(529, None, body, None);
        assert!(err.message.ends_with(": Overloaded"), "{}", err.message);
    }

    #[test]
    fn quota_exhaustion_is_not_retried() {
        let body = r#"{"error":{"message":"You exceeded your current quota","code":"insufficient_quota"}}"#;
        assert!(!classify_status(429, None, body, None).retryable);
    }

    /// (wire format, error object as it arrives in a stream, class).
    fn in_stream_cases() -> Vec<(&'static str, Value, FailureClass)> {
        let quota = "You exceeded your current quota, please check your plan and billing details.";
        vec![
            (
                "openai",
                json!({"error":{"message":quota,"type":"insufficient_quota","code":"insufficient_quota"}}),
                FailureClass::Quota,
            ),
            (
                "openai",
                json!({"error":{"message":"Rate limit reached for gpt-4o","type":"requests","code":"rate_limit_exceeded"}}),
                FailureClass::RateLimit,
            ),
            (
                "openai",
                json!({"error":{"message":"The server had an error while processing your request.","type":"server_error","code":null}}),
                FailureClass::Server,
            ),
            (
                "openai",
                json!({"error":{"code":502,"message":"Upstream provider returned an error"}}),
                FailureClass::Server,
            ),
            (
                "openai",
                json!({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}),
                FailureClass::Auth,
            ),
            (
                "openai",
                json!({"error":{"message":"This model's maximum context length is 128000 tokens.","code":"context_length_exceeded"}}),
                FailureClass::ContextLength,
            ),
            (
                "anthropic",
                json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}),
                FailureClass::Overload,
            ),
            (
                "anthropic",
                json!({"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}),
                FailureClass::RateLimit,
            ),
            (
                "anthropic",
                json!({"type":"error","error":{"type":"api_error","message":"Internal server error"}}),
                FailureClass::Server,
            ),
            (
                "anthropic",
                json!({"type":"error","error":{"type":"invalid_request_error","message":"messages: roles must alternate"}}),
                FailureClass::Invalid,
            ),
            (
                "anthropic",
                json!({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}),
                FailureClass::Auth,
            ),
            (
                "anthropic",
                json!({"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low"}}),
                FailureClass::Quota,
            ),
            (
                "anthropic",
                json!({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}),
                FailureClass::ContextLength,
            ),
            (
                "gemini",
                json!({"error":{"code":429,"message":quota,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"27s"}]}}),
                FailureClass::RateLimit,
            ),
            (
                "gemini",
                json!({"error":{"code":429,"message":quota,"status":"RESOURCE_EXHAUSTED"}}),
                FailureClass::Quota,
            ),
            (
                "gemini",
                json!({"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}),
                FailureClass::Overload,
            ),
            (
                "gemini",
                json!({"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}),
                FailureClass::Server,
            ),
            (
                "gemini",
                json!({"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}),
                FailureClass::Auth,
            ),
            (
                "gemini",
                json!({"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}),
                FailureClass::ContextLength,
            ),
            (
                "gemini",
                json!({"error":{"code":404,"message":"models/gemini-9 is not found","status":"NOT_FOUND"}}),
                FailureClass::NotFound,
            ),
            (
                "responses",
                json!({"type":"error","sequence_number":2,"error":{"type":"insufficient_quota","code":"insufficient_quota","message":quota,"param":null}}),
                FailureClass::Quota,
            ),
            (
                "responses",
                json!({"type":"error","code":"rate_limit_exceeded","message":"Rate limit reached","param":null,"sequence_number":3}),
                FailureClass::RateLimit,
            ),
            (
                "responses",
                json!({"error":{"code":"server_error","message":"The model failed to generate a response."}}),
                FailureClass::Server,
            ),
            (
                "responses",
                json!({"type":"error","code":"invalid_prompt","message":"Invalid prompt: flagged","param":null}),
                FailureClass::Invalid,
            ),
            (
                "responses",
                json!({"error":{"code":"content_filter","message":"blocked by the content filter"}}),
                FailureClass::Blocked,
            ),
        ]
    }

    #[test]
    fn in_stream_errors_of_every_wire_format_are_classified_by_what_to_do() {
        for (wire, body, class) in in_stream_cases() {
            let failure = read_failure(&body);
            assert_eq!(classify(&failure), class, "{wire}: {body}");
            let err = stream_error(&body);
            assert_eq!(err.retryable, class.is_retryable(), "{wire}: {err}");
            assert_eq!(err.kind, class.kind(), "{wire}: {err}");
        }
    }

    #[test]
    fn the_same_body_under_an_http_status_gets_the_same_class() {
        for (wire, body, class) in in_stream_cases() {
            let status = match class {
                FailureClass::Quota | FailureClass::RateLimit => 429,
                FailureClass::Auth => 401,
                FailureClass::NotFound => 404,
                FailureClass::Overload => 529,
                FailureClass::Server => 500,
                _ => 400,
            };
            let err = classify_status(status, None, &body.to_string(), None);
            assert_eq!(
                (err.kind, err.retryable, err.status),
                (class.kind(), class.is_retryable(), Some(status)),
                "{wire}: {err}"
            );
        }
    }

    #[test]
    fn a_requested_wait_is_kept_from_the_header_or_gemini_retry_info() {
        let body = json!({"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Resource has been exhausted","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}});
        let from_body = classify_status(429, None, &body.to_string(), None);
        assert_eq!(from_body.retry_after, Some(Duration::from_millis(1500)));
        let from_header =
            classify_status(429, Some(Duration::from_secs(4)), &body.to_string(), None);
        assert_eq!(from_header.retry_after, Some(Duration::from_secs(4)));
        assert_eq!(
            stream_error(&body).retry_after,
            Some(Duration::from_millis(1500))
        );
    }

    #[test]
    fn content_blocks_are_final() {
        let err = blocked_error("the prompt was blocked (PROHIBITED_CONTENT)".into());
        assert_eq!((err.kind, err.retryable), (AiErrorKind::Request, false));
        assert!(err.message.contains("PROHIBITED_CONTENT"), "{err}");
    }

    #[test]
    fn mid_stream_errors_keep_their_class() {
        let overloaded = stream_error(
            &json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}),
        );
        assert_eq!(overloaded.kind, AiErrorKind::Provider);
        assert!(overloaded.retryable);
        let numeric = stream_error(&json!({"error":{"code":400,"message":"bad"}}));
        assert!(!numeric.retryable);
        assert_eq!(numeric.kind, AiErrorKind::Request);
        let too_long = stream_error(&json!({"error":{"message":"exceeds the context window"}}));
        assert_eq!(too_long.kind, AiErrorKind::ContextLength);
        let llama = stream_error(
            &json!({"error":{"code":400,"type":"exceed_context_size_error",
            "message":"the request exceeds the available context size, try increasing it"}}),
        );
        assert_eq!(llama.kind, AiErrorKind::ContextLength);
    }
}
