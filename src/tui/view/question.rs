//! The overlay of `ask_user`: one question at a time, its options numbered.
//! A digit picks an option, typed text + Enter answers freely, Enter on
//! nothing leaves the question open, Esc answers nothing at all.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use crate::protocol::{OpId, Question};

/// Questions waiting for the user, and the answers given so far.
#[derive(Debug, Clone)]
pub struct QuestionView {
    /// The request's id (the answer's submission id).
    pub id: OpId,
    questions: Vec<Question>,
    answers: Vec<String>,
    typed: String,
}

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answered {
    /// More to answer.
    Open,
    /// Every question answered ("" for one left open).
    Done(Vec<String>),
    /// Esc: no answer.
    Declined,
}

impl QuestionView {
    /// The overlay of request `id`.
    pub fn new(id: OpId, questions: Vec<Question>) -> Self {
        Self {
            id,
            questions,
            answers: Vec::new(),
            typed: String::new(),
        }
    }

    fn current(&self) -> Option<&Question> {
        self.questions.get(self.answers.len())
    }

    /// Applies one key.
    pub fn key(&mut self, key: KeyEvent) -> Answered {
        let Some(question) = self.current() else {
            return Answered::Done(self.answers.clone());
        };
        let answer = match key.code {
            KeyCode::Esc => return Answered::Declined,
            KeyCode::Char(c)
                if self.typed.is_empty()
                    && !key.modifiers.contains(KeyModifiers::CONTROL)
                    && c.to_digit(10)
                        .is_some_and(|d| d >= 1 && (d as usize) <= question.options.len()) =>
            {
                let at = c.to_digit(10).map_or(0, |d| d as usize - 1);
                question.options[at].clone()
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.typed.push(c);
                return Answered::Open;
            }
            KeyCode::Backspace => {
                self.typed.pop();
                return Answered::Open;
            }
            KeyCode::Enter => std::mem::take(&mut self.typed).trim().to_string(),
            _ => return Answered::Open,
        };
        self.answers.push(answer);
        self.typed.clear();
        if self.answers.len() == self.questions.len() {
            Answered::Done(self.answers.clone())
        } else {
            Answered::Open
        }
    }

    /// Draws the current question into `area`.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let Some(question) = self.current() else {
            return;
        };
        let dim = Style::new().fg(Color::DarkGray);
        let mut lines = vec![Line::styled(
            format!(
                "The agent asks ({}/{}):",
                self.answers.len() + 1,
                self.questions.len()
            ),
            Style::new().fg(Color::Cyan),
        )];
        lines.push(Line::from(question.question.trim().to_string()));
        for (n, option) in question.options.iter().enumerate() {
            lines.push(Line::from(format!("  {}. {}", n + 1, option.trim())));
        }
        lines.push(Line::from(format!("› {}", self.typed)));
        let keys = match question.options.len() {
            0 => "type an answer + Enter · Esc: no answer".to_string(),
            n => format!("1-{n} pick · or type an answer + Enter · Esc: no answer"),
        };
        lines.push(Line::styled(keys, dim));
        // The newest lines (the prompt and the keys) stay when room is short.
        let height = usize::from(area.height);
        let skip = lines.len().saturating_sub(height);
        Paragraph::new(lines.split_off(skip.min(lines.len())))
            .wrap(Wrap { trim: false })
            .render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str, options: &[&str]) -> Question {
        Question {
            question: text.into(),
            options: options.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn press(view: &mut QuestionView, code: KeyCode) -> Answered {
        view.key(KeyEvent::from(code))
    }

    #[test]
    fn a_digit_picks_typed_text_answers_and_esc_declines() {
        let mut view = QuestionView::new(
            OpId::new("question-1"),
            vec![q("Which?", &["red", "blue"]), q("Why?", &[])],
        );
        assert_eq!(press(&mut view, KeyCode::Char('2')), Answered::Open);
        for c in "taste3".chars() {
            press(&mut view, KeyCode::Char(c));
        }
        assert_eq!(
            press(&mut view, KeyCode::Enter),
            Answered::Done(vec!["blue".into(), "taste3".into()])
        );
        let mut view = QuestionView::new(OpId::new("q"), vec![q("Which?", &["red"])]);
        press(&mut view, KeyCode::Char('9'));
        assert_eq!(press(&mut view, KeyCode::Esc), Answered::Declined);
    }
}
