//! Syntax highlighting of fenced code with syntect.
//!
//! The syntax and theme sets are loaded once, on first use (or by
//! [`warm_up`] on a background thread after the first frame), so start-up
//! never pays for them.

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme, ThemeSet};
use syntect::parsing::SyntaxSet;

struct Assets {
    syntaxes: SyntaxSet,
    theme: Theme,
}

static ASSETS: OnceLock<Option<Assets>> = OnceLock::new();

fn assets() -> Option<&'static Assets> {
    ASSETS
        .get_or_init(|| {
            let syntaxes = SyntaxSet::load_defaults_newlines();
            let mut themes = ThemeSet::load_defaults();
            let theme = themes.themes.remove("base16-ocean.dark")?;
            Some(Assets { syntaxes, theme })
        })
        .as_ref()
}

/// Loads the syntax and theme sets now (call from a background thread).
pub fn warm_up() {
    let _ = assets();
}

/// Highlights one code block line by line, keeping the parser state between
/// lines so multi-line constructs colour correctly.
pub struct CodeHighlighter {
    inner: Option<HighlightLines<'static>>,
}

impl CodeHighlighter {
    /// A highlighter for `lang` (a fence info token such as `rust` or `py`);
    /// unknown or empty languages render plain.
    pub fn new(lang: &str) -> Self {
        let lang = lang.split([',', ' ']).next().unwrap_or("").trim();
        let inner = if lang.is_empty() {
            None
        } else {
            assets().and_then(|a| {
                a.syntaxes
                    .find_syntax_by_token(lang)
                    .map(|syntax| HighlightLines::new(syntax, &a.theme))
            })
        };
        Self { inner }
    }

    /// Highlights the next line of the block (without its line ending).
    pub fn line(&mut self, text: &str) -> Line<'static> {
        let (Some(inner), Some(a)) = (self.inner.as_mut(), assets()) else {
            return Line::from(Span::styled(text.to_string(), plain_code_style()));
        };
        let with_newline = format!("{text}\n");
        match inner.highlight_line(&with_newline, &a.syntaxes) {
            Ok(regions) => Line::from(
                regions
                    .into_iter()
                    .map(|(style, piece)| {
                        Span::styled(piece.trim_end_matches('\n').to_string(), convert(style))
                    })
                    .filter(|span| !span.content.is_empty())
                    .collect::<Vec<_>>(),
            ),
            Err(_) => Line::from(Span::styled(text.to_string(), plain_code_style())),
        }
    }
}

fn plain_code_style() -> Style {
    Style::new().fg(Color::Cyan)
}

fn convert(style: syntect::highlighting::Style) -> Style {
    let fg = style.foreground;
    let mut out = Style::new().fg(Color::Rgb(fg.r, fg.g, fg.b));
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::wrap::plain;

    #[test]
    fn known_languages_get_colour_and_keep_their_text() {
        let mut h = CodeHighlighter::new("rust");
        let line = h.line("fn main() { let x = 1; }");
        assert_eq!(plain(&line), "fn main() { let x = 1; }");
        assert!(line.spans.len() > 1, "{line:?}");
    }

    #[test]
    fn unknown_languages_render_plain() {
        let mut h = CodeHighlighter::new("no-such-language");
        assert_eq!(h.line("x = 1").spans.len(), 1);
    }
}
