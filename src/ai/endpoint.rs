//! [`BaseUrl`]: a provider's base URL split at its query, so that endpoint
//! paths are joined to the path and the query stays at the end
//! (`http://h/v1?key=K` + `/chat/completions` →
//! `http://h/v1/chat/completions?key=K`). Both types hide the URL's
//! credentials in `Debug`, since the adaptors holding them derive it.

use std::fmt;

use crate::protocol::redact_url;

/// A full request URL; `Debug` hides its userinfo and query values.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Endpoint(String);

impl Endpoint {
    /// The URL to send to.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", redact_url(&self.0))
    }
}

/// A base URL as the user gave it, ready to have paths joined; `Debug`
/// hides its credentials.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct BaseUrl {
    /// Everything before the query, without a trailing `/`.
    root: String,
    /// The query without its `?` (a fragment is dropped: it is never sent).
    query: Option<String>,
}

impl BaseUrl {
    /// Splits `base` at its first `?` (and drops any `#fragment`).
    pub(crate) fn parse(base: &str) -> BaseUrl {
        let base = base.split_once('#').map_or(base, |(head, _)| head);
        let (root, query) = match base.split_once('?') {
            Some((root, query)) => (root, Some(query).filter(|q| !q.is_empty())),
            None => (base, None),
        };
        BaseUrl {
            root: root.trim_end_matches('/').to_owned(),
            query: query.map(str::to_owned),
        }
    }

    /// The URL before its query, without a trailing `/`.
    pub(crate) fn root(&self) -> &str {
        &self.root
    }

    /// The same query under another root (e.g. with an API version added).
    pub(crate) fn with_root(self, root: String) -> BaseUrl {
        BaseUrl { root, ..self }
    }

    /// `root + path`, then the base's query; a `path` carrying its own
    /// query (`:stream?alt=sse`) gets the base's appended with `&`.
    pub(crate) fn join(&self, path: &str) -> Endpoint {
        let mut url = format!("{}{path}", self.root);
        if let Some(query) = &self.query {
            url.push(if path.contains('?') { '&' } else { '?' });
            url.push_str(query);
        }
        Endpoint(url)
    }
}

impl fmt::Debug for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", redact_url(self.join("").as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_stays_after_the_joined_path() {
        let base = BaseUrl::parse("http://h/v1?key=K");
        assert_eq!(
            base.join("/chat/completions").as_str(),
            "http://h/v1/chat/completions?key=K"
        );
        assert_eq!(
            base.join("/models/m:streamGenerateContent?alt=sse")
                .as_str(),
            "http://h/v1/models/m:streamGenerateContent?alt=sse&key=K"
        );
    }

    #[test]
    fn debug_hides_url_credentials() {
        let base = BaseUrl::parse("http://u:sk-pass-1@h/v1?key=sk-query-2");
        let shown = format!("{base:?} {:?}", base.join("/x"));
        assert!(!shown.contains("sk-"), "{shown}");
        assert!(shown.contains("h/v1/x?key=[redacted]"), "{shown}");
    }

    #[test]
    fn plain_and_trailing_slash_bases_join_as_before() {
        for base in ["https://api.openai.com/v1", "https://api.openai.com/v1/"] {
            assert_eq!(
                BaseUrl::parse(base).join("/responses").as_str(),
                "https://api.openai.com/v1/responses"
            );
        }
        assert_eq!(
            BaseUrl::parse("http://h/v1/?#frag").join("/x").as_str(),
            "http://h/v1/x"
        );
    }
}
