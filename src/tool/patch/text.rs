//! A text file as the writing tools see it: its bytes decoded once, with
//! what must survive an edit (BOM, line endings, a missing final newline).

use std::fmt;

/// Files larger than this are not edited (32 MiB).
pub const MAX_EDIT_BYTES: usize = 32 * 1024 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A file's dominant line ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    /// `\n`.
    Lf,
    /// `\r\n`.
    Crlf,
}

impl Eol {
    /// The line ending's characters.
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::Crlf => "\r\n",
        }
    }
}

/// Why a file's bytes cannot be edited as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextRefusal {
    /// NUL bytes or bytes that are not UTF-8.
    Binary,
    /// Over [`MAX_EDIT_BYTES`].
    TooLarge {
        /// The file's size in bytes.
        size: usize,
    },
}

impl fmt::Display for TextRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextRefusal::Binary => {
                f.write_str("is a binary file (not UTF-8 text); it cannot be edited")
            }
            TextRefusal::TooLarge { size } => write!(
                f,
                "is {size} bytes, over the {} MiB limit for edits",
                MAX_EDIT_BYTES / (1024 * 1024)
            ),
        }
    }
}

/// A decoded text file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    /// The file started with a UTF-8 byte-order mark (kept on write).
    pub bom: bool,
    /// The dominant line ending, used for lines the model adds.
    pub eol: Eol,
    /// The text after the BOM, line endings as they are on disk.
    pub text: String,
}

impl TextFile {
    /// Decodes `bytes`; refuses binary content and files over the cap.
    pub fn decode(bytes: Vec<u8>) -> Result<TextFile, TextRefusal> {
        if bytes.len() > MAX_EDIT_BYTES {
            return Err(TextRefusal::TooLarge { size: bytes.len() });
        }
        let bom = bytes.starts_with(BOM);
        let mut bytes = bytes;
        if bom {
            bytes.drain(..BOM.len());
        }
        if memchr::memchr(0, &bytes).is_some() {
            return Err(TextRefusal::Binary);
        }
        let text = String::from_utf8(bytes).map_err(|_| TextRefusal::Binary)?;
        let eol = dominant_eol(&text);
        Ok(TextFile { bom, eol, text })
    }

    /// A new file's text as the model gave it: LF unless the text itself is
    /// mostly CRLF.
    pub fn new_file(content: &str) -> TextFile {
        TextFile {
            bom: false,
            eol: dominant_eol(content),
            text: content.to_string(),
        }
    }

    /// The bytes to write: BOM restored, text as is.
    pub fn encode(&self) -> Vec<u8> {
        self.bytes_of(&self.text)
    }

    /// The bytes of `text` (this file's new text) in this file's format.
    pub fn bytes_of(&self, text: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len() + BOM.len());
        if self.bom {
            out.extend_from_slice(BOM);
        }
        out.extend_from_slice(text.as_bytes());
        out
    }

    /// `model_text` with its line endings turned into this file's.
    pub fn with_file_eol(&self, model_text: &str) -> String {
        match self.eol {
            Eol::Lf => model_text.replace("\r\n", "\n"),
            Eol::Crlf => model_text.replace("\r\n", "\n").replace('\n', "\r\n"),
        }
    }
}

/// CRLF when more lines end in `\r\n` than in a bare `\n`.
fn dominant_eol(text: &str) -> Eol {
    let bytes = text.as_bytes();
    let (mut crlf, mut lf) = (0usize, 0usize);
    for at in memchr::memchr_iter(b'\n', bytes) {
        if at > 0 && bytes[at - 1] == b'\r' {
            crlf += 1;
        } else {
            lf += 1;
        }
    }
    if crlf > lf { Eol::Crlf } else { Eol::Lf }
}

/// The 1-based line number of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..offset.min(text.len())]).count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_and_line_endings_survive_a_round_trip() {
        let bytes = b"\xEF\xBB\xBFa\r\nb\r\nc".to_vec();
        let file = TextFile::decode(bytes.clone()).unwrap();
        assert!(file.bom);
        assert_eq!(file.eol, Eol::Crlf);
        assert_eq!(file.text, "a\r\nb\r\nc");
        assert_eq!(file.encode(), bytes);
        assert_eq!(file.with_file_eol("x\ny\r\n"), "x\r\ny\r\n");
    }

    #[test]
    fn binary_and_oversized_files_are_refused() {
        assert_eq!(TextFile::decode(b"a\0b".to_vec()), Err(TextRefusal::Binary));
        assert_eq!(
            TextFile::decode(vec![0xff, 0xfe, b'a']),
            Err(TextRefusal::Binary)
        );
        let big = vec![b'a'; MAX_EDIT_BYTES + 1];
        assert_eq!(
            TextFile::decode(big),
            Err(TextRefusal::TooLarge {
                size: MAX_EDIT_BYTES + 1
            })
        );
    }

    #[test]
    fn line_numbers_count_from_one() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 4), 3);
    }
}
