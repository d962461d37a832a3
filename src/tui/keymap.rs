//! Key bindings: what a key press means, before knowing what is on screen.
//! The App decides what an action does in its current state.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

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
    /// Up arrow.
    Up,
    /// Down arrow.
    Down,
    /// Tab: complete a slash command.
    Complete,
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
        KeyCode::Esc => Action::Escape,
        KeyCode::Up if !ctrl && !alt => Action::Up,
        KeyCode::Down if !ctrl && !alt => Action::Down,
        KeyCode::Tab if !shift => Action::Complete,
        _ => Action::Edit(key),
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
