//! Key bindings: [`action`] says what a key press means before knowing
//! what is on screen; the `impl App` below decides what an action does in
//! the App's current state (popup open, agent running, composer empty).

use std::time::Duration;

use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::app::{App, Popup};
use super::transcript::TranscriptView;
use crate::protocol::{Op, PromptPart};

/// Time within which a second Ctrl+C quits.
const DOUBLE_PRESS: Duration = Duration::from_secs(1);

/// What a key press asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Enter: send the prompt (or run the command, or pick the row).
    Submit,
    /// Shift+Enter, Alt+Enter, Ctrl+J: line break in the composer.
    Newline,
    /// Esc: close a popup, else interrupt.
    Escape,
    /// Ctrl+C: interrupt, clear, or quit on a second press.
    CtrlC,
    /// Ctrl+D: quit when the composer is empty.
    CtrlD,
    /// Ctrl+T: open the transcript.
    Transcript,
    /// Ctrl+P: fold or unfold the pinned plan.
    TogglePlan,
    /// Up arrow.
    Up,
    /// Down arrow.
    Down,
    /// Tab: complete a slash command or a mention.
    Complete,
    /// Ctrl+V: attach the clipboard's image.
    PasteImage,
    /// Any other key: an edit for the composer (or the picker filter).
    Edit(KeyEvent),
    /// Key releases and other noise.
    Ignore,
}

