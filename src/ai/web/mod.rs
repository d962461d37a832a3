//! One HTTP GET of a web page for `web_fetch`, on the same reqwest client
//! the adaptors use, made safe to point at a URL a model chose:
//!
//! - only `http`/`https`, never `user:pass@` ([`WebUrl`]);
//! - every address is checked after DNS resolution and the connection goes
//!   to exactly the addresses checked (our resolver is the client's only
//!   resolver), so a name that resolves differently a moment later
//!   (DNS rebinding) cannot reach a private address; IP literals are checked
//!   before any connection ([`PrivateAccess`]);
//! - redirects are not followed here: a [`Hop::Redirect`] goes back to the
//!   caller, which checks and asks about the next URL like the first;
//! - no proxy (a proxy would resolve the name itself), no cookies, at most
//!   `max_bytes` read.

mod address;
mod url;

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

pub use address::{PrivateAccess, private_kind};
pub use url::WebUrl;

use super::http::HttpOptions;

/// Why a fetch did not return a page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebError {
    /// Not a URL.
    #[error("not a valid URL: {0}")]
    BadUrl(String),
    /// A scheme other than http and https.
    #[error("the scheme `{0}:` is not fetched; only http and https are")]
    Scheme(String),
    /// `user:pass@` in the URL (the URL is not repeated).
    #[error("URLs with credentials (user:pass@) are refused; ask the user for another way")]
    Credentials,
    /// The host resolves to an address the configuration keeps closed.
    #[error("refused: {0}")]
    Private(String),
    /// The connection, the request or the body failed.
    #[error("{0}")]
    Transport(String),
    /// The fetch was interrupted.
    #[error("interrupted")]
    Cancelled,
}

/// How a [`WebClient`] fetches.
#[derive(Debug, Clone)]
pub struct WebOptions {
    /// Which private addresses may be reached.
    pub private: PrivateAccess,
    /// Longest wait for a connection.
    pub connect_timeout: Duration,
    /// Longest silence between two chunks of an answer (headers included).
    pub idle_timeout: Duration,
    /// Most bytes of a body read.
    pub max_bytes: usize,
}

impl Default for WebOptions {
    fn default() -> Self {
        Self {
            private: PrivateAccess::default(),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            max_bytes: 5 * 1024 * 1024,
        }
    }
}

/// What one GET answered.
#[derive(Debug)]
pub enum Hop {
    /// A 3xx with a Location: where it points (checked as a [`WebUrl`]).
    Redirect {
        /// The status code.
        status: u16,
        /// The target, read against the requested URL.
        to: WebUrl,
    },
    /// Anything else.
    Page(Page),
}

/// A response's status, type and (possibly cut) body.
#[derive(Debug)]
pub struct Page {
    /// The status code.
    pub status: u16,
    /// The `Content-Type` header, when there was one.
    pub content_type: Option<String>,
    /// The body, at most `max_bytes`.
    pub body: Vec<u8>,
    /// Whether the body went on past `max_bytes` (the rest was not read).
    pub cut: bool,
    /// The `Content-Length` header, when there was one.
    pub length: Option<u64>,
}

/// A client for web pages: redirects off, no proxy, our checking resolver.
#[derive(Clone)]
pub struct WebClient {
    client: reqwest::Client,
    options: Arc<WebOptions>,
}

