//! The looser views of a text that edit and hunk matching fall back to, each
//! a plain transformation (never a similarity score), with a map back to the
//! original's byte offsets.

/// Which transformations a view applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loosen {
    /// Carriage returns before `\n` and whitespace at line ends removed.
    pub trailing_whitespace: bool,
    /// Typographic dashes, quotes, ellipses and non-breaking or thin spaces
    /// turned into their ASCII forms.
    pub punctuation: bool,
}

/// The ASCII form of a typographic character, if it has one.
pub fn ascii_punctuation(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{00B4}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
        | '\u{00BB}' => "\"",
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => "-",
        '\u{2026}' => "...",
        '\u{00A0}' | '\u{2002}' | '\u{2003}' | '\u{2007}' | '\u{2008}' | '\u{2009}'
        | '\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => " ",
        _ => return None,
    })
}

/// A loosened copy of a text. `starts[i]` is the original byte offset of the
/// character that produced byte `i`.
pub struct Loosened<'a> {
    original: &'a str,
    /// The loosened text.
    pub text: String,
    starts: Vec<u32>,
}

impl<'a> Loosened<'a> {
    /// Builds the view of `original` (at most 4 GiB, far above the edit cap).
    pub fn new(original: &'a str, how: Loosen) -> Loosened<'a> {
        let mut text = String::with_capacity(original.len());
        let mut starts = Vec::with_capacity(original.len());
        let mut push = |text: &mut String, s: &str, at: usize| {
            text.push_str(s);
            starts.extend(std::iter::repeat_n(at as u32, s.len()));
        };
        let mut line_start = 0;
        for line in original.split_inclusive('\n') {
            let (body, newline) = match line.strip_suffix('\n') {
                Some(body) => (body, true),
                None => (line, false),
            };
            let kept = if how.trailing_whitespace {
                body.trim_end_matches(|c: char| c.is_whitespace())
            } else {
                body
            };
            let mut buf = [0u8; 4];
            for (i, c) in kept.char_indices() {
                let at = line_start + i;
                match how.punctuation.then(|| ascii_punctuation(c)).flatten() {
                    Some(ascii) => push(&mut text, ascii, at),
                    None => push(&mut text, c.encode_utf8(&mut buf), at),
                }
            }
            if newline {
                push(&mut text, "\n", line_start + body.len());
            }
            line_start += line.len();
        }
        Loosened {
            original,
            text,
            starts,
        }
    }

    /// The original byte range that loosened range `start..end` came from
    /// (`start < end`): from its first character through its last, never
    /// taking in whitespace that was dropped after it.
    pub fn original_range(&self, start: usize, end: usize) -> (usize, usize) {
        let first = self.starts[start] as usize;
        let last = self.starts[end - 1] as usize;
        let last_len = self.original[last..]
            .chars()
            .next()
            .map_or(0, char::len_utf8);
        (first, last + last_len)
    }
}

/// `text` loosened the same way as [`Loosened::new`] (for the needle).
pub fn loosen(text: &str, how: Loosen) -> String {
    Loosened::new(text, how).text
}

/// `text` without the `N | ` prefixes `read_file` puts before each line,
/// when every non-empty line has one; `None` otherwise.
pub fn strip_line_numbers(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut any = false;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if body.trim().is_empty() {
            out.push_str(line);
            continue;
        }
        let rest = body.trim_start_matches(' ');
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return None;
        }
        let rest = &rest[digits..];
        let rest = rest
            .strip_prefix(" | ")
            .or_else(|| rest.strip_prefix(" |"))?;
        any = true;
        out.push_str(rest);
        out.push_str(&line[body.len()..]);
    }
    any.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: Loosen = Loosen {
        trailing_whitespace: true,
        punctuation: true,
    };

    #[test]
    fn loosened_ranges_map_back_without_dropped_whitespace() {
        let original = "let s = “hi” — ok  \r\nnext\u{a0}line\n";
        let view = Loosened::new(original, BOTH);
        assert_eq!(view.text, "let s = \"hi\" - ok\nnext line\n");
        let at = view.text.find("ok").unwrap();
        let (start, end) = view.original_range(at, at + 2);
        assert_eq!(
            &original[start..end],
            "ok",
            "the trailing spaces and CR stay"
        );
        let at = view.text.find("\"hi\"").unwrap();
        let (start, end) = view.original_range(at, at + 4);
        assert_eq!(&original[start..end], "“hi”");
    }

    #[test]
    fn only_whitespace_when_asked() {
        let how = Loosen {
            trailing_whitespace: true,
            punctuation: false,
        };
        assert_eq!(loosen("a – b \t\r\n", how), "a – b\n");
    }

    #[test]
    fn line_number_prefixes_come_off_only_when_every_line_has_one() {
        assert_eq!(
            strip_line_numbers("  9 | fn a() {\n 10 |     b();\n\n 11 | }").as_deref(),
            Some("fn a() {\n    b();\n\n}")
        );
        assert_eq!(strip_line_numbers("12 |"), Some(String::new()));
        assert_eq!(strip_line_numbers("fn a() {\n10 | b"), None);
        assert_eq!(strip_line_numbers("x | y"), None);
    }
}
