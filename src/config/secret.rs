//! [`Secret`]: an API key that cannot leak through formatting.

use std::fmt;

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

#[cfg(test)]
mod tests {
    use super::*;

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
