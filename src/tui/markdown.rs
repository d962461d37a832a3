//! Markdown to styled terminal lines (pulldown-cmark).
//!
//! [`render_block`] turns one markdown block (text between blank lines, or
//! more) into logical lines: headings keep their `#` marks and are bold,
//! emphasis, inline code, links (with the URL after the text), lists, block
//! quotes, rules, tables laid out in columns, and fenced code highlighted by
//! [`crate::tui::highlight`]. Soft breaks are kept as line breaks so that a
//! line, once complete, always renders the same way — the property the
//! streaming committer relies on.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::highlight::CodeHighlighter;
use super::table::{self, Table};
use super::wrap::display_width;

/// The lines of a rendered block and how many of them are final.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedBlock {
    /// Logical (unwrapped) lines.
    pub lines: Vec<Line<'static>>,
    /// Lines from this index on may still change when more text arrives
    /// (a trailing table, whose column widths depend on rows to come).
    pub stable_until: usize,
    /// What the last line is, which says whether the text after it may be
    /// rendered on its own (see [`Tail`]).
    pub tail: Tail,
}

/// What the last line of a rendered block is. After a top-level paragraph
/// line, a heading or a one-line top-level list item, the next unindented
/// line renders the same alone as in context (given the right [`Lead`]),
/// which is what lets a streamed answer be rendered line by line instead of
/// re-rendering a growing block on every line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tail {
    /// A line of a top-level paragraph.
    Paragraph,
    /// A heading.
    Heading,
    /// The only line of a top-level list item.
    ListItem,
    /// Anything else (nested lists, quotes, tables, code, nothing).
    #[default]
    Other,
}

/// What separates a block rendered on its own from the text before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lead {
    /// Nothing (the block continues a list, or starts the text).
    #[default]
    None,
    /// A blank line before its first block (it follows a heading).
    Gap,
    /// A blank line unless it starts with a paragraph (it follows a
    /// paragraph line, which a new paragraph line simply continues).
    GapUnlessParagraph,
}

/// Renders markdown text into logical lines.
pub fn render_block(text: &str) -> RenderedBlock {
    render_block_for(text, Lead::None, usize::MAX)
}

/// Renders markdown text that follows other, already rendered text, for
/// `width` columns (only tables depend on the width; other lines are
/// wrapped later).
pub fn render_block_for(text: &str, lead: Lead, width: usize) -> RenderedBlock {
    let mut r = Renderer {
        lead,
        width,
        ..Renderer::default()
    };
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for event in Parser::new_ext(text, options) {
        r.event(event);
    }
    r.flush();
    let stable_until = r.trailing_table.unwrap_or(r.lines.len());
    RenderedBlock {
        lines: r.lines,
        stable_until,
        tail: r.tail,
    }
}

#[derive(Default)]
struct TableBuild {
    table: Table,
    in_head: bool,
}

#[derive(Default)]
struct Renderer {
    lines: Vec<Line<'static>>,
    spans: Vec<Span<'static>>,
    styles: Vec<Style>,
    lists: Vec<Option<u64>>,
    item_widths: Vec<usize>,
    marker: Option<String>,
    quote: usize,
    gap: bool,
    link: Option<String>,
    link_text: String,
    code: Option<CodeHighlighter>,
    table: Option<TableBuild>,
    trailing_table: Option<usize>,
    lead: Lead,
    heading: bool,
    tail: Tail,
    width: usize,
}

