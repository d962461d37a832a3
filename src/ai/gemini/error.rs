//! Gemini's error phrasings mapped onto the shared [`AiError`] classes.
//!
//! The shared classifier reads Gemini's `{error:{code,message,status}}`
//! body already (the numeric `code` is the HTTP status, so
//! `RESOURCE_EXHAUSTED`/429 and 5xx are retried); two refusals need
//! Gemini's own wording to be recognised.

use crate::ai::{AiError, AiErrorKind};

/// How Gemini says the prompt does not fit the model.
const CONTEXT_PHRASES: [&str; 2] = ["exceeds the maximum number of tokens", "input token count"];

/// How Gemini says the key is wrong (it answers 400, not 401).
const BAD_KEY_PHRASES: [&str; 2] = ["api key not valid", "api_key_invalid"];

/// `err` reclassified where Gemini's wording says more than its status.
pub(crate) fn reclassify(err: AiError) -> AiError {
    let lower = err.message.to_ascii_lowercase();
    if err.kind != AiErrorKind::ContextLength && CONTEXT_PHRASES.iter().any(|p| lower.contains(p)) {
        let message = format!("context length exceeded: {}", err.message);
        return AiError {
            kind: AiErrorKind::ContextLength,
            retryable: false,
            message,
            ..err
        };
    }
    if BAD_KEY_PHRASES.iter().any(|p| lower.contains(p)) && !lower.contains("check your api key") {
        let message = format!("authentication failed: check your API key: {}", err.message);
        return AiError {
            kind: AiErrorKind::Request,
            retryable: false,
            message,
            ..err
        };
    }
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_overflow_is_context_length() {
        let err = AiError::new(
            AiErrorKind::Request,
            "the model provider refused the request (HTTP 400): The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        )
        .with_status(400);
        let err = reclassify(err);
        assert_eq!(
            (err.kind, err.retryable, err.status),
            (AiErrorKind::ContextLength, false, Some(400))
        );
    }

    #[test]
    fn invalid_key_says_check_the_key() {
        let err = AiError::new(
            AiErrorKind::Request,
            "the model provider refused the request (HTTP 400): API key not valid. Please pass a valid API key.",
        );
        let err = reclassify(err);
        assert!(
            err.message
                .starts_with("authentication failed: check your API key"),
            "{err}"
        );
        assert!(!err.retryable);
    }

    #[test]
    fn other_errors_pass_unchanged() {
        let err = AiError::new(AiErrorKind::Provider, "overloaded").with_status(503);
        assert_eq!(reclassify(err.clone()), err);
    }
}
