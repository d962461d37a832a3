//! [`list_models`]: the models an OpenAI-compatible server offers
//! (`GET {base}/models`), for the TUI's model picker.

use serde_json::Value;

use crate::ai::http::{HttpOptions, build_client, transport_error};
use crate::ai::{AiError, AiErrorKind};

/// Most models listed: a router's catalogue can hold thousands.
const MAX_MODELS: usize = 200;

/// The ids the server at `base_url` lists under `GET /models` (OpenAI,
/// DeepSeek, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter all answer it),
/// sorted, at most 200. `api_key` goes as a bearer token.
///
/// Fails with a transport error when the server cannot be reached, a
/// request error for a non-success status, and a decode error when the
/// answer has no `data` list.
pub async fn list_models(
    base_url: &str,
    api_key: Option<&str>,
    http: &HttpOptions,
) -> Result<Vec<String>, AiError> {
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    let mut request = build_client(http, false)?.get(&url);
    if let Some(key) = api_key.filter(|k| !k.is_empty()) {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.map_err(|e| transport_error(&e))?;
    let status = response.status();
    if !status.is_success() {
        return Err(
            AiError::new(AiErrorKind::Request, format!("{url} answered {status}"))
                .with_status(status.as_u16()),
        );
    }
    let body: Value = response.json().await.map_err(|e| transport_error(&e))?;
    let Some(data) = body["data"].as_array() else {
        return Err(AiError::new(
            AiErrorKind::Decode,
            format!("{url} did not answer a model list"),
        ));
    };
    let mut ids: Vec<String> = data
        .iter()
        .filter_map(|m| m["id"].as_str().map(str::to_owned))
        .collect();
    ids.sort();
    ids.dedup();
    ids.truncate(MAX_MODELS);
    Ok(ids)
}