impl Renderer {
    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, patch: Style) {
        let next = self.style().patch(patch);
        self.styles.push(next);
    }

    /// Columns the quote and list prefixes take.
    fn prefix_width(&self) -> usize {
        self.quote * 2 + self.item_widths.iter().sum::<usize>()
    }

    fn top_level(&self) -> bool {
        self.lists.is_empty() && self.quote == 0
    }

    fn prefix(&mut self) -> Vec<Span<'static>> {
        let mut out = Vec::new();
        if self.quote > 0 {
            out.push(Span::styled(
                "▌ ".repeat(self.quote),
                Style::new().fg(Color::Green),
            ));
        }
        if !self.item_widths.is_empty() {
            let outer: usize = self.item_widths[..self.item_widths.len() - 1].iter().sum();
            let own = self.item_widths.last().copied().unwrap_or(0);
            match self.marker.take() {
                Some(marker) => {
                    if outer > 0 {
                        out.push(Span::raw(" ".repeat(outer)));
                    }
                    out.push(Span::styled(marker, Style::new().fg(Color::Blue)));
                }
                None => out.push(Span::raw(" ".repeat(outer + own))),
            }
        }
        out
    }

    fn open_block(&mut self) {
        self.open(false);
    }

    fn open(&mut self, paragraph: bool) {
        let lead = self.lines.is_empty()
            && match self.lead {
                Lead::None => false,
                Lead::Gap => true,
                Lead::GapUnlessParagraph => !paragraph,
            };
        if (self.gap && !self.lines.is_empty()) || lead {
            self.emit(Line::default());
        }
        self.lead = Lead::None;
        self.gap = false;
    }

    fn close_block(&mut self) {
        self.flush();
        if self.top_level() {
            self.gap = true;
        }
    }

    fn emit(&mut self, line: Line<'static>) {
        self.trailing_table = None;
        self.tail = Tail::Other;
        self.lines.push(line);
    }

    fn flush(&mut self) {
        if self.spans.is_empty() && self.marker.is_none() {
            return;
        }
        let first_of_item = self.marker.is_some();
        let tail = if self.table.is_some() || self.code.is_some() || self.quote > 0 {
            Tail::Other
        } else if self.heading {
            Tail::Heading
        } else if self.lists.is_empty() {
            Tail::Paragraph
        } else if self.lists.len() == 1 && first_of_item {
            Tail::ListItem
        } else {
            Tail::Other
        };
        let mut spans = self.prefix();
        spans.append(&mut self.spans);
        self.emit(Line::from(spans));
        self.tail = tail;
    }

    fn text(&mut self, text: &str) {
        if let Some(table) = self.table.as_mut() {
            if let Some(cell) = table.table.rows.last_mut().and_then(|r| r.last_mut()) {
                cell.push_str(text);
            }
            return;
        }
        if self.link.is_some() {
            self.link_text.push_str(text);
        }
        if let Some(code) = self.code.as_mut() {
            let highlighted: Vec<Line<'static>> = text.lines().map(|l| code.line(l)).collect();
            for line in highlighted {
                let mut spans = self.prefix();
                spans.extend(line.spans);
                self.emit(Line::from(spans));
            }
            return;
        }
        let style = self.style();
        for (i, piece) in text.split('\n').enumerate() {
            if i > 0 {
                self.flush();
            }
            if !piece.is_empty() {
                self.spans.push(Span::styled(piece.to_string(), style));
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                if self.table.is_some() {
                    self.text(&t);
                } else {
                    let style = self.style().patch(Style::new().fg(Color::Cyan));
                    self.spans.push(Span::styled(t.to_string(), style));
                }
            }
            Event::Html(t)
            | Event::InlineHtml(t)
            | Event::InlineMath(t)
            | Event::DisplayMath(t) => self.text(&t),
            Event::SoftBreak | Event::HardBreak => {
                if self.table.is_none() {
                    self.flush();
                }
            }
            Event::Rule => {
                self.open_block();
                let mut spans = self.prefix();
                spans.push(Span::styled(
                    "────────────",
                    Style::new().fg(Color::DarkGray),
                ));
                self.emit(Line::from(spans));
                self.close_block();
            }
            Event::TaskListMarker(done) => {
                self.spans
                    .push(Span::raw(if done { "[x] " } else { "[ ] " }));
            }
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]")),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph if self.lists.is_empty() => self.open(true),
            Tag::Heading { level, .. } => {
                self.open_block();
                self.heading = true;
                let style = match level {
                    HeadingLevel::H1 => Style::new()
                        .fg(Color::Magenta)
                        .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                    HeadingLevel::H2 => {
                        Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD)
                    }
                    HeadingLevel::H3 => Style::new().add_modifier(Modifier::BOLD),
                    _ => Style::new().add_modifier(Modifier::BOLD | Modifier::ITALIC),
                };
                // The level shows in the style, not in `#` marks: a person
                // reads a heading, not markdown source.
                self.push_style(style);
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.open_block();
                self.quote += 1;
                self.push_style(Style::new().fg(Color::Green));
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                self.open_block();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(CodeHighlighter::new(&lang));
            }
            Tag::List(start) => {
                self.flush();
                if self.lists.is_empty() {
                    self.open_block();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "- ".to_string(),
                };
                self.item_widths.push(display_width(&marker));
                self.marker = Some(marker);
            }
            Tag::Emphasis => self.push_style(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.push_style(
                    Style::new()
                        .fg(Color::Blue)
                        .add_modifier(Modifier::UNDERLINED),
                );
                self.link = Some(dest_url.to_string());
                self.link_text.clear();
            }
            Tag::Image { dest_url, .. } => {
                self.spans.push(Span::raw(format!("[image {dest_url}] ")));
            }
            Tag::Table(_) => {
                self.flush();
                self.open_block();
                self.table = Some(TableBuild::default());
            }
            Tag::TableHead => {
                if let Some(t) = self.table.as_mut() {
                    t.in_head = true;
                    t.table.rows.push(Vec::new());
                }
            }
            Tag::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    t.table.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                if let Some(row) = self.table.as_mut().and_then(|t| t.table.rows.last_mut()) {
                    row.push(String::new());
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                if self.top_level() {
                    self.gap = true;
                }
            }
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.close_block();
                self.heading = false;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.styles.pop();
                self.quote = self.quote.saturating_sub(1);
                if self.top_level() {
                    self.gap = true;
                }
            }
            TagEnd::CodeBlock => {
                self.code = None;
                self.close_block();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.top_level() {
                    self.gap = true;
                }
            }
            TagEnd::Item => {
                self.flush();
                self.item_widths.pop();
                self.marker = None;
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                if let Some(url) = self.link.take()
                    && url != self.link_text
                    && !url.is_empty()
                {
                    self.spans.push(Span::styled(
                        format!(" ({url})"),
                        Style::new().fg(Color::DarkGray),
                    ));
                }
            }
            TagEnd::TableHead => {
                if let Some(t) = self.table.as_mut() {
                    t.in_head = false;
                    t.table.head_rows = t.table.rows.len();
                }
            }
            TagEnd::Table => {
                if let Some(build) = self.table.take() {
                    let start = self.lines.len();
                    let room = self.width.saturating_sub(self.prefix_width());
                    for line in table::layout(&build.table, room) {
                        let mut spans = self.prefix();
                        spans.extend(line.spans);
                        self.lines.push(Line::from(spans));
                    }
                    self.trailing_table = Some(start);
                    self.tail = Tail::Other;
                }
                if self.top_level() {
                    self.gap = true;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::wrap::plain;

    fn texts(md: &str) -> Vec<String> {
        render_block(md).lines.iter().map(plain).collect()
    }

    #[test]
    fn headings_paragraphs_and_lists_render_as_lines() {
        let out = texts("# Title\nsome *text*\n\n- one\n- two\n  - nested\n1. first\n");
        assert_eq!(
            out,
            [
                "Title",
                "",
                "some text",
                "",
                "- one",
                "- two",
                "  - nested",
                "",
                "1. first"
            ]
        );
    }

    #[test]
    fn soft_breaks_stay_line_breaks() {
        assert_eq!(texts("a\nb\n"), ["a", "b"]);
    }

    #[test]
    fn links_show_their_target() {
        assert_eq!(
            texts("see [docs](https://x.y)\n"),
            ["see docs (https://x.y)"]
        );
    }

    #[test]
    fn tables_align_columns_and_stay_unstable_at_the_end() {
        let block = render_block("| a | bb |\n|---|---|\n| ccc | d |\n");
        let out: Vec<String> = block.lines.iter().map(plain).collect();
        assert_eq!(out, ["a   │ bb", "────┼───", "ccc │ d "]);
        assert_eq!(block.stable_until, 0);
    }

    #[test]
    fn quotes_and_code_get_prefixes_and_keep_text() {
        assert_eq!(texts("> quoted\n"), ["▌ quoted"]);
        assert_eq!(texts("```rust\nlet a = 1;\n```\n"), ["let a = 1;"]);
    }
}
