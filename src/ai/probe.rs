//! [`probe_ollama`]: asks a local Ollama for its first model, within a budget.

use std::time::Duration;

/// Time the probe may take in all: name lookup, connect, request and reply.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(300);

/// Largest reply the probe reads; a model list is far smaller.
const MAX_REPLY_BYTES: usize = 1 << 20;

/// The first model a local Ollama at `base_url` lists (`GET /api/tags`), or
/// `None` if nothing answers within `budget`, the answer is not a model list,
/// or the list is empty.
///
/// `base_url` is the profile's URL (`http://127.0.0.1:11434/v1`); a trailing
/// `/v1` is dropped. Only `http://` URLs are probed. No key is ever sent.
pub async fn probe_ollama(base_url: &str, budget: Duration) -> Option<String> {
    let root = base_url.trim_end_matches('/');
    let root = root.strip_suffix("/v1").unwrap_or(root);
    if !root.starts_with("http://") {
        return None;
    }
    let client = reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .no_proxy()
        .timeout(budget)
        .build()
        .ok()?;
    let ask = async {
        let mut reply = client
            .get(format!("{root}/api/tags"))
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .ok()?
            .error_for_status()
            .ok()?;
        let mut body = Vec::new();
        while let Some(chunk) = reply.chunk().await.ok()? {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_REPLY_BYTES {
                return None;
            }
        }
        first_model(&body)
    };
    // reqwest's timeout covers the whole request; this bounds the body too.
    tokio::time::timeout(budget, ask).await.ok().flatten()
}

fn first_model(body: &[u8]) -> Option<String> {
    let tags: serde_json::Value = serde_json::from_slice(body).ok()?;
    let first = tags.get("models")?.as_array()?.first()?;
    first
        .get("name")
        .or_else(|| first.get("model"))?
        .as_str()
        .filter(|name| !name.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_model_reads_name_then_model() {
        assert_eq!(
            first_model(br#"{"models":[{"name":"a"},{"name":"b"}]}"#).as_deref(),
            Some("a")
        );
        assert_eq!(
            first_model(br#"{"models":[{"model":"m"}]}"#).as_deref(),
            Some("m")
        );
        assert_eq!(first_model(br#"{"models":[]}"#), None);
        assert_eq!(first_model(br#"{"models":[{"name":""}]}"#), None);
        assert_eq!(first_model(b"not json"), None);
    }
}
