//! Terminal setup and restore.
//!
//! [`TerminalGuard::enter`] turns on raw mode, bracketed paste and
//! unambiguous key reporting; dropping the guard, a panic (through a hook
//! that then calls the previous hook) or the run loop's SIGTERM/SIGHUP path
//! all end in [`restore`], which is idempotent and never fails loudly.
//! Drawing itself is [`crate::tui::inline_terminal`]'s job.

use std::io::{self, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, EnableBracketedPaste, EnableFocusChange,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{EndSynchronizedUpdate, LeaveAlternateScreen};
use crossterm::{cursor, execute, queue};

static ACTIVE: AtomicBool = AtomicBool::new(false);
static IN_ALT_SCREEN: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();

/// Holds the terminal in the UI's modes; restores it when dropped.
pub struct TerminalGuard(());

impl TerminalGuard {
    /// Enters raw mode with bracketed paste and focus reports; fails if the
    /// terminal refuses raw mode.
    pub fn enter() -> io::Result<Self> {
        install_panic_hook();
        crossterm::terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = io::stdout();
        execute!(
            out,
            EnableBracketedPaste,
            EnableFocusChange,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
        Ok(Self(()))
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back: leaves the alternate screen, turns auto-wrap
/// back on, turns off bracketed paste, focus reports and key enhancements, shows the
/// cursor, leaves raw mode.
/// Safe to call more than once and from a panic hook.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    if IN_ALT_SCREEN.swap(false, Ordering::SeqCst) {
        let _ = queue!(out, LeaveAlternateScreen);
    }
    // A panic in the middle of a frame leaves auto-wrap off and the
    // synchronized update open: both are put back.
    let _ = out.write_all(b"\x1b[?7h");
    let _ = queue!(
        out,
        EndSynchronizedUpdate,
        PopKeyboardEnhancementFlags,
        DisableBracketedPaste,
        DisableFocusChange,
        cursor::Show
    );
    let _ = out.flush();
    let _ = crossterm::terminal::disable_raw_mode();
}

/// Installs (once) a panic hook that restores the terminal, then runs the
/// hook that was installed before it.
pub fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// Records whether the alternate screen is shown, so [`restore`] leaves it.
pub(crate) fn note_alt_screen(shown: bool) {
    IN_ALT_SCREEN.store(shown, Ordering::SeqCst);
}