impl fmt::Debug for WebClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebClient")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl WebClient {
    /// A client with `options`; fails only if the TLS backend cannot start.
    pub fn new(options: WebOptions) -> Result<WebClient, WebError> {
        let options = Arc::new(options);
        let http = HttpOptions {
            connect_timeout: options.connect_timeout,
            ..HttpOptions::default()
        };
        let client = super::http::client_builder(&http)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(CheckingResolver {
                private: options.private.clone(),
            }))
            .user_agent(concat!("light-agent/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| WebError::Transport(format!("cannot build the HTTP client: {e}")))?;
        Ok(WebClient { client, options })
    }

    /// The options in force.
    pub fn options(&self) -> &WebOptions {
        &self.options
    }

    /// One GET of `url`, no redirect followed. Returns at once with
    /// [`WebError::Cancelled`] when `cancel` fires.
    pub async fn get(&self, url: &WebUrl, cancel: &CancellationToken) -> Result<Hop, WebError> {
        if let Some(ip) = url.literal_ip() {
            self.options
                .private
                .check(&url.host(), ip)
                .map_err(WebError::Private)?;
        }
        tracing::debug!(url = %url, "web fetch");
        let request = self.client.get(url.as_reqwest().clone()).header(
            reqwest::header::ACCEPT,
            "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.1",
        );
        let idle = self.options.idle_timeout;
        let response = tokio::select! {
            () = cancel.cancelled() => return Err(WebError::Cancelled),
            sent = tokio::time::timeout(idle, request.send()) => match sent {
                Err(_) => return Err(WebError::Transport(format!("{} did not answer within {} s", url.host(), idle.as_secs()))),
                Ok(Err(e)) => return Err(failure(&e)),
                Ok(Ok(response)) => response,
            },
        };
        let status = response.status();
        if status.is_redirection()
            && let Some(location) = response.headers().get(reqwest::header::LOCATION)
        {
            let location = location
                .to_str()
                .map_err(|_| WebError::BadUrl("the redirect's Location is not text".into()))?;
            return Ok(Hop::Redirect {
                status: status.as_u16(),
                to: url.join(location)?,
            });
        }
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let length = response.content_length();
        let (body, cut) = tokio::select! {
            () = cancel.cancelled() => return Err(WebError::Cancelled),
            read = read_body(response, self.options.max_bytes, idle) => read.map_err(|e| match e {
                ReadError::Idle => WebError::Transport(format!("{} stopped sending for {} s", url.host(), idle.as_secs())),
                ReadError::Http(e) => failure(&e),
            })?,
        };
        Ok(Hop::Page(Page {
            status: status.as_u16(),
            content_type,
            body,
            cut,
            length,
        }))
    }
}

enum ReadError {
    Idle,
    Http(reqwest::Error),
}

/// At most `max` bytes of the body, and whether more was coming.
async fn read_body(
    mut response: reqwest::Response,
    max: usize,
    idle: Duration,
) -> Result<(Vec<u8>, bool), ReadError> {
    let mut body = Vec::new();
    loop {
        let Some(chunk) = next_chunk(&mut response, idle).await? else {
            return Ok((body, false));
        };
        let room = max - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
        if body.len() == max {
            // Exactly full: cut only if anything follows.
            let more = next_chunk(&mut response, idle).await?;
            return Ok((body, more.is_some_and(|c| !c.is_empty())));
        }
    }
}

async fn next_chunk(
    response: &mut reqwest::Response,
    idle: Duration,
) -> Result<Option<bytes::Bytes>, ReadError> {
    tokio::time::timeout(idle, response.chunk())
        .await
        .map_err(|_| ReadError::Idle)?
        .map_err(ReadError::Http)
}

/// A failed request as text; a refusal of our resolver (somewhere in the
/// error's source chain, wrapped by the connector) as [`WebError::Private`].
fn failure(err: &reqwest::Error) -> WebError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = source {
        let text = e.to_string();
        if text.contains(address::CLOSED) {
            return WebError::Private(text);
        }
        source = e.source();
    }
    WebError::Transport(super::http::transport_error(err).message)
}

/// Resolves with the system's resolver and refuses a name any of whose
/// addresses is closed; the client connects only to what this returns.
struct CheckingResolver {
    private: PrivateAccess,
}

impl reqwest::dns::Resolve for CheckingResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let private = self.private.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            for addr in &addrs {
                private
                    .check(&host, addr.ip())
                    .map_err(Box::<dyn std::error::Error + Send + Sync>::from)?;
            }
            let addrs: reqwest::dns::Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}
