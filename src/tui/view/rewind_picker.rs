//! The rewind list opened by Esc Esc on an empty composer (or `/rewind`):
//! the session's prompts, newest first, each with its age and the files
//! its turn changed; Enter on one offers what to go back to before it.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::filter_list::{FilterList, Filterable, row_style};
use super::format_age;
use super::notice::truncate;
use crate::protocol::{Op, PromptRow};

/// What can be done with a chosen prompt, in the order offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewindChoice {
    /// Conversation and code back to before the prompt.
    Both,
    /// Only the conversation (the files stay as they are).
    Conversation,
    /// Only the code (the conversation goes on).
    Code,
    /// A new session with the turns before the prompt.
    Fork,
}

impl RewindChoice {
    /// Every choice, in the order offered (digits 1–4 pick them).
    pub const ALL: [RewindChoice; 4] = [Self::Both, Self::Conversation, Self::Code, Self::Fork];

    /// The choice's line.
    pub fn label(self) -> &'static str {
        match self {
            Self::Both => "rewind the conversation and restore the code",
            Self::Conversation => "rewind the conversation only",
            Self::Code => "restore the code only",
            Self::Fork => "fork: a new session with the turns before this prompt",
        }
    }

    /// The op that carries it out for the prompt of `turn`.
    pub fn op(self, turn: u64) -> Op {
        match self {
            Self::Both | Self::Conversation | Self::Code => Op::Rewind {
                to_turn: turn,
                conversation: self != Self::Code,
                code: self != Self::Conversation,
            },
            Self::Fork => Op::Fork {
                before_turn: Some(turn),
            },
        }
    }
}

/// The list, and the prompt being decided about once one is chosen.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RewindPicker {
    /// The prompts (the filter matches their text and files).
    pub list: FilterList<PromptRow>,
    /// The chosen prompt and the selected [`RewindChoice`], once Enter
    /// picked one.
    pub chosen: Option<(PromptRow, usize)>,
}

impl Filterable for PromptRow {
    fn matches(&self, needle: &str) -> bool {
        self.text.to_lowercase().contains(needle)
            || self.files.iter().any(|f| f.to_lowercase().contains(needle))
    }
}

impl RewindPicker {
    /// A list over `prompts` (newest first), the newest selected.
    pub fn new(prompts: Vec<PromptRow>) -> Self {
        Self {
            list: FilterList::new(prompts, 0),
            chosen: None,
        }
    }

    /// Enter: on the list, choose the selected prompt; on the choices, the
    /// op of the selected one (the picker then closes).
    pub fn enter(&mut self) -> Option<Op> {
        match &self.chosen {
            Some((row, selected)) => RewindChoice::ALL
                .get(*selected)
                .map(|choice| choice.op(row.turn)),
            None => {
                self.chosen = self.list.chosen().cloned().map(|row| (row, 0));
                None
            }
        }
    }

    /// Up/Down.
    pub fn step(&mut self, delta: isize) {
        match &mut self.chosen {
            Some((_, selected)) => {
                let last = RewindChoice::ALL.len() as isize - 1;
                *selected = (*selected as isize + delta).clamp(0, last) as usize;
            }
            None => self.list.step(delta),
        }
    }

    /// A typed character: narrows the list, or (on the choices) a digit
    /// picks a choice and returns its op.
    pub fn type_char(&mut self, c: char) -> Option<Op> {
        match &self.chosen {
            Some((row, _)) => {
                let index = c.to_digit(10)?.checked_sub(1)? as usize;
                RewindChoice::ALL
                    .get(index)
                    .map(|choice| choice.op(row.turn))
            }
            None => {
                self.list.type_char(c);
                None
            }
        }
    }

    /// Backspace: narrows less, or goes back from the choices to the list.
    pub fn backspace(&mut self) {
        if self.chosen.take().is_none() {
            self.list.backspace();
        }
    }

    /// The picker's lines.
    pub fn lines(&self, now_ms: u64, width: u16) -> Vec<Line<'static>> {
        let dim = Style::new().fg(Color::DarkGray);
        let title = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
        let w = width as usize;
        if let Some((row, selected)) = &self.chosen {
            let mut out = vec![Line::from(vec![
                Span::styled("rewind › ", title),
                Span::raw(truncate(
                    &format!("before turn {}: {}", row.turn, first_line(&row.text)),
                    w.saturating_sub(10).max(8),
                )),
            ])];
            out.push(Line::from(Span::styled(
                truncate(&format!("  {}", files_text(&row.files)), w),
                dim,
            )));
            for (i, choice) in RewindChoice::ALL.iter().enumerate() {
                let (marker, style) = row_style(i == *selected);
                out.push(Line::from(vec![
                    marker,
                    Span::styled(format!("{} {}", i + 1, choice.label()), style),
                ]));
            }
            out.push(Line::from(Span::styled(
                "  (Enter or 1–4 choose · Backspace back · Esc close; the log keeps every turn)",
                dim,
            )));
            return out;
        }
        let mut out = vec![Line::from(vec![
            Span::styled("rewind › ", title),
            Span::raw(self.list.filter.clone()),
            Span::styled("  (type to filter · Enter choose · Esc close)", dim),
        ])];
        if self.list.filtered().is_empty() {
            out.push(Line::from(Span::styled("  no prompts match", dim)));
            return out;
        }
        for (selected, row) in self.list.visible() {
            let meta = format!(
                "  {} · {}",
                format_age(row.at, now_ms),
                files_text(&row.files)
            );
            let meta = truncate(&meta, (w / 2).max(12));
            let text_room = w.saturating_sub(meta.chars().count() + 2).max(8);
            let (marker, style) = row_style(selected);
            out.push(Line::from(vec![
                marker,
                Span::styled(truncate(first_line(&row.text), text_room), style),
                Span::styled(meta, dim),
            ]));
        }
        out
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// "no files changed", or the files' names.
fn files_text(files: &[String]) -> String {
    match files {
        [] => "no files changed".to_string(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} +{} files", rest.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(turn: u64, text: &str) -> PromptRow {
        PromptRow {
            turn,
            text: text.into(),
            at: 0,
            files: Vec::new(),
        }
    }

    #[test]
    fn enter_chooses_a_prompt_then_a_choice_gives_its_op() {
        let mut p = RewindPicker::new(vec![row(3, "third"), row(2, "second"), row(1, "first")]);
        p.step(1);
        assert_eq!(p.enter(), None);
        assert_eq!(p.chosen.as_ref().map(|(r, _)| r.turn), Some(2));
        p.step(1);
        assert_eq!(
            p.enter(),
            Some(Op::Rewind {
                to_turn: 2,
                conversation: true,
                code: false
            })
        );
        assert_eq!(
            p.type_char('3'),
            Some(Op::Rewind {
                to_turn: 2,
                conversation: false,
                code: true
            })
        );
        assert_eq!(
            p.type_char('4'),
            Some(Op::Fork {
                before_turn: Some(2)
            })
        );
        assert_eq!(p.type_char('9'), None);
        p.backspace();
        assert!(p.chosen.is_none());
    }
}
