//! The one width computation of the UI: how many terminal columns a
//! grapheme (a user-perceived character) takes.
//!
//! Text is measured grapheme by grapheme, exactly as ratatui's buffer lays
//! it out, so wrapping, the composer, cells and the terminal writer agree:
//! a flag (two regional indicators), a ZWJ family, an emoji with VS16 and a
//! CJK ideograph are two columns; combining marks add nothing; a tab is
//! four columns; other control characters take none.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Columns a tab takes.
pub const TAB_WIDTH: usize = 4;

/// Columns one grapheme cluster takes.
pub fn grapheme_width(grapheme: &str) -> usize {
    if grapheme == "\t" {
        return TAB_WIDTH;
    }
    if grapheme.chars().all(char::is_control) {
        return 0;
    }
    grapheme.width()
}

/// Columns `text` takes (the sum over its graphemes).
pub fn str_width(text: &str) -> usize {
    if text.is_ascii() {
        // Fast path: printable ASCII is one column a byte.
        return text
            .bytes()
            .map(|b| match b {
                b'\t' => TAB_WIDTH,
                0..=0x1f | 0x7f => 0,
                _ => 1,
            })
            .sum();
    }
    text.graphemes(true).map(grapheme_width).sum()
}

/// The longest prefix of `text` that fits in `width` columns, and its width.
pub fn fit_prefix(text: &str, width: usize) -> (&str, usize) {
    let mut used = 0;
    for (at, g) in text.grapheme_indices(true) {
        let w = grapheme_width(g);
        if used + w > width {
            return (&text[..at], used);
        }
        used += w;
    }
    (text, used)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_grapheme_has_its_terminal_width() {
        assert_eq!(str_width("abc"), 3);
        assert_eq!(str_width("你好"), 4);
        assert_eq!(str_width("🇵🇱"), 2, "a flag is one wide grapheme");
        assert_eq!(str_width("👨‍👩‍👧"), 2, "a ZWJ family is one wide grapheme");
        assert_eq!(str_width("e\u{301}"), 1, "a combining accent adds nothing");
        assert_eq!(str_width("❤️"), 2, "VS16 asks for emoji presentation");
        assert_eq!(str_width("a\tb"), 2 + TAB_WIDTH);
    }

    #[test]
    fn prefixes_never_split_a_grapheme() {
        assert_eq!(fit_prefix("ab🇵🇱cd", 3), ("ab", 2));
        assert_eq!(fit_prefix("ab🇵🇱cd", 4), ("ab🇵🇱", 4));
        assert_eq!(fit_prefix("e\u{301}x", 1), ("e\u{301}", 1));
    }
}
