//! Rewind in the [`App`]: Esc twice on an idle, empty composer asks the
//! host for the session's prompts (the list opens on its answer,
//! [`HostEvent::Prompts`](crate::protocol::HostEvent::Prompts)); the keys
//! of the open list; what to go back to is decided by the host, whose
//! [`HostEvent::Rewound`](crate::protocol::HostEvent::Rewound) puts a
//! rewound prompt back into the composer.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent};

use super::app::{App, Popup};
use crate::protocol::Op;

/// Time within which a second Esc opens the rewind list.
const DOUBLE_ESC: Duration = Duration::from_secs(1);

impl App {
    /// Esc with nothing to interrupt or close and an empty composer: the
    /// first press arms, a second within [`DOUBLE_ESC`] asks for the list.
    pub(crate) fn escape_when_idle(&mut self) {
        let now = self.now;
        if self
            .last_esc
            .is_some_and(|t| now.saturating_duration_since(t) < DOUBLE_ESC)
        {
            self.last_esc = None;
            self.hint = None;
            self.push_op(Op::ListPrompts);
            return;
        }
        self.last_esc = Some(now);
        self.hint = Some(("press Esc again to rewind".to_string(), now));
    }

    /// Enter in the rewind list: choose the prompt, or carry out the choice.
    pub(crate) fn rewind_enter(&mut self) {
        let Popup::Rewind(picker) = &mut self.popup else {
            return;
        };
        if let Some(op) = picker.enter() {
            self.popup = Popup::None;
            self.push_op(op);
        }
    }

    /// A key typed into the rewind list.
    pub(crate) fn rewind_edit(&mut self, key: KeyEvent) {
        let Popup::Rewind(picker) = &mut self.popup else {
            return;
        };
        let op = match key.code {
            KeyCode::Char(c) => picker.type_char(c),
            KeyCode::Backspace => {
                picker.backspace();
                None
            }
            _ => None,
        };
        if let Some(op) = op {
            self.popup = Popup::None;
            self.push_op(op);
        }
    }
}
