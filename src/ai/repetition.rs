//! A model stuck repeating itself.
//!
//! Small local models fall into loops: the same line (`<tool_response>`,
//! a sentence) streamed over and over until the context is full — on a
//! CPU, half an hour of generation nobody reads. The guard watches an
//! answer (or thought) as it streams and reports when its end has become
//! one short unit repeated, so the call can be stopped at once.

/// Longest repeating unit looked for, in bytes: a few paragraphs with code
/// blocks (the 1.5B model looped over an 878-byte pair of snippets).
const MAX_PERIOD: usize = 2048;
/// Fewest bytes of repetition at the end that make a loop, and fewest
/// units of it ([`span`]): normal prose, code and tables never repeat one
/// unit byte for byte this long.
const LOOP_SPAN: usize = 2400;
const LOOP_UNITS: usize = 4;
/// Bytes streamed between two checks, so a long answer costs a check per
/// few hundred bytes, not per delta.
const CHECK_EVERY: usize = 256;

/// Watches one growing text.
#[derive(Debug, Default)]
pub(crate) struct RepetitionGuard {
    checked_at: usize,
    /// The loop found, once one is.
    found: Option<Loop>,
}

/// A loop found at the end of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Loop {
    /// Where the repetition begins (a char boundary).
    pub start: usize,
    /// Bytes of the repeating unit.
    pub period: usize,
}

impl Loop {
    /// `text` up to the end of the repetition's first unit: what the
    /// model said before it looped and the unit once.
    pub fn keep(self, text: &str) -> &str {
        let mut end = (self.start + self.period).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        &text[..end]
    }
}

impl RepetitionGuard {
    /// Checks `text` (the whole text so far) when enough has streamed
    /// since the last check.
    pub fn check(&mut self, text: &str) -> Option<Loop> {
        if text.len() < self.checked_at + CHECK_EVERY {
            return None;
        }
        self.checked_at = text.len();
        self.found = find_loop(text.as_bytes()).map(|found| {
            let mut start = found.start;
            while !text.is_char_boundary(start) {
                start += 1;
            }
            Loop { start, ..found }
        });
        self.found
    }

    /// The loop the last check found, if any.
    pub fn found(&self) -> Option<Loop> {
        self.found
    }
}

/// Bytes of repetition of a `period`-byte unit that make a loop.
fn span(period: usize) -> usize {
    LOOP_SPAN.max(LOOP_UNITS * period)
}

/// The shortest unit whose repetition fills the last [`span`] bytes, with
/// where that repetition begins.
fn find_loop(b: &[u8]) -> Option<Loop> {
    let n = b.len();
    let (period, tail) = (1..=MAX_PERIOD).find_map(|p| {
        let tail = n.checked_sub(span(p))?;
        (tail >= p && b[tail..] == b[tail - p..n - p]).then_some((p, tail))
    })?;
    let mut start = tail - period;
    while start > 0 && b[start - 1] == b[start - 1 + period] {
        start -= 1;
    }
    Some(Loop { start, period })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streams `text` into a guard in `chunk`-byte pieces (at char
    /// boundaries), returning the first loop found and the bytes streamed.
    fn stream(text: &str, chunk: usize) -> Option<(Loop, usize)> {
        let mut guard = RepetitionGuard::default();
        let mut end = 0;
        while end < text.len() {
            end = (end + chunk).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            if let Some(found) = guard.check(&text[..end]) {
                return Some((found, end));
            }
        }
        None
    }

    #[test]
    fn a_repeated_line_is_a_loop_cut_after_its_first_unit() {
        let text = format!("Here is the fix.\n{}", "<tool_response>\n".repeat(400));
        let (found, streamed) = stream(&text, 7).unwrap();
        assert_eq!(found.period, "<tool_response>\n".len());
        assert!(streamed < LOOP_SPAN + CHECK_EVERY + 64, "{streamed}");
        // The unit is found as it first starts: "\n<tool_response>".
        assert_eq!(found.keep(&text), "Here is the fix.\n<tool_response>");
    }

    #[test]
    fn a_repeated_paragraph_of_several_lines_is_a_loop() {
        let unit = "To fix it, change the greeting.\nThen run the tests again.\n\n";
        let text = format!("Start. {}", unit.repeat(60));
        let (found, _) = stream(&text, 13).unwrap();
        assert_eq!(found.period, unit.len());
        assert_eq!(found.keep(&text), format!("Start. {unit}"));
    }

    #[test]
    fn a_repeated_group_of_code_blocks_is_a_loop() {
        // Like what the 1.5B model streamed for 15 minutes (an 878-byte unit).
        let snippet = |file: &str| {
            format!(
                "Here is `{file}`:\n\n```python\ndef compute_total(items):\n    total = 0\n    for item in items:\n        total += item.price\n    return total\n```\n\n"
            )
        };
        let unit = format!(
            "{}{}{}Then run the tests.\n\n",
            snippet("cart.py"),
            snippet("pricing.py"),
            snippet("main.py")
        );
        assert!(unit.len() > 400, "{}", unit.len());
        let text = format!("I renamed it.\n\n{}", unit.repeat(8));
        let (found, streamed) = stream(&text, 11).unwrap();
        assert_eq!(found.period, unit.len());
        let bound = "I renamed it.\n\n".len() + span(unit.len()) + unit.len() + CHECK_EVERY;
        assert!(streamed <= bound, "{streamed} > {bound}");
        // The unit is found as it first starts: ".\n\nHere is …tests".
        let rotated = &unit[..unit.len() - ".\n\n".len()];
        assert_eq!(found.keep(&text), format!("I renamed it.\n\n{rotated}"));
    }

    #[test]
    fn multi_byte_text_is_cut_at_a_char_boundary() {
        let text = format!("Ça va: {}", "é—ü ".repeat(600));
        let (found, streamed) = stream(&text, 5).unwrap();
        let kept = found.keep(&text[..streamed]);
        assert!(kept.starts_with("Ça va: é"), "{kept}");
        assert!(kept.len() < 40, "{kept}");
    }

    #[test]
    fn long_answers_that_do_not_loop_pass() {
        // Varied lines, a long table with numbered rows, code: no loop.
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(&format!("| row {i} | value {} | ok |\n", i * 7 % 13));
        }
        for i in 0..200 {
            text.push_str(&format!("    let x{i} = compute({i}, \"{}\");\n", i % 5));
        }
        assert_eq!(stream(&text, 9), None);
        // A repetition shorter than the span is not a loop either.
        let short = format!("a{}b", "-".repeat(LOOP_SPAN - 10));
        assert_eq!(stream(&short, 50), None);
    }
}