/// Maps a key event to an action.
pub fn action(key: KeyEvent) -> Action {
    if key.kind == KeyEventKind::Release {
        return Action::Ignore;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    match key.code {
        KeyCode::Enter if shift || alt || ctrl => Action::Newline,
        KeyCode::Enter => Action::Submit,
        KeyCode::Char('j') if ctrl => Action::Newline,
        KeyCode::Char('c') if ctrl => Action::CtrlC,
        KeyCode::Char('d') if ctrl => Action::CtrlD,
        KeyCode::Char('t') if ctrl => Action::Transcript,
        KeyCode::Char('p') if ctrl => Action::TogglePlan,
        KeyCode::Char('v') if ctrl => Action::PasteImage,
        KeyCode::Esc => Action::Escape,
        KeyCode::Up if !ctrl && !alt => Action::Up,
        KeyCode::Down if !ctrl && !alt => Action::Down,
        KeyCode::Tab if !shift => Action::Complete,
        _ => Action::Edit(key),
    }
}

impl App {
    pub(crate) fn on_terminal(&mut self, event: TermEvent) {
        match event {
            TermEvent::Key(key) if key.kind != KeyEventKind::Release => {
                if let Some(overlay) = self.overlay.as_mut() {
                    if overlay.key(key) {
                        self.overlay = None;
                    }
                    return;
                }
                if self.approval_open() {
                    self.approval_key(key);
                    return;
                }
                // Ctrl+C still interrupts: the turn's end closes the question.
                if self.question.is_some() && action(key) != Action::CtrlC {
                    self.question_key(key);
                    return;
                }
                self.on_action(action(key));
            }
            TermEvent::Paste(text) => match &mut self.popup {
                Popup::Picker(picker) => text
                    .chars()
                    .filter(|c| !c.is_control())
                    .for_each(|c| picker.list.type_char(c)),
                Popup::Models(picker) => text
                    .chars()
                    .filter(|c| !c.is_control())
                    .for_each(|c| picker.list.type_char(c)),
                Popup::Rewind(picker) if picker.chosen.is_none() => {
                    text.chars().filter(|c| !c.is_control()).for_each(|c| {
                        picker.type_char(c);
                    })
                }
                Popup::Rewind(_) => {}
                Popup::None => {
                    self.paste_into_composer(&text);
                    self.slash_open = false;
                    self.follow_mention(false);
                }
            },
            TermEvent::Resize(width, height) => {
                self.width = width.max(10);
                self.height = height;
            }
            TermEvent::FocusGained => self.focused = true,
            TermEvent::FocusLost => self.focused = false,
            _ => {}
        }
    }

    pub(crate) fn on_action(&mut self, act: Action) {
        if !matches!(self.popup, Popup::None) {
            self.on_picker_action(act);
            return;
        }
        if self.mention.open && self.mention.matches.is_empty() {
            // Nothing to choose: Enter sends, Tab and Esc act as without it.
            self.close_picker();
        }
        if self.mention.open {
            match act {
                Action::Up => return self.mention_step(-1),
                Action::Down => return self.mention_step(1),
                Action::Submit | Action::Complete => return self.picker_choose(),
                Action::Escape => return self.close_picker(),
                _ => {}
            }
        }
        let slash = self.slash_matches();
        match act {
            Action::PasteImage => self.clipboard_wanted = true,
            Action::Submit => self.submit(),
            Action::Newline => self.composer.newline(),
            // A popup closes alone; the text stays.
            Action::Escape if !slash.is_empty() => self.slash_open = false,
            Action::Escape => {
                if self.is_busy() || self.user_command_running() {
                    self.push_op(Op::Interrupt);
                } else if self.composer.is_empty() {
                    self.escape_when_idle();
                }
            }
            Action::CtrlC => self.ctrl_c(),
            Action::CtrlD => {
                if self.composer.is_empty() {
                    self.quit = true;
                } else {
                    self.composer
                        .key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL));
                }
            }
            Action::Transcript => {
                self.overlay = Some(TranscriptView::open(&self.transcript, self.height));
            }
            Action::TogglePlan => self.plan_open = !self.plan_open,
            Action::Up if !slash.is_empty() => {
                self.slash_selected = self.slash_selected.saturating_sub(1);
            }
            Action::Down if !slash.is_empty() => {
                self.slash_selected = (self.slash_selected + 1).min(slash.len() - 1);
            }
            Action::Up => {
                if self.composer.is_empty()
                    && let Some(&id) = self.queued_ids.last()
                {
                    // The queued prompt comes back through a Withdrawn update.
                    self.push_op(Op::Withdraw { job: id });
                } else if !(self.composer.cursor_on_first_line() && self.composer.history_prev()) {
                    self.composer.key(KeyEvent::from(KeyCode::Up));
                }
                self.slash_open = false;
            }
            Action::Down => {
                if !(self.composer.cursor_on_last_line() && self.composer.history_next()) {
                    self.composer.key(KeyEvent::from(KeyCode::Down));
                }
                self.slash_open = false;
            }
            Action::Complete => {
                if let Some(cmd) = slash.get(self.slash_selected.min(slash.len().saturating_sub(1)))
                {
                    let text = if cmd.args().is_empty() {
                        format!("/{}", cmd.name())
                    } else {
                        format!("/{} ", cmd.name())
                    };
                    self.composer.set_text(&text);
                    self.slash_open = cmd.args().is_empty();
                }
            }
            Action::Edit(key) => {
                self.composer.key(key);
                self.slash_selected = 0;
                let text = self.composer.text();
                // The popup opens when `/` is typed into an empty composer,
                // never because a recalled entry starts with one.
                self.slash_open = text.starts_with('/')
                    && (self.slash_open || (text == "/" && key.code == KeyCode::Char('/')));
                self.follow_mention(key.code == KeyCode::Char('@'));
            }
            Action::Ignore => {}
        }
    }

    fn on_picker_action(&mut self, act: Action) {
        match act {
            Action::Escape | Action::CtrlC => self.popup = Popup::None,
            Action::Up => self.picker_step(-1),
            Action::Down => self.picker_step(1),
            Action::Submit if matches!(self.popup, Popup::Rewind(_)) => self.rewind_enter(),
            Action::Edit(key) if matches!(self.popup, Popup::Rewind(_)) => self.rewind_edit(key),
            Action::Submit => {
                let op = match &self.popup {
                    Popup::Picker(picker) => picker.list.chosen().map(|row| Op::Resume {
                        session: row.id.clone(),
                    }),
                    Popup::Models(picker) => picker
                        .list
                        .chosen()
                        .cloned()
                        .map(|choice| Op::SetModel { choice }),
                    Popup::Rewind(_) | Popup::None => None,
                };
                if let Some(op) = op {
                    self.push_op(op);
                }
                self.popup = Popup::None;
            }
            Action::Edit(key) => match (&mut self.popup, key.code) {
                (Popup::Picker(p), KeyCode::Char(c)) => p.list.type_char(c),
                (Popup::Picker(p), KeyCode::Backspace) => p.list.backspace(),
                (Popup::Models(p), KeyCode::Char(c)) => p.list.type_char(c),
                (Popup::Models(p), KeyCode::Backspace) => p.list.backspace(),
                _ => {}
            },
            _ => {}
        }
    }

    fn picker_step(&mut self, delta: isize) {
        match &mut self.popup {
            Popup::Picker(p) => p.list.step(delta),
            Popup::Models(p) => p.list.step(delta),
            Popup::Rewind(p) => p.step(delta),
            Popup::None => {}
        }
    }

    fn ctrl_c(&mut self) {
        let now = self.now;
        if self
            .last_ctrl_c
            .is_some_and(|t| now.saturating_duration_since(t) < DOUBLE_PRESS)
        {
            self.quit = true;
            return;
        }
        self.last_ctrl_c = Some(now);
        if self.is_busy() {
            self.push_op(Op::Interrupt);
        } else if !self.composer.is_empty() {
            self.composer.clear();
            self.slash_open = false;
        } else {
            self.hint = Some(("press Ctrl+C again to quit".to_string(), now));
        }
    }

    fn submit(&mut self) {
        let text = self.composer.text();
        if text.trim().is_empty() {
            return;
        }
        let slash = self.slash_matches();
        if let Some(cmd) = slash.get(self.slash_selected.min(slash.len().saturating_sub(1))) {
            if cmd.needs_args() {
                self.composer.set_text(&format!("/{} ", cmd.name()));
                self.slash_open = false;
                return;
            }
            self.composer.set_text(&format!("/{}", cmd.name()));
        }
        self.slash_open = false;
        self.mention.open = false;
        let parts = self.mention_parts(&self.composer.text());
        let chips = self.composer.image_chips();
        let text = self.composer.submit();
        self.slash_selected = 0;
        if let Some(command) = text.strip_prefix('/') {
            super::commands::run(self, command);
        } else if let Some(command) = text.strip_prefix('!') {
            if !command.trim().is_empty() {
                self.push_op(Op::UserShell {
                    command: command.trim().to_string(),
                });
            }
        } else {
            self.send_prompt_with(text, parts, chips);
        }
    }

    /// Sends a prompt (it shows as queued or running once the runtime says
    /// so) with its mentions' parts and its image chips (whose
    /// parts follow the mentions'); a rejected prompt gets the chips back.
    pub(crate) fn send_prompt_with(
        &mut self,
        text: String,
        mut parts: Vec<PromptPart>,
        chips: Vec<(String, PromptPart)>,
    ) {
        parts.extend(chips.iter().map(|(_, part)| part.clone()));
        self.push_op(Op::Prompt { text, parts });
        if !chips.is_empty()
            && let Some(id) = self.awaiting.last().cloned()
        {
            self.sent_images.push((id, chips));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn enter_sends_and_modified_enter_or_ctrl_j_breaks_the_line() {
        assert_eq!(
            action(key(KeyCode::Enter, KeyModifiers::NONE)),
            Action::Submit
        );
        assert_eq!(
            action(key(KeyCode::Enter, KeyModifiers::SHIFT)),
            Action::Newline
        );
        assert_eq!(
            action(key(KeyCode::Enter, KeyModifiers::ALT)),
            Action::Newline
        );
        assert_eq!(
            action(key(KeyCode::Char('j'), KeyModifiers::CONTROL)),
            Action::Newline
        );
        assert_eq!(
            action(key(KeyCode::Char('j'), KeyModifiers::NONE)),
            Action::Edit(key(KeyCode::Char('j'), KeyModifiers::NONE))
        );
    }
}
