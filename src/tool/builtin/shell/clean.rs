//! Terminal output made into plain text, as it streams: ANSI escape
//! sequences removed, carriage-return progress collapsed to its last state.

/// Longest line kept whole; longer lines are passed on in pieces so one
/// endless line cannot grow memory.
const MAX_LINE: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    /// After ESC.
    Start,
    /// In a CSI sequence (`ESC [` … final byte).
    Csi,
    /// In a string sequence (OSC, DCS, …) ended by BEL or `ESC \`.
    Text,
    /// ESC seen inside a string sequence.
    TextEsc,
}

/// A streaming cleaner. Feed it chunks split anywhere; it hands out
/// complete lines (and pieces of overlong ones).
#[derive(Debug)]
pub(crate) struct Cleaner {
    line: Vec<u8>,
    escape: Escape,
    /// A `\r` was seen and not yet resolved: `\r\n` is a line end, anything
    /// else starts the line over (a progress update).
    carriage: bool,
}

impl Cleaner {
    /// An empty cleaner.
    pub(crate) fn new() -> Self {
        Cleaner {
            line: Vec::with_capacity(256),
            escape: Escape::None,
            carriage: false,
        }
    }

    /// Cleans `bytes`, passing finished text to `out`.
    pub(crate) fn feed(&mut self, bytes: &[u8], out: &mut impl FnMut(&[u8])) {
        for &byte in bytes {
            match self.escape {
                Escape::None => {}
                Escape::Start => {
                    self.escape = match byte {
                        b'[' => Escape::Csi,
                        b']' | b'P' | b'X' | b'^' | b'_' => Escape::Text,
                        _ => Escape::None,
                    };
                    continue;
                }
                Escape::Csi => {
                    if (0x40..=0x7e).contains(&byte) {
                        self.escape = Escape::None;
                    }
                    continue;
                }
                Escape::Text => {
                    match byte {
                        0x07 => self.escape = Escape::None,
                        0x1b => self.escape = Escape::TextEsc,
                        _ => {}
                    }
                    continue;
                }
                Escape::TextEsc => {
                    self.escape = if byte == b'\\' {
                        Escape::None
                    } else {
                        Escape::Text
                    };
                    continue;
                }
            }
            if self.carriage && byte != b'\n' {
                self.carriage = false;
                self.line.clear();
            }
            match byte {
                0x1b => self.escape = Escape::Start,
                b'\r' => self.carriage = true,
                b'\n' => {
                    self.carriage = false;
                    self.line.push(b'\n');
                    out(&self.line);
                    self.line.clear();
                }
                0x08 => {
                    self.line.pop();
                }
                b'\t' => self.line.push(b'\t'),
                0x00..=0x1f | 0x7f => {}
                _ => {
                    self.line.push(byte);
                    if self.line.len() >= MAX_LINE {
                        out(&self.line);
                        self.line.clear();
                    }
                }
            }
        }
    }

    /// Passes on the unfinished last line.
    pub(crate) fn finish(&mut self, out: &mut impl FnMut(&[u8])) {
        if !self.line.is_empty() {
            out(&self.line);
            self.line.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean_split(input: &[u8], at: usize) -> String {
        let mut cleaner = Cleaner::new();
        let mut text = Vec::new();
        let mut out = |b: &[u8]| text.extend_from_slice(b);
        cleaner.feed(&input[..at], &mut out);
        cleaner.feed(&input[at..], &mut out);
        cleaner.finish(&mut out);
        String::from_utf8(text).unwrap()
    }

    #[test]
    fn escapes_and_progress_are_removed_wherever_the_chunks_split() {
        let input = b"\x1b[1;31merror\x1b[0m: bad\n10%\r50%\r100%\r\ndone \x1b]0;title\x07ok\x1b]8;;http://x\x1b\\link\n";
        for at in 0..=input.len() {
            assert_eq!(
                clean_split(input, at),
                "error: bad\n100%\ndone oklink\n",
                "split at {at}"
            );
        }
    }

    #[test]
    fn backspace_and_controls_are_applied_or_dropped() {
        assert_eq!(clean_split(b"ab\x08c\x01\td", 0), "ac\td");
    }

    #[test]
    fn an_endless_line_comes_out_in_pieces() {
        let mut cleaner = Cleaner::new();
        let mut pieces = 0;
        cleaner.feed(&vec![b'x'; MAX_LINE * 3], &mut |_| pieces += 1);
        assert_eq!(pieces, 3);
    }
}
