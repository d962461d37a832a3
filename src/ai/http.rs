//! The shared HTTP client, its timeouts, and the transport failures of a
//! model call; what a provider itself reports is classified in `classify`.

use std::time::Duration;

use super::{AiError, AiErrorKind};

pub(crate) use super::classify::{classify_status, stream_error};

/// Network timeouts of a model client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpOptions {
    /// Longest wait for a TCP/TLS connection (default 10 s).
    pub connect_timeout: Duration,
    /// Longest silence allowed between two received chunks of a body
    /// (default 120 s).
    pub idle_timeout: Duration,
    /// Longest wait from sending a request to the first byte of its body,
    /// headers included: the model reading the prompt; `None` (the
    /// default): the idle timeout. The binary gives local servers 600 s.
    pub first_byte_timeout: Option<Duration>,
    /// Whether a request whose first byte did not come in time may be
    /// retried; `false` for local servers, where a retry only starts the
    /// slow prefill again.
    pub retry_slow_start: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            first_byte_timeout: None,
            retry_slow_start: true,
        }
    }
}

/// Builds the client every adaptor uses (`pooled`: idle connections are kept
/// for reuse); fails only if the TLS backend cannot initialise.
pub(crate) fn build_client(
    options: &HttpOptions,
    pooled: bool,
) -> Result<reqwest::Client, AiError> {
    let builder = client_builder(options);
    let builder = if pooled {
        builder
    } else {
        builder.pool_max_idle_per_host(0)
    };
    builder.build().map_err(|e| {
        AiError::new(
            AiErrorKind::Transport,
            format!("cannot build HTTP client: {e}"),
        )
        .with_retryable(false)
    })
}

/// The builder of every client: the adaptors' and `web`'s.
pub(crate) fn client_builder(options: &HttpOptions) -> reqwest::ClientBuilder {
    reqwest::Client::builder().connect_timeout(options.connect_timeout)
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

/// Nothing came within `wait` of sending: retryable only when `retry`
/// (a local server's slow prefill is not started again).
pub(crate) fn first_byte_timeout_error(wait: Duration, retry: bool) -> AiError {
    let error = idle_timeout_error(wait);
    if retry {
        return error;
    }
    AiError {
        message: format!(
            "{}; not retried, as a retry would start reading the prompt again (raise [http] first_byte_timeout_secs for a slower model)",
            error.message
        ),
        ..error
    }
    .with_retryable(false)
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

/// Replaces the key and anything shaped like a secret key with `[redacted]`.
pub(crate) fn redact(message: &str, api_key: Option<&str>) -> String {
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
    #[tokio::test]
    async fn a_refused_connection_names_the_address_and_the_reason() {
        // Bound then dropped: nothing listens there any more.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let client = build_client(&HttpOptions::default(), false).unwrap();
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
