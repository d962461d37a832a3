//! Commits a streaming markdown answer in complete lines.
//!
//! Text arrives in arbitrary fragments. A line is rendered only once its
//! newline has arrived; the current block (text since the last blank line)
//! is re-rendered on each complete line and only the lines beyond those
//! already committed are handed out. Fenced code is its own block and is
//! highlighted line by line with a persistent highlighter, so a long code
//! block costs O(lines), not O(lines²). Rendering a whole text at once goes
//! through the same path, so streamed and one-shot output are identical.

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use super::highlight::CodeHighlighter;
use super::markdown::{Lead, Tail, render_block_for};

enum Block {
    Markdown,
    Fence {
        marker: String,
        code: Box<CodeHighlighter>,
    },
}

/// A streaming markdown answer: push fragments, receive committed lines.
pub struct MarkdownStream {
    block: String,
    /// What separates the current block from the line rendered before it,
    /// when the block was started mid-text (see [`Tail`]).
    lead: Lead,
    /// What the current block's last rendered line is.
    tail: Tail,
    /// The current block's last source line.
    last_line: String,
    /// Columns tables are laid out for.
    width: usize,
    kind: Block,
    committed_in_block: usize,
    held: Vec<Line<'static>>,
    partial: String,
    gap_pending: bool,
    started: bool,
    received: String,
}

impl Default for MarkdownStream {
    fn default() -> Self {
        Self::new()
    }
}

impl MarkdownStream {
    /// An empty stream.
    pub fn new() -> Self {
        Self {
            block: String::new(),
            lead: Lead::None,
            tail: Tail::Other,
            last_line: String::new(),
            width: usize::MAX,
            kind: Block::Markdown,
            committed_in_block: 0,
            held: Vec::new(),
            partial: String::new(),
            gap_pending: false,
            started: false,
            received: String::new(),
        }
    }

    /// The stream with tables laid out for `width` columns.
    pub fn for_width(width: u16) -> Self {
        Self {
            width: usize::from(width),
            ..Self::new()
        }
    }

