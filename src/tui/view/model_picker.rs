//! The model picker opened by `/model` without a name: type to filter,
//! Up/Down to choose, Enter to switch, Esc to close.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::notice::truncate;
use crate::tui::bridge::ModelChoice;

const VISIBLE_ROWS: usize = 8;

/// Picker state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModelPicker {
    /// Every model offered.
    pub rows: Vec<ModelChoice>,
    /// The model in use (marked).
    pub current: String,
    /// Typed filter (matches model or provider, case-insensitively).
    pub filter: String,
    /// Index into the filtered rows.
    pub selected: usize,
}

impl ModelPicker {
    /// A picker over `rows`, the model in use selected.
    pub fn new(rows: Vec<ModelChoice>, current: &str) -> Self {
        let selected = rows.iter().position(|r| r.model == current).unwrap_or(0);
        Self {
            rows,
            current: current.to_string(),
            filter: String::new(),
            selected,
        }
    }

    /// The rows that match the filter.
    pub fn filtered(&self) -> Vec<&ModelChoice> {
        let needle = self.filter.to_lowercase();
        self.rows
            .iter()
            .filter(|r| {
                needle.is_empty()
                    || r.model.to_lowercase().contains(&needle)
                    || r.provider.to_lowercase().contains(&needle)
            })
            .collect()
    }

    /// The row Enter would pick.
    pub fn chosen(&self) -> Option<&ModelChoice> {
        self.filtered().get(self.selected).copied()
    }

    /// Moves the selection by `delta`, staying within the filtered rows.
    pub fn step(&mut self, delta: isize) {
        let len = self.filtered().len();
        if len == 0 {
            self.selected = 0;
            return;
        }
        self.selected = (self.selected as isize + delta).clamp(0, len as isize - 1) as usize;
    }

    /// Adds a character to the filter.
    pub fn type_char(&mut self, c: char) {
        self.filter.push(c);
        self.selected = 0;
    }

    /// Removes the last filter character.
    pub fn backspace(&mut self) {
        self.filter.pop();
        self.selected = 0;
    }

    /// The picker's lines: a filter line, then a window of rows.
    pub fn lines(&self, width: u16) -> Vec<Line<'static>> {
        let dim = Style::new().fg(Color::DarkGray);
        let mut out = vec![Line::from(vec![
            Span::styled(
                "model › ",
                Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            ),
            Span::raw(self.filter.clone()),
            Span::styled("  (type to filter · Enter switch · Esc close)", dim),
        ])];
        let rows = self.filtered();
        if rows.is_empty() {
            out.push(Line::from(Span::styled("  no models match", dim)));
            return out;
        }
        let first = self.selected.saturating_sub(VISIBLE_ROWS - 1);
        let model_width = rows
            .iter()
            .map(|r| r.model.chars().count())
            .max()
            .unwrap_or(0)
            .min((width as usize / 2).max(8));
        for (i, row) in rows.iter().enumerate().skip(first).take(VISIBLE_ROWS) {
            let style = if i == self.selected {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                Style::new()
            };
            let mark = if row.model == self.current {
                " (current)"
            } else {
                ""
            };
            let model = truncate(&row.model, model_width);
            let pad = model_width.saturating_sub(model.chars().count());
            out.push(Line::from(vec![
                Span::styled(if i == self.selected { "› " } else { "  " }, style),
                Span::styled(model, style),
                Span::styled(format!("{}  {}{mark}", " ".repeat(pad), row.provider), dim),
            ]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(provider: &str, model: &str) -> ModelChoice {
        ModelChoice {
            provider: provider.into(),
            model: model.into(),
        }
    }

    #[test]
    fn opens_on_the_current_model_and_filters_by_provider_too() {
        let mut p = ModelPicker::new(
            vec![
                choice("openai", "gpt-5"),
                choice("anthropic", "claude-sonnet"),
                choice("ollama", "qwen3"),
            ],
            "claude-sonnet",
        );
        assert_eq!(p.chosen().map(|c| c.model.as_str()), Some("claude-sonnet"));
        for c in "olla".chars() {
            p.type_char(c);
        }
        assert_eq!(p.chosen().map(|c| c.model.as_str()), Some("qwen3"));
    }
}
