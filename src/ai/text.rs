//! The non-streamed half of the adaptors: one JSON request, one JSON answer
//! (used by `generate_text`).

use std::time::Duration;

use serde_json::Value;

use super::connection::Clients;
use super::http::{classify_status, idle_timeout_error, parse_retry_after, transport_error};
use super::{AiError, AiErrorKind};

/// Sends `request` and returns the parsed JSON body of a success.
///
/// Fails with a classified error on a non-success status, a timeout (no
/// headers, or no complete body, within `idle`), or a body that is not JSON.
pub(crate) async fn post_json(
    clients: &Clients,
    request: reqwest::RequestBuilder,
    api_key: Option<&str>,
    idle: Duration,
) -> Result<Value, AiError> {
    let response = tokio::time::timeout(idle, clients.send(request))
        .await
        .map_err(|_| idle_timeout_error(idle))?
        .map_err(|e| transport_error(&e))?;
    let status = response.status();
    let retry_after = parse_retry_after(response.headers());
    let bytes = tokio::time::timeout(idle, response.bytes())
        .await
        .map_err(|_| idle_timeout_error(idle))?
        .map_err(|e| transport_error(&e))?;
    if !status.is_success() {
        let body = String::from_utf8_lossy(&bytes);
        return Err(classify_status(
            status.as_u16(),
            retry_after,
            &body,
            api_key,
        ));
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        AiError::new(
            AiErrorKind::Decode,
            format!("cannot decode the model provider's answer: {e}"),
        )
    })
}

/// `usage[key]` as a number, 0 when absent.
pub(crate) fn usage_u64(usage: Option<&Value>, key: &str) -> u64 {
    usage
        .and_then(|u| u.get(key))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}
