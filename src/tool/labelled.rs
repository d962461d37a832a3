//! Labelled-line text, the format every tool result speaks to the model.
//!
//! ```text
//! [what]: path does not exist
//! [path]: src/mian.rs
//! [how]: check the spelling, or find the file with tree or grep first
//! ```

use std::fmt::Display;

/// Builds a block of `[label]: value` lines.
#[derive(Debug, Default)]
pub(crate) struct Labelled {
    text: String,
}

impl Labelled {
    /// A block whose first line is `[what]: <what>`.
    pub(crate) fn what(what: impl Display) -> Self {
        Self::default().line("what", what)
    }

    /// Appends `[label]: value`.
    pub(crate) fn line(mut self, label: &str, value: impl Display) -> Self {
        use std::fmt::Write;
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        let _ = write!(self.text, "[{label}]: {value}");
        self
    }

    /// Appends `[label]: value` when `value` is present.
    pub(crate) fn maybe(self, label: &str, value: Option<impl Display>) -> Self {
        match value {
            Some(value) => self.line(label, value),
            None => self,
        }
    }

    /// Appends a raw line (list items, content bodies).
    pub(crate) fn raw(mut self, text: impl AsRef<str>) -> Self {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(text.as_ref());
        self
    }

    /// The finished text.
    pub(crate) fn finish(self) -> String {
        self.text
    }
}

/// Shortens text a model sent before echoing it back (a 10 000-char path
/// should not come back whole), and makes control characters visible.
pub(crate) fn echo(input: &str) -> String {
    const MAX_CHARS: usize = 200;
    let mut out: String = input
        .chars()
        .take(MAX_CHARS)
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    let total = input.chars().count();
    if total > MAX_CHARS {
        out.push_str(&format!("... ({total} chars)"));
    }
    out
}
