//! The model picker opened by `/model` without a name: type to filter,
//! Up/Down to choose, Enter to switch, Esc to close.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::filter_list::{FilterList, Filterable, row_style};
use super::notice::truncate;
use crate::protocol::ModelChoice;

/// Picker state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModelPicker {
    /// Every model offered (the filter matches model or provider), and the
    /// selection.
    pub list: FilterList<ModelChoice>,
    /// The model in use (marked).
    pub current: String,
}

impl Filterable for ModelChoice {
    fn matches(&self, needle: &str) -> bool {
        self.model.to_lowercase().contains(needle) || self.provider.to_lowercase().contains(needle)
    }
}

impl ModelPicker {
    /// A picker over `rows`, the model in use selected.
    pub fn new(rows: Vec<ModelChoice>, current: &str) -> Self {
        let selected = rows.iter().position(|r| r.model == current).unwrap_or(0);
        Self {
            list: FilterList::new(rows, selected),
            current: current.to_string(),
        }
    }

    /// The picker's lines: a filter line, then a window of rows.
    pub fn lines(&self, width: u16) -> Vec<Line<'static>> {
        let dim = Style::new().fg(Color::DarkGray);
        let mut out = vec![Line::from(vec![
            Span::styled(
                "model › ",
                Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            ),
            Span::raw(self.list.filter.clone()),
            Span::styled("  (type to filter · Enter switch · Esc close)", dim),
        ])];
        let rows = self.list.filtered();
        if rows.is_empty() {
            out.push(Line::from(Span::styled("  no models match", dim)));
            return out;
        }
        let model_width = rows
            .iter()
            .map(|r| r.model.chars().count())
            .max()
            .unwrap_or(0)
            .min((width as usize / 2).max(8));
        for (selected, row) in self.list.visible() {
            let (marker, style) = row_style(selected);
            let mark = if row.model == self.current {
                " (current)"
            } else {
                ""
            };
            let model = truncate(&row.model, model_width);
            let pad = model_width.saturating_sub(model.chars().count());
            out.push(Line::from(vec![
                marker,
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
        assert_eq!(
            p.list.chosen().map(|c| c.model.as_str()),
            Some("claude-sonnet")
        );
        for c in "olla".chars() {
            p.list.type_char(c);
        }
        assert_eq!(p.list.chosen().map(|c| c.model.as_str()), Some("qwen3"));
    }
}
