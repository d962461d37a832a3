//! The shared HTTP client, its timeouts, and the classification of every
//! HTTP or provider failure into an [`AiError`].

use std::time::Duration;

use serde_json::Value;

use super::{AiError, AiErrorKind};

/// Network timeouts of a model client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpOptions {
    /// Longest wait for a TCP/TLS connection (default 10 s).
    pub connect_timeout: Duration,
    /// Longest silence allowed while waiting for response headers or
    /// between two received chunks of a body (default 120 s).
    pub idle_timeout: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
        }
    }
}

/// Builds the client both adaptors use; fails only if the TLS backend
/// cannot initialise.
pub(crate) fn build_client(options: &HttpOptions) -> Result<reqwest::Client, AiError> {
    reqwest::Client::builder()
        .connect_timeout(options.connect_timeout)
        .build()
        .map_err(|e| {
            AiError::new(
                AiErrorKind::Transport,
                format!("cannot build HTTP client: {e}"),
            )
            .with_retryable(false)
        })
}

/// A connection, send or read failure: always retryable. Says plainly
/// where and why: "cannot connect to 127.0.0.1:9 (connection refused)".
pub(crate) fn transport_error(err: &reqwest::Error) -> AiError {
    let target = err
        .url()
        .and_then(|url| {
            let host = url.host_str()?;
            Some(match url.port_or_known_default() {
                Some(port) => format!("{host}:{port}"),
                None => host.to_string(),
            })
        })
        .unwrap_or_else(|| "the model provider".to_string());
    let cause = root_cause(err);
    let message = if err.is_connect() {
        format!("cannot connect to {target} ({cause})")
    } else if err.is_timeout() {
        format!("{target} timed out")
    } else if err.is_body() || err.is_decode() {
        format!("the connection to {target} broke mid-response ({cause})")
    } else {
        format!("the request to {target} failed ({cause})")
    };
    AiError::new(AiErrorKind::Transport, message)
}

/// The innermost error's text, without the OS error number:
/// "connection refused", "dns error: failed to lookup address …".
fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    let mut innermost = err;
    while let Some(next) = innermost.source() {
        innermost = next;
    }
    let text = innermost.to_string();
    let text = match text.find(" (os error") {
        Some(at) => &text[..at],
        None => text.as_str(),
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => "no reason given".to_string(),
    }
}

/// No byte arrived for `idle`.
pub(crate) fn idle_timeout_error(idle: Duration) -> AiError {
    AiError::new(
        AiErrorKind::Transport,
        format!(
            "the model provider sent nothing for {} s",
            idle.as_secs_f32()
        ),
    )
}

/// The body ended before the model finished (retryable: the caller
/// decides whether a delta was already shown).
pub(crate) fn cut_stream_error() -> AiError {
    AiError::new(
        AiErrorKind::Transport,
        "the model stream ended before the model finished",
    )
}

/// `Retry-After` (seconds) or OpenAI's `retry-after-ms`; HTTP dates are
/// not honoured (the policy's own backoff applies instead).
pub(crate) fn parse_retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    text("retry-after")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
}

/// The `message` and `code`/`type` of a provider error body, in either
/// OpenAI (`{"error":{"message","code","type"}}`) or Anthropic
/// (`{"type":"error","error":{"type","message"}}`) shape.
fn provider_error_fields(body: &Value) -> (Option<String>, Option<String>) {
    let error = body.get("error").unwrap_or(body);
    let message = match error {
        Value::String(text) => Some(text.clone()),
        _ => error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned),
    };
    let code = ["code", "type"]
        .iter()
        .find_map(|key| match error.get(key) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        });
    (message, code)
}

/// Whether a provider message or code says the prompt is too long.
pub(crate) fn is_context_length(message: &str, code: Option<&str>) -> bool {
    if code.is_some_and(|c| c.contains("context_length")) {
        return true;
    }
    let lower = message.to_ascii_lowercase();
    [
        "maximum context length",
        "prompt is too long",
        "context window",
        "context length",
        "context_length_exceeded",
    ]
    .iter()
    .any(|needle| lower.contains(needle))
}

