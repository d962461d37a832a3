//! [`Clients`]: the HTTP clients of one model, and the resend of a request
//! that failed on a reused idle connection.
//!
//! Some servers (llama.cpp's among them) close the connection after each
//! streamed response although they advertise keep-alive. The next request
//! then goes out on the dead pooled connection and fails before any byte of
//! an answer. That is not a failure of the model: the request is sent again
//! at once on a fresh connection, without counting as one of the loop's
//! retries and without its backoff.

use super::AiError;
use super::http::{HttpOptions, build_client};

/// A pooling client for normal use, and one that never reuses a connection
/// for the resend.
#[derive(Debug, Clone)]
pub(crate) struct Clients {
    /// Keeps idle connections for the next request.
    pub(crate) pooled: reqwest::Client,
    /// Opens a new connection for every request.
    fresh: reqwest::Client,
}

impl Clients {
    /// Both clients with `options`; fails only if TLS cannot initialise.
    pub(crate) fn new(options: &HttpOptions) -> Result<Clients, AiError> {
        Ok(Clients {
            pooled: build_client(options, true)?,
            fresh: build_client(options, false)?,
        })
    }

    /// Sends `request` (built on [`Clients::pooled`]). If it fails with no
    /// answer in a way a closed idle connection explains, it is sent once
    /// more, at once, on a fresh connection; that second outcome is final.
    pub(crate) async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, reqwest::Error> {
        let again = request.try_clone().and_then(|copy| copy.build().ok());
        match request.send().await {
            Err(e) if may_be_closed_idle_connection(&e) => match again {
                Some(again) => {
                    tracing::debug!(error = %e, "request failed on a reused connection; resending on a fresh one");
                    self.fresh.execute(again).await
                }
                None => Err(e),
            },
            other => other,
        }
    }
}

/// A request error with no response that is neither a failed connect nor a
/// timeout: the connection was there, and closed before any answer.
fn may_be_closed_idle_connection(e: &reqwest::Error) -> bool {
    e.is_request() && !e.is_connect() && !e.is_timeout() && e.status().is_none()
}