    /// Renders a whole text at once (same result as streaming it).
    pub fn render_all(text: &str) -> Vec<Line<'static>> {
        Self::render_all_for(text, u16::MAX)
    }

    /// Renders a whole text at once, tables laid out for `width` columns.
    pub fn render_all_for(text: &str, width: u16) -> Vec<Line<'static>> {
        let mut stream = Self::for_width(width);
        let mut lines = stream.push(text);
        lines.extend(stream.finish());
        lines
    }

    /// Everything pushed so far.
    pub fn received(&self) -> &str {
        &self.received
    }

    /// Adds a fragment; returns the lines that became final.
    pub fn push(&mut self, fragment: &str) -> Vec<Line<'static>> {
        self.received.push_str(fragment);
        let mut out = Vec::new();
        let mut rest = fragment;
        while let Some(pos) = rest.find('\n') {
            self.partial.push_str(&rest[..pos]);
            let line = std::mem::take(&mut self.partial);
            self.complete_line(&line, &mut out);
            rest = &rest[pos + 1..];
        }
        self.partial.push_str(rest);
        out
    }

    /// Ends the stream; returns every line not yet committed.
    pub fn finish(&mut self) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.complete_line(&line, &mut out);
        }
        if matches!(self.kind, Block::Markdown) {
            self.finish_block(&mut out);
        }
        out
    }

    /// What is not committed yet, for the live area: a held-back table and
    /// the incomplete last line.
    pub fn live_tail(&self) -> Vec<Line<'static>> {
        let mut out = self.held.clone();
        if !self.partial.is_empty() {
            let style = match self.kind {
                Block::Fence { .. } => Style::new().fg(Color::Cyan),
                Block::Markdown => Style::new(),
            };
            out.push(Line::from(Span::styled(self.partial.clone(), style)));
        }
        out
    }

    fn commit(&mut self, lines: Vec<Line<'static>>, out: &mut Vec<Line<'static>>) {
        if lines.is_empty() {
            return;
        }
        if self.gap_pending && self.started {
            out.push(Line::default());
        }
        self.gap_pending = false;
        self.started = true;
        out.extend(lines);
    }

    fn complete_line(&mut self, line: &str, out: &mut Vec<Line<'static>>) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Block::Fence { marker, code } = &mut self.kind {
            if is_fence_close(line, marker) {
                self.kind = Block::Markdown;
                self.gap_pending = true;
            } else {
                let rendered = code.line(line);
                self.commit(vec![rendered], out);
            }
            return;
        }
        if line.trim().is_empty() {
            self.finish_block(out);
            return;
        }
        if let Some((marker, lang)) = fence_open(line) {
            self.finish_block(out);
            self.gap_pending = self.started;
            self.kind = Block::Fence {
                marker,
                code: Box::new(CodeHighlighter::new(&lang)),
            };
            return;
        }
        if let Some(lead) = self.fresh_start(line) {
            // The line renders alone as it would in context: start a new
            // block with it, so each line costs its own length — never a
            // re-render of everything since the last blank line.
            self.block.clear();
            self.committed_in_block = 0;
            self.lead = lead;
        }
        self.block.push_str(line);
        self.block.push('\n');
        self.last_line.clear();
        self.last_line.push_str(line);
        let mut rendered = render_block_for(&self.block, self.lead, self.width);
        self.tail = rendered.tail;
        if line.trim_start().starts_with('|') {
            // A lone `| a | b |` row renders as text until the delimiter
            // row below turns it into a table header.
            rendered.stable_until = rendered
                .stable_until
                .min(rendered.lines.len().saturating_sub(1));
        }
        let stable: Vec<Line<'static>> = rendered
            .lines
            .get(self.committed_in_block..rendered.stable_until)
            .map(<[Line<'static>]>::to_vec)
            .unwrap_or_default();
        self.committed_in_block = self.committed_in_block.max(rendered.stable_until);
        self.held = rendered
            .lines
            .get(self.committed_in_block..)
            .map(<[Line<'static>]>::to_vec)
            .unwrap_or_default();
        self.commit(stable, out);
    }

    /// Whether `line` may start a block of its own after the current one,
    /// and what then separates the two.
    fn fresh_start(&self, line: &str) -> Option<Lead> {
        if self.block.is_empty() || !self.held.is_empty() {
            return None;
        }
        let first = line.chars().next()?;
        if first.is_whitespace() || first == '|' {
            return None;
        }
        match self.tail {
            Tail::Heading => Some(Lead::Gap),
            Tail::Paragraph if !is_setext_underline(line) => Some(Lead::GapUnlessParagraph),
            Tail::ListItem if same_list_marker(&self.last_line, line) => Some(Lead::None),
            _ => None,
        }
    }

    fn finish_block(&mut self, out: &mut Vec<Line<'static>>) {
        if self.block.is_empty() {
            return;
        }
        let rendered = render_block_for(&self.block, self.lead, self.width);
        let rest: Vec<Line<'static>> = rendered
            .lines
            .get(self.committed_in_block..)
            .map(<[Line<'static>]>::to_vec)
            .unwrap_or_default();
        let produced = !rendered.lines.is_empty();
        self.commit(rest, out);
        self.block.clear();
        self.held.clear();
        self.committed_in_block = 0;
        self.lead = Lead::None;
        self.tail = Tail::Other;
        if produced {
            self.gap_pending = true;
        }
    }
}

/// `===` or `---` under a paragraph line turns it into a heading.
fn is_setext_underline(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && (t.chars().all(|c| c == '=') || t.chars().all(|c| c == '-'))
}

/// The list marker a line starts with: `-`, `*`, `+`, or `.`/`)` after digits.
fn list_marker(line: &str) -> Option<char> {
    let mut chars = line.chars();
    let first = chars.next()?;
    if matches!(first, '-' | '*' | '+') {
        return chars.next().filter(|c| *c == ' ').map(|_| first);
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let mut rest = line[digits..].chars();
    let delim = rest.next().filter(|c| matches!(c, '.' | ')'))?;
    rest.next().filter(|c| *c == ' ').map(|_| delim)
}

fn same_list_marker(previous: &str, line: &str) -> bool {
    list_marker(line).is_some_and(|m| list_marker(previous) == Some(m))
}

fn fence_open(line: &str) -> Option<(String, String)> {
    let indent = line.len() - line.trim_start().len();
    if indent > 3 {
        return None;
    }
    let trimmed = line.trim_start();
    let fence_char = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let count = trimmed.chars().take_while(|c| *c == fence_char).count();
    if count < 3 {
        return None;
    }
    let info = trimmed[count..].trim();
    if fence_char == '`' && info.contains('`') {
        return None;
    }
    Some((trimmed[..count].to_string(), info.to_string()))
}

fn is_fence_close(line: &str, marker: &str) -> bool {
    let trimmed = line.trim();
    let Some(c) = marker.chars().next() else {
        return false;
    };
    trimmed.len() >= marker.len() && trimmed.chars().all(|x| x == c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::wrap::plain;

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(plain).collect()
    }

    const SAMPLE: &str = "# Plan\nFirst **step** here.\nSecond line.\n\n- a\n- b\n\n```rust\nfn main() {}\n```\nAfter code.\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\nend";

    #[test]
    fn nothing_is_committed_before_its_line_is_complete() {
        let mut s = MarkdownStream::new();
        assert!(s.push("Hello wor").is_empty());
        assert_eq!(texts(&s.live_tail()), ["Hello wor"]);
        assert_eq!(texts(&s.push("ld\nnext")), ["Hello world"]);
        assert_eq!(texts(&s.finish()), ["next"]);
    }

    #[test]
    fn streamed_in_two_character_fragments_equals_one_shot() {
        let mut s = MarkdownStream::new();
        let mut streamed = Vec::new();
        let chars: Vec<char> = SAMPLE.chars().collect();
        for pair in chars.chunks(2) {
            streamed.extend(s.push(&pair.iter().collect::<String>()));
        }
        streamed.extend(s.finish());
        assert_eq!(texts(&streamed), texts(&MarkdownStream::render_all(SAMPLE)));
        assert_eq!(
            texts(&streamed),
            [
                "Plan",
                "",
                "First step here.",
                "Second line.",
                "",
                "- a",
                "- b",
                "",
                "fn main() {}",
                "",
                "After code.",
                "",
                "x │ y",
                "──┼──",
                "1 │ 2",
                "",
                "end"
            ]
        );
    }

    #[test]
    fn a_long_paragraph_or_list_is_rendered_one_line_at_a_time_regression_quadratic() {
        let mut s = MarkdownStream::new();
        let mut out = Vec::new();
        for i in 0..5_000 {
            out.extend(s.push(&format!("line {i} with *some* text\n")));
            assert!(
                s.block.len() < 64,
                "the block grew to {} bytes",
                s.block.len()
            );
        }
        for i in 0..5_000 {
            out.extend(s.push(&format!("- item {i}\n")));
            assert!(
                s.block.len() < 64,
                "the block grew to {} bytes",
                s.block.len()
            );
        }
        out.extend(s.finish());
        let text = texts(&out);
        assert_eq!(
            text.len(),
            10_001,
            "one line each and one gap before the list"
        );
        assert_eq!(text[4_999], "line 4999 with some text");
        assert_eq!(text[5_000], "");
        assert_eq!(text[5_001], "- item 0");
    }

    #[test]
    fn lines_rendered_alone_match_their_rendering_in_context() {
        let cases = [
            "# Title\nbody text\n",
            "para one\n- item\n- item two\n",
            "para\n> quoted\n",
            "1. first\n2. second\n",
            "- a\n  - nested\n- b\n",
            "- a\n* other list\n",
            "text\n    indented continuation\n",
        ];
        for md in cases {
            let streamed = texts(&MarkdownStream::render_all(md));
            let whole = texts(&crate::tui::markdown::render_block(md).lines);
            assert_eq!(streamed, whole, "{md:?}");
        }
    }

    #[test]
    fn tables_are_held_back_until_their_block_ends() {
        let mut s = MarkdownStream::new();
        assert!(s.push("| a | b |\n|---|---|\n| 1 | 2 |\n").is_empty());
        assert_eq!(s.live_tail().len(), 3);
        assert_eq!(s.push("\n").len(), 3);
    }
}
