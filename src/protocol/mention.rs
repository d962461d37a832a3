//! `@` mentions in a prompt's text (`@src/main.rs`, `@src/main.rs#L20-45`):
//! one reading of the tokens, shared by the TUI's composer and the host's
//! prompt-file commands, so a mention in a command file becomes a
//! file-reference part exactly as one typed.

use super::PromptPart;

/// One `@` mention in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The path (what follows `@`, up to a `#` range).
    pub path: String,
    /// The line range of `#L20-45` (`#L20` is one line), when given.
    pub lines: Option<(u32, u32)>,
}

impl Mention {
    /// The file-reference part it becomes on send.
    pub fn part(&self) -> PromptPart {
        PromptPart::File {
            path: self.path.clone(),
            lines: self.lines,
        }
    }
}

/// Reads one token after `@` (no whitespace): its path and line range.
/// `None` when the path is empty.
pub fn parse_token(token: &str) -> Option<Mention> {
    let (path, range) = match token.rsplit_once('#') {
        Some((path, range)) => (path, parse_range(range)),
        None => (token, None),
    };
    // Trailing sentence punctuation is not part of a path.
    let path = path.trim_end_matches([',', ';', ':', '!', '?', ')']);
    let path = if range.is_none() {
        path.trim_end_matches('.')
    } else {
        path
    };
    (!path.is_empty()).then(|| Mention {
        path: path.to_string(),
        lines: range,
    })
}

/// `L20-45`, `20-45`, `L20` or `20`.
fn parse_range(range: &str) -> Option<(u32, u32)> {
    let range = range.strip_prefix('L').unwrap_or(range);
    let (first, last) = match range.split_once('-') {
        Some((first, last)) => (first, last.strip_prefix('L').unwrap_or(last)),
        None => (range, range),
    };
    let (first, last) = (first.parse().ok()?, last.parse().ok()?);
    (first >= 1 && last >= first).then_some((first, last))
}

/// Every mention in `text`: an `@` at the start or after whitespace,
/// followed by a path. Repeated mentions are listed once.
pub fn mentions(text: &str) -> Vec<Mention> {
    let mut found: Vec<Mention> = Vec::new();
    let mut previous = None;
    for (at, c) in text.char_indices() {
        if c == '@' && previous.is_none_or(char::is_whitespace) {
            let rest = &text[at + 1..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            if let Some(mention) = parse_token(&rest[..end])
                && !found.contains(&mention)
            {
                found.push(mention);
            }
        }
        previous = Some(c);
    }
    found
}
