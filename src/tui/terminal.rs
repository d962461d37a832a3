//! Terminal setup and restore.
//!
//! [`TerminalGuard::enter`] turns on raw mode, bracketed paste and
//! unambiguous key reporting; dropping the guard, a panic (through a hook
//! that then calls the previous hook) or the run loop's SIGTERM/SIGHUP path
//! all end in [`restore`], which is idempotent and never fails loudly.
//! [`TerminalControl`] adds what ratatui's `Backend` lacks: synchronized
//! updates (DEC 2026) and the alternate screen.

use std::io::{self, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute, queue};
use ratatui::backend::{CrosstermBackend, TestBackend};

static ACTIVE: AtomicBool = AtomicBool::new(false);
static IN_ALT_SCREEN: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();

/// Holds the terminal in the UI's modes; restores it when dropped.
pub struct TerminalGuard(());

impl TerminalGuard {
    /// Enters raw mode with bracketed paste; fails if the terminal refuses raw mode.
    pub fn enter() -> io::Result<Self> {
        install_panic_hook();
        crossterm::terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = io::stdout();
        execute!(
            out,
            EnableBracketedPaste,
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

/// Puts the terminal back: leaves the alternate screen, turns off
/// bracketed paste and key enhancements, shows the cursor, leaves raw mode.
/// Safe to call more than once and from a panic hook.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    if IN_ALT_SCREEN.swap(false, Ordering::SeqCst) {
        let _ = queue!(out, LeaveAlternateScreen);
    }
    let _ = queue!(
        out,
        PopKeyboardEnhancementFlags,
        DisableBracketedPaste,
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

/// Terminal controls beyond ratatui's `Backend`.
pub trait TerminalControl {
    /// Starts a synchronized update: the terminal shows nothing until it ends.
    fn begin_update(&mut self) -> io::Result<()>;
    /// Ends a synchronized update.
    fn end_update(&mut self) -> io::Result<()>;
    /// Switches to the alternate screen.
    fn enter_alt_screen(&mut self) -> io::Result<()>;
    /// Returns to the main screen (scrollback and live area as they were).
    fn leave_alt_screen(&mut self) -> io::Result<()>;
}

impl<W: Write> TerminalControl for CrosstermBackend<W> {
    fn begin_update(&mut self) -> io::Result<()> {
        queue!(self, BeginSynchronizedUpdate)
    }

    fn end_update(&mut self) -> io::Result<()> {
        queue!(self, EndSynchronizedUpdate)?;
        self.flush()
    }

    fn enter_alt_screen(&mut self) -> io::Result<()> {
        IN_ALT_SCREEN.store(true, Ordering::SeqCst);
        execute!(self, EnterAlternateScreen)
    }

    fn leave_alt_screen(&mut self) -> io::Result<()> {
        IN_ALT_SCREEN.store(false, Ordering::SeqCst);
        execute!(self, LeaveAlternateScreen)
    }
}

impl TerminalControl for TestBackend {
    fn begin_update(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn end_update(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn enter_alt_screen(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn leave_alt_screen(&mut self) -> io::Result<()> {
        Ok(())
    }
}
