//! A URL a fetch may request: http or https, a host, no credentials.

use std::fmt;
use std::net::IpAddr;

use super::WebError;

/// A checked URL: scheme `http` or `https`, a host, no `user:pass@`, no
/// fragment (it never reaches the server). Its text can be shown and logged.
#[derive(Clone, PartialEq, Eq)]
pub struct WebUrl(reqwest::Url);

impl WebUrl {
    /// Checks `text`. A URL with credentials is refused without repeating
    /// it, so they reach no message.
    pub fn parse(text: &str) -> Result<WebUrl, WebError> {
        let url = reqwest::Url::parse(text.trim()).map_err(|e| WebError::BadUrl(e.to_string()))?;
        WebUrl::check(url)
    }

    /// `location` (a redirect's target) read against this URL.
    pub fn join(&self, location: &str) -> Result<WebUrl, WebError> {
        let url = self
            .0
            .join(location.trim())
            .map_err(|e| WebError::BadUrl(format!("the redirect's Location: {e}")))?;
        WebUrl::check(url)
    }

    fn check(mut url: reqwest::Url) -> Result<WebUrl, WebError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(WebError::Scheme(url.scheme().to_string()));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(WebError::Credentials);
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(WebError::BadUrl("no host".into()));
        }
        url.set_fragment(None);
        Ok(WebUrl(url))
    }

    /// The host in lower case, as the permission rule `web(HOST)` names it
    /// (an IPv6 address in brackets).
    pub fn host(&self) -> String {
        self.0.host_str().unwrap_or_default().to_ascii_lowercase()
    }

    /// The host's address when it is an IP literal (no lookup happens).
    pub(super) fn literal_ip(&self) -> Option<IpAddr> {
        let host = self.0.host_str()?;
        let bare = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        bare.parse().ok()
    }

    pub(super) fn as_reqwest(&self) -> &reqwest::Url {
        &self.0
    }

    /// The URL's text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl fmt::Display for WebUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

impl fmt::Debug for WebUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WebUrl({})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_with_a_host() {
        for bad in [
            "file:///etc/passwd",
            "ftp://example.org/x",
            "gopher://example.org/",
            "javascript:alert(1)",
            "data:text/plain,hi",
        ] {
            assert!(
                matches!(WebUrl::parse(bad), Err(WebError::Scheme(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            WebUrl::parse("not a url"),
            Err(WebError::BadUrl(_))
        ));
        let url = WebUrl::parse(" HTTPS://Docs.RS/x#frag ").unwrap();
        assert_eq!(url.as_str(), "https://docs.rs/x");
        assert_eq!(url.host(), "docs.rs");
    }

    #[test]
    fn credentials_are_refused_without_being_repeated() {
        for bad in [
            "https://user:hunter2@example.org/",
            "https://hunter2@example.org/",
            "http://:hunter2@example.org/",
        ] {
            let err = WebUrl::parse(bad).unwrap_err();
            assert!(matches!(err, WebError::Credentials), "{bad}");
            assert!(!err.to_string().contains("hunter2"));
        }
        let base = WebUrl::parse("https://example.org/a").unwrap();
        assert!(matches!(
            base.join("https://u:hunter2@example.org/"),
            Err(WebError::Credentials)
        ));
    }

    #[test]
    fn ip_literals_are_seen_in_every_spelling() {
        for (text, ip) in [
            ("http://127.0.0.1:8080/", "127.0.0.1"),
            ("http://2130706433/", "127.0.0.1"),
            ("http://0x7f.1/", "127.0.0.1"),
            ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
            ("http://[::1]/", "::1"),
        ] {
            let url = WebUrl::parse(text).unwrap();
            assert_eq!(url.literal_ip(), Some(ip.parse().unwrap()), "{text}");
        }
        assert_eq!(WebUrl::parse("http://a.b/").unwrap().literal_ip(), None);
        assert_eq!(WebUrl::parse("http://[::1]:9/").unwrap().host(), "[::1]");
    }
}
