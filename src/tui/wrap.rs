//! Wrapping styled lines to a display width with `textwrap` (break at
//! spaces and at the line-break opportunities of UAX #14, so CJK text
//! breaks between ideographs; words wider than the row are split), widths
//! measured by [`crate::tui::width`], so every cell knows exactly how many
//! rows it occupies.

use std::borrow::Cow;
use std::ops::Range;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use textwrap::{Options, WordSeparator, WordSplitter};

use super::width::{TAB_WIDTH, fit_prefix, str_width};

/// Display width of a string in terminal columns.
pub fn display_width(text: &str) -> usize {
    str_width(text)
}

/// Wraps `line` to `width` columns, breaking at spaces where it can and
/// inside words only when a word is wider than the line. Continuation rows
/// start with `indent` (its width counts against `width`).
pub fn wrap_line(
    line: &Line<'static>,
    width: usize,
    indent: &[Span<'static>],
) -> Vec<Line<'static>> {
    let width = width.max(1);
    if line.width() <= width && !line.spans.iter().any(|s| s.content.contains('\t')) {
        return vec![line.clone()];
    }
    let (text, styles) = flatten(line);
    if str_width(&text) <= width {
        return vec![rebuild(&text, &styles, 0..text.len(), line, &[])];
    }
    let indent_width: usize = indent.iter().map(|s| str_width(&s.content)).sum();
    let rest_width = width.saturating_sub(indent_width).max(1);
    let mut rows = row_ranges(&text, 0, width);
    if rest_width != width && rows.len() > 1 {
        // Continuations are narrower by the indent: wrap them again.
        let mut from = rows[0].end;
        while text[from..].starts_with(' ') {
            from += 1;
        }
        rows.truncate(1);
        rows.extend(row_ranges(&text, from, rest_width));
    }
    if rows.is_empty() {
        rows.push(0..text.len());
    }
    rows.into_iter()
        .enumerate()
        .map(|(i, range)| {
            rebuild(
                &text,
                &styles,
                range,
                line,
                if i == 0 { &[] } else { indent },
            )
        })
        .collect()
}

/// Wraps every line with no continuation indent.
pub fn wrap_lines(lines: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    lines
        .iter()
        .flat_map(|l| wrap_line(l, width, &[]))
        .collect()
}

/// Wraps `line` so that no row is wider than `width`.
pub fn wrap_to_width(line: &Line<'static>, width: usize) -> Vec<Line<'static>> {
    wrap_line(line, width, &[])
}

/// The plain text of a line (styles dropped).
pub fn plain(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// The line's text (tabs expanded) and each span's byte range and style.
fn flatten(line: &Line<'static>) -> (String, Vec<(Range<usize>, Style)>) {
    let mut text = String::new();
    let mut styles = Vec::with_capacity(line.spans.len());
    for span in &line.spans {
        let start = text.len();
        for c in span.content.chars() {
            if c == '\t' {
                text.extend(std::iter::repeat_n(' ', TAB_WIDTH));
            } else {
                text.push(c);
            }
        }
        styles.push((start..text.len(), line.style.patch(span.style)));
    }
    (text, styles)
}

/// Byte ranges of the rows `text[from..]` wraps into at `width`.
fn row_ranges(text: &str, from: usize, width: usize) -> Vec<Range<usize>> {
    let rest = &text[from..];
    let options = Options::new(width)
        .break_words(false)
        .word_separator(WordSeparator::UnicodeBreakProperties)
        .word_splitter(WordSplitter::NoHyphenation);
    let mut out = Vec::new();
    for row in textwrap::wrap(rest, options) {
        let range = match row {
            Cow::Borrowed(s) => {
                let start = s.as_ptr() as usize - rest.as_ptr() as usize;
                from + start..from + start + s.len()
            }
            // Without indents or hyphens textwrap borrows every row; a row
            // it had to build is located by its text instead.
            Cow::Owned(s) => match text[from..].find(s.as_str()) {
                Some(at) => from + at..from + at + s.len(),
                None => continue,
            },
        };
        split_overwide(text, range, width, &mut out);
    }
    out
}

/// textwrap measures characters, the UI graphemes (an emoji with VS16 is
/// wider than its characters): a row that came out too wide is cut again.
fn split_overwide(text: &str, mut range: Range<usize>, width: usize, out: &mut Vec<Range<usize>>) {
    while str_width(&text[range.clone()]) > width {
        let (head, _) = fit_prefix(&text[range.clone()], width);
        let len = head
            .len()
            .max(text[range.clone()].chars().next().map_or(1, char::len_utf8));
        out.push(range.start..range.start + len);
        range.start += len;
    }
    if !range.is_empty() {
        out.push(range);
    }
}

fn rebuild(
    text: &str,
    styles: &[(Range<usize>, Style)],
    range: Range<usize>,
    line: &Line<'static>,
    indent: &[Span<'static>],
) -> Line<'static> {
    let mut spans = indent.to_vec();
    for (span_range, style) in styles {
        let start = span_range.start.max(range.start);
        let end = span_range.end.min(range.end);
        if start < end {
            spans.push(Span::styled(text[start..end].to_string(), *style));
        }
    }
    Line {
        spans,
        style: Style::default(),
        alignment: line.alignment,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(plain).collect()
    }

    #[test]
    fn breaks_at_spaces_and_indents_continuations() {
        let lines = wrap_line(
            &Line::from("alpha beta gamma delta"),
            11,
            &[Span::raw("  ")],
        );
        assert_eq!(texts(&lines), ["alpha beta", "  gamma", "  delta"]);
    }

    #[test]
    fn splits_words_longer_than_the_row() {
        let lines = wrap_line(&Line::from("abcdefghij"), 4, &[]);
        assert_eq!(texts(&lines), ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn wide_characters_take_two_columns() {
        let lines = wrap_line(&Line::from("你好世界你好"), 5, &[]);
        assert_eq!(texts(&lines), ["你好", "世界", "你好"]);
        assert!(lines.iter().all(|l| display_width(&plain(l)) <= 5));
        let lines = wrap_line(&Line::from("› 请解释这个模块"), 8, &[]);
        assert_eq!(texts(&lines), ["› 请解释", "这个模块"]);
    }

    #[test]
    fn short_lines_keep_their_styles() {
        let line = Line::from(vec![Span::styled("a", Style::new().bold()), Span::raw("b")]);
        assert_eq!(wrap_line(&line, 10, &[]), vec![line]);
    }

    #[test]
    fn styles_follow_their_text_across_rows() {
        let bold = Style::new().bold();
        let line = Line::from(vec![Span::raw("plain "), Span::styled("bold words", bold)]);
        let rows = wrap_line(&line, 10, &[]);
        assert_eq!(texts(&rows), ["plain bold", "words"]);
        assert_eq!(rows[1].spans[0].style, bold);
    }

    #[test]
    fn flags_and_zwj_sequences_are_never_split_and_rows_fit() {
        let line = Line::from("🇵🇱🇵🇱🇵🇱 👨‍👩‍👧👨‍👩‍👧 ❤️❤️❤️❤️");
        for width in 2..12 {
            for row in wrap_line(&line, width, &[]) {
                let text = plain(&row);
                assert!(display_width(&text) <= width, "{text:?} at {width}");
                assert!(
                    !text.starts_with('\u{200d}'),
                    "{text:?} split a ZWJ sequence"
                );
            }
        }
    }
}