/// Replaces the key and anything shaped like a secret key with `[redacted]`.
fn redact(message: &str, api_key: Option<&str>) -> String {
    let mut text = message.to_owned();
    if let Some(key) = api_key.filter(|k| !k.is_empty()) {
        text = text.replace(key, "[redacted]");
    }
    text.split(' ')
        .map(|word| {
            if word.starts_with("sk-") {
                "[redacted]"
            } else {
                word
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Classifies a non-success HTTP response.
///
/// Retryable: 408, 409, 429 (unless the code is `insufficient_quota`,
/// which no wait fixes) and 5xx. 401/403 say to check the API key and never
/// carry the key. Context-length refusals get their own kind.
pub(crate) fn classify_status(
    status: u16,
    retry_after: Option<Duration>,
    body: &str,
    api_key: Option<&str>,
) -> AiError {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let (message, code) = parsed
        .as_ref()
        .map(provider_error_fields)
        .unwrap_or((None, None));
    let detail = message.unwrap_or_else(|| body.trim().chars().take(500).collect());
    let detail = redact(&detail, api_key);
    let with_detail = |what: &str| {
        if detail.is_empty() {
            format!("{what} (HTTP {status})")
        } else {
            format!("{what} (HTTP {status}): {detail}")
        }
    };
    let error = if is_context_length(&detail, code.as_deref()) {
        AiError::new(
            AiErrorKind::ContextLength,
            with_detail("context length exceeded"),
        )
    } else {
        match status {
            401 | 403 => AiError::new(
                AiErrorKind::Request,
                with_detail("authentication failed: check your API key"),
            ),
            404 => AiError::new(
                AiErrorKind::Request,
                with_detail("not found: check the base URL and the model name"),
            ),
            429 if code.as_deref() == Some("insufficient_quota") => {
                AiError::new(AiErrorKind::Request, with_detail("quota exhausted"))
            }
            408 | 409 | 429 => AiError::new(
                AiErrorKind::Provider,
                with_detail("the model provider asked to retry later"),
            )
            .with_retryable(true),
            500..=599 => AiError::new(
                AiErrorKind::Provider,
                with_detail("the model provider failed"),
            ),
            _ => AiError::new(
                AiErrorKind::Request,
                with_detail("the model provider refused the request"),
            ),
        }
    };
    error.with_status(status).with_retry_after(retry_after)
}

/// Classifies an error object that arrived inside a 200 stream (an
/// `{"error":…}` chunk or an `event: error`).
pub(crate) fn stream_error(body: &Value) -> AiError {
    let (message, code) = provider_error_fields(body);
    let message = message.unwrap_or_else(|| body.to_string());
    if is_context_length(&message, code.as_deref()) {
        return AiError::new(
            AiErrorKind::ContextLength,
            format!("context length exceeded: {message}"),
        );
    }
    let code = code.unwrap_or_default();
    if let Ok(status) = code.parse::<u16>() {
        return classify_status(status, None, &body.to_string(), None);
    }
    let refused = [
        "invalid_request",
        "authentication",
        "permission",
        "not_found",
    ]
    .iter()
    .any(|c| code.contains(c));
    let kind = if refused {
        AiErrorKind::Request
    } else {
        AiErrorKind::Provider
    };
    let label = if code.is_empty() {
        String::new()
    } else {
        format!(" [{code}]")
    };
    AiError::new(
        kind,
        format!("the model provider reported an error mid-stream{label}: {message}"),
    )
}

/// Logs an outgoing model request: the endpoint at debug level, the body at
/// trace level. Bodies never hold credentials (keys travel in headers, which
/// are not logged).
pub(crate) fn log_request(url: &str, body: &serde_json::Value) {
    if tracing::enabled!(tracing::Level::TRACE) {
        tracing::trace!(url, body = %body, "model request");
    } else {
        tracing::debug!(url, "model request");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_refused_connection_names_the_address_and_the_reason() {
        // Bound then dropped: nothing listens there any more.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let client = build_client(&HttpOptions::default()).unwrap();
        let err = client
            .get(format!("http://127.0.0.1:{port}/v1"))
            .send()
            .await
            .unwrap_err();
        let e = transport_error(&err);
        assert_eq!(
            e.message,
            format!("cannot connect to 127.0.0.1:{port} (connection refused)")
        );
        assert!(e.retryable);
    }

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

    #[test]
    fn mid_stream_errors_keep_their_class() {
        let overloaded = stream_error(
            &json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}),
        );
        assert_eq!(overloaded.kind, AiErrorKind::Provider);
        assert!(overloaded.retryable);
        let numeric = stream_error(&json!({"error":{"code":400,"message":"bad"}}));
        assert_eq!(numeric.kind, AiErrorKind::Request);
        let too_long = stream_error(&json!({"error":{"message":"exceeds the context window"}}));
        assert_eq!(too_long.kind, AiErrorKind::ContextLength);
    }

    #[test]
    fn retry_after_reads_seconds_and_milliseconds() {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("retry-after", "2".parse().unwrap());
        assert_eq!(parse_retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", "1500".parse().unwrap());
        assert_eq!(
            parse_retry_after(&headers),
            Some(Duration::from_millis(1500))
        );
        let mut dated = reqwest::header::HeaderMap::new();
        dated.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(parse_retry_after(&dated), None);
    }
}
