//! Everything the binary writes outside the TUI: one terminal-safe text
//! sanitiser, and writes that turn a closed or full stream into a typed
//! error instead of a panic.
//!
//! Text (answers, tool names and results, intents, titles, provider errors,
//! paths) may come from a hostile model, repository or server. Written raw,
//! `ESC]0;…BEL` retitles the window, `ESC]52;c;…` writes the clipboard and
//! `ESC[?1049h` switches screens. [`safe_text`] shows every C0 control
//! except `\n` and `\t`, DEL and ESC in caret form (`^[`, `^G`, `^?`) and
//! every C1 control as `<U+009B>`, so nothing is interpreted. JSON lines go
//! through [`safe_json`], which escapes DEL and C1 as `\u00XX` (serde_json
//! leaves them raw) — the same JSON value, byte-safe for a terminal.
//!
//! A reader that goes away (`| head -1`) ends the command quietly with
//! status 0; any other write failure (`> /dev/full`) is an [`OutputError`]
//! that `main` reports on stderr with status 1.

use std::borrow::Cow;
use std::io::{self, Write};

/// Writing the command's output failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the output: {0}")]
pub struct OutputError(pub io::Error);

impl OutputError {
    /// Whether the reader closed the pipe: not a failure of the command.
    pub fn is_closed_pipe(&self) -> bool {
        self.0.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Whether `c` is shown visibly instead of written as is.
fn is_unsafe(c: char) -> bool {
    matches!(c, '\0'..='\x08' | '\x0b'..='\x1f' | '\x7f'..='\u{9f}')
}

/// `text` with every control character but `\n` and `\t` made visible
/// (see the module docs); borrowed when there is none.
pub fn safe_text(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\0'..='\x1f' if is_unsafe(c) => {
                out.push('^');
                out.push(char::from(c as u8 + b'@'));
            }
            '\x7f' => out.push_str("^?"),
            '\u{80}'..='\u{9f}' => out.push_str(&format!("<U+{:04X}>", c as u32)),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A line of serde_json output with DEL and C1 characters escaped as
/// `\u00XX` (they can only occur inside strings, where the escape means the
/// same character); borrowed when there is none.
pub fn safe_json(line: &str) -> Cow<'_, str> {
    if !line.chars().any(|c| matches!(c, '\x7f'..='\u{9f}')) {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        match c {
            '\x7f'..='\u{9f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A writer that sanitises every piece of text it is given.
pub struct SafeWriter<W: Write> {
    inner: W,
}

impl<W: Write> SafeWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        Self { inner }
    }

    /// Writes `text` through [`safe_text`].
    pub fn text(&mut self, text: &str) -> Result<(), OutputError> {
        self.inner
            .write_all(safe_text(text).as_bytes())
            .map_err(OutputError)
    }

    /// Writes `text` through [`safe_text`], then a newline.
    pub fn line(&mut self, text: &str) -> Result<(), OutputError> {
        self.text(text)?;
        self.inner.write_all(b"\n").map_err(OutputError)
    }

    /// Writes one JSON line through [`safe_json`], then a newline.
    pub fn json_line(&mut self, line: &str) -> Result<(), OutputError> {
        self.inner
            .write_all(safe_json(line).as_bytes())
            .and_then(|()| self.inner.write_all(b"\n"))
            .map_err(OutputError)
    }

    /// Flushes what is buffered below.
    pub fn flush(&mut self) -> Result<(), OutputError> {
        self.inner.flush().map_err(OutputError)
    }
}

/// Stdout, sanitised and buffered; flush it (or call [`print`]) to see
/// write failures.
pub fn stdout() -> SafeWriter<io::BufWriter<io::Stdout>> {
    SafeWriter::new(io::BufWriter::with_capacity(64 * 1024, io::stdout()))
}

/// Writes `text` sanitised to stdout and flushes.
pub fn print(text: &str) -> Result<(), OutputError> {
    let mut out = stdout();
    out.text(text)?;
    out.flush()
}

/// Writes `text` sanitised to stdout with a newline, and flushes.
pub fn println(text: &str) -> Result<(), OutputError> {
    let mut out = stdout();
    out.line(text)?;
    out.flush()
}

/// Writes one line sanitised to stderr. A failure is ignored: there is no
/// other place left to report it, and it must not stop the command.
pub fn eprintln(text: &str) {
    let mut err = SafeWriter::new(io::stderr().lock());
    let _ = err.line(text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_bells_and_c1_become_visible() {
        let hostile = "a\x1b]0;title\x07b\x1b[?1049h\u{9b}31m\x7f\r\tc\nd";
        let shown = safe_text(hostile);
        assert_eq!(shown, "a^[]0;title^Gb^[[?1049h<U+009B>31m^?^M\tc\nd");
        assert!(
            !shown
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t')
        );
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(safe_text("héllo\n\tworld"), Cow::Borrowed(_)));
        assert!(matches!(safe_json(r#"{"a":"\u001b"}"#), Cow::Borrowed(_)));
    }

    #[test]
    fn json_stays_the_same_value() {
        let value = serde_json::json!({"text": "\x1b]52;c;aGk=\x07 \u{9b}x \x7f é"});
        let line = serde_json::to_string(&value).unwrap();
        let safe = safe_json(&line);
        assert!(!safe.chars().any(char::is_control), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn a_full_device_is_an_error_not_a_panic() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from_raw_os_error(28))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let err = SafeWriter::new(Full).line("x").unwrap_err();
        assert!(!err.is_closed_pipe());
        assert!(err.to_string().contains("No space left"), "{err}");
    }
}
