//! Wrapping styled lines to a display width (wide CJK characters count two
//! columns), so every cell knows exactly how many rows it occupies.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Display width of a string in terminal columns.
pub fn display_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

fn char_width(c: char) -> usize {
    if c == '\t' { 4 } else { c.width().unwrap_or(0) }
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
    let indent_width: usize = indent.iter().map(|s| display_width(&s.content)).sum();
    let glyphs: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|span| {
            let style = line.style.patch(span.style);
            span.content
                .chars()
                .map(move |c| (if c == '\t' { ' ' } else { c }, style))
        })
        .collect();
    let total: usize = glyphs.iter().map(|(c, _)| char_width(*c)).sum();
    if total <= width {
        return vec![line.clone()];
    }
    let mut rows: Vec<Vec<(char, Style)>> = Vec::new();
    let mut start = 0;
    while start < glyphs.len() {
        let budget = if rows.is_empty() {
            width
        } else {
            width.saturating_sub(indent_width).max(1)
        };
        let mut used = 0;
        let mut end = start;
        // Where this row may end: after a space (which is dropped) or
        // before a wide character (CJK text breaks between characters).
        let mut last_break: Option<(usize, usize)> = None;
        while end < glyphs.len() {
            let c = glyphs[end].0;
            let w = char_width(c);
            if end > start && w > 1 {
                last_break = Some((end, end));
            }
            if used + w > budget && end > start {
                break;
            }
            if c == ' ' {
                last_break = Some((end, end + 1));
            }
            used += w;
            end += 1;
        }
        let (row_end, next) = match last_break {
            _ if end >= glyphs.len() => (end, end),
            _ if glyphs[end].0 == ' ' => (end, end + 1),
            Some((row_end, next)) if row_end > start => (row_end, next),
            _ => (end, end),
        };
        rows.push(glyphs[start..row_end].to_vec());
        start = next;
    }
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| {
            let mut spans = if i == 0 { Vec::new() } else { indent.to_vec() };
            spans.extend(spans_of(&row));
            Line::from(spans)
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

fn spans_of(glyphs: &[(char, Style)]) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for (c, s) in glyphs {
        if style != Some(*s) {
            if let Some(prev) = style {
                spans.push(Span::styled(std::mem::take(&mut text), prev));
            }
            style = Some(*s);
        }
        text.push(*c);
    }
    if let Some(prev) = style {
        spans.push(Span::styled(text, prev));
    }
    spans
}

/// The plain text of a line (styles dropped).
pub fn plain(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
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
}
