//! [`Secret`]: an API key that cannot leak through formatting, and the
//! redaction of credentials wherever text leaves the process: a key, and
//! what a base URL carries in its userinfo (`http://user:KEY@host`) or its
//! query (`?key=KEY`).
//!
//! [`redact_url`] is the form of a base URL that may be shown or logged;
//! [`Redactor`] scrubs every known secret out of arbitrary text (error
//! messages, provider answers quoted in errors, log lines).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// An API key or other credential.
///
/// `Debug` and `Display` both print `[redacted]`, so a `Secret` can sit inside
/// any struct that is logged or shown. It deliberately implements neither
/// `Serialize` nor `PartialEq` with strings: the only way to the text is
/// [`Secret::expose`], which makes every use greppable.
#[derive(Clone)]
pub struct Secret(String);

/// What `Debug` and `Display` print instead of the secret's text.
pub const REDACTED: &str = "[redacted]";

impl Secret {
    /// Wraps a credential.
    pub fn new(text: impl Into<String>) -> Secret {
        Secret(text.into())
    }

    /// The credential's text, for the one place that must send it (an HTTP
    /// header). Never format or log the result.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for Secret {
    fn from(text: String) -> Secret {
        Secret(text)
    }
}

impl From<&str> for Secret {
    fn from(text: &str) -> Secret {
        Secret(text.to_owned())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// Secrets shorter than this are not scrubbed out of free text: replacing
/// every `v1` or `u` in a message would destroy it, and such short strings
/// are not credentials. [`redact_url`] hides them in URLs all the same.
const MIN_SCRUBBED_LEN: usize = 4;

/// The parts of `url` that carry credentials: the userinfo's user and
/// password, and every query value (raw, as written in the URL).
fn url_secrets(url: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let (before_fragment, _) = url.split_once('#').unwrap_or((url, ""));
    let (address, query) = before_fragment
        .split_once('?')
        .unwrap_or((before_fragment, ""));
    if let Some((_, rest)) = address.split_once("://") {
        let authority = rest.split('/').next().unwrap_or("");
        if let Some((userinfo, _)) = authority.rsplit_once('@') {
            let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
            found.extend([user, password].into_iter().filter(|s| !s.is_empty()));
        }
    }
    for pair in query.split('&') {
        if let Some((_, value)) = pair.split_once('=')
            && !value.is_empty()
        {
            found.push(value);
        }
    }
    found
}

/// `url` with its userinfo and every query value replaced by `[redacted]`:
/// `http://u:K@h/v1?key=K` → `http://[redacted]@h/v1?key=[redacted]`.
/// A URL carrying neither is returned as is.
pub fn redact_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((head, tail)) => (head, Some(tail)),
        None => (url, None),
    };
    let (address, query) = match before_fragment.split_once('?') {
        Some((head, tail)) => (head, Some(tail)),
        None => (before_fragment, None),
    };
    let mut out = match address.split_once("://") {
        Some((scheme, rest)) => {
            let authority_len = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(authority_len);
            match authority.rsplit_once('@') {
                Some((_, host)) => format!("{scheme}://{REDACTED}@{host}{path}"),
                None => address.to_owned(),
            }
        }
        None => address.to_owned(),
    };
    if let Some(query) = query {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if !value.is_empty() => format!("{name}={REDACTED}"),
                _ => pair.to_owned(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// Scrubs known secrets out of text: an API key and the credentials of
/// base URLs. Cheap to clone; `Debug` shows only how many it knows.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Longest first, so a secret containing another is replaced whole.
    secrets: Arc<[String]>,
}

impl Redactor {
    /// A redactor for `key` and the userinfo and query values of `urls`.
    pub fn new(key: Option<&Secret>, urls: &[&str]) -> Redactor {
        let mut secrets: Vec<String> = key
            .map(Secret::expose)
            .into_iter()
            .chain(urls.iter().flat_map(|url| url_secrets(url)))
            .filter(|s| s.len() >= MIN_SCRUBBED_LEN)
            .map(str::to_owned)
            .collect();
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Redactor {
            secrets: secrets.into(),
        }
    }

    /// `text` with every known secret replaced by `[redacted]`; borrowed
    /// when it holds none.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for secret in self.secrets.iter() {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
            }
        }
        out
    }
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Redactor({} secrets)", self.secrets.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_credentials_are_hidden_when_shown() {
        assert_eq!(
            redact_url("http://user:sk-KEY-1@host:8080/v1?key=sk-KEY-1&x=#frag"),
            "http://[redacted]@host:8080/v1?key=[redacted]&x=#frag"
        );
        assert_eq!(
            redact_url("https://api.openai.com/v1"),
            "https://api.openai.com/v1"
        );
        assert_eq!(redact_url("http://KEYONLY@h"), "http://[redacted]@h");
    }

    #[test]
    fn the_key_and_url_secrets_are_scrubbed_from_any_text() {
        let key = Secret::new("sk-live-123456");
        let redactor = Redactor::new(
            Some(&key),
            &["http://alice:pa55word@h/v1?key=query-secret&v=1"],
        );
        let message = "for url (http://h/v1/chat?key=query-secret): bad key sk-live-123456, user alice pa55word v=1";
        let shown = redactor.redact(message);
        for secret in ["sk-live-123456", "query-secret", "pa55word", "alice"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(
            shown.contains("v=1"),
            "short values are left alone: {shown}"
        );
        assert!(matches!(redactor.redact("nothing here"), Cow::Borrowed(_)));
        assert_eq!(format!("{redactor:?}"), "Redactor(4 secrets)");
    }

    #[test]
    fn formatting_never_shows_the_text() {
        let secret = Secret::new("sk-live-123");
        assert_eq!(format!("{secret}"), REDACTED);
        assert_eq!(format!("{secret:?}"), REDACTED);
        assert_eq!(
            format!("{:#?}", Some(secret.clone())),
            format!("Some(\n    {REDACTED},\n)")
        );
        assert_eq!(secret.expose(), "sk-live-123");
    }
}
