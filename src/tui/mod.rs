//! The terminal front end: an inline ratatui UI over the event stream.
//!
//! Map of the module:
//! - [`options`]: how the UI starts and ends ([`TuiOptions`], [`TuiExit`],
//!   [`TuiError`]). It speaks only the protocol: [`Submission`]s out,
//!   [`HostEvent`]s in.
//! - [`app`]: the view-model [`App`]; `update(msg)` is its only mutator;
//!   `follow` applies runtime input (job updates drive running / idle /
//!   queued).
//! - [`keymap`]: key presses to actions; [`commands`]: the slash commands
//!   ([`commands::SlashCommand`]).
//! - [`mention`]: `@path#L20-45` tokens and the listing matched by the `@`
//!   picker (`picker.rs` its behaviour, [`view::file_picker`] its rows);
//!   [`attach`]: image chips (`-i`, a pasted path, Ctrl+V through
//!   [`clipboard`]).
//! - [`stream`], [`markdown`], [`table`], [`highlight`], [`wrap`]: turning
//!   text into styled, wrapped lines (streamed answers commit in complete
//!   lines, each rendered once).
//! - [`view`]: one file per widget; [`view::live::render`] draws the live
//!   area as a pure function of the App.
//! - [`transcript`]: the Ctrl+T overlay; `approvals.rs` the queue of
//!   approval requests waiting for a decision, shown by [`view::approval`].
//! - [`runner`]: the generic [`runner::Screen`] and the select loop;
//!   [`inline_terminal`]: our inline terminal (live area below the
//!   scrollback, positioned without cursor queries, redrawn on resize);
//!   [`terminal`]: raw mode, restore, panic hook; [`notify`]: calling the
//!   user back while the terminal is unfocused.
//! - [`width`]: the one grapheme-width computation every part uses.
//!
//! Architecture invariant: the UI talks to the runtime only through the
//! two channels given to [`run`]; it uses `crate::protocol` and nothing
//! else from the crate.

pub mod app;
mod approvals;
pub mod attach;
pub mod clipboard;
pub mod commands;
mod follow;
pub mod highlight;
pub mod inline_terminal;
pub mod keymap;
pub mod markdown;
pub mod mention;
pub mod notify;
pub mod options;
mod picker;
mod rewind;
pub mod runner;
pub mod stream;
pub mod table;
pub mod terminal;
pub mod transcript;
pub mod view;
pub mod width;
pub mod wrap;

use std::time::Instant;

use crossterm::event::EventStream;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

pub use app::{App, AppMsg};
pub use options::{TuiError, TuiExit, TuiOptions};

use crate::protocol::{HostEvent, Op, Submission, now_millis};

/// Environment switch for the end-to-end test: `1` panics after the first
/// frame. Read only by debug builds: release binaries carry no test hook.
pub const TEST_PANIC_ENV: &str = "LIGHT_AGENT_TEST_PANIC";

/// Runs the terminal UI on stdout until the user quits, the runtime closes
/// `inputs`, or SIGTERM/SIGHUP arrives. Sends [`Op::Quit`] last. The
/// terminal is restored on every exit path, including panics. Fails when
/// the terminal cannot be set up or written; says which signal ended it.
pub async fn run(
    opts: TuiOptions,
    ops: UnboundedSender<Submission>,
    mut inputs: UnboundedReceiver<HostEvent>,
) -> Result<TuiExit, TuiError> {
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let config = runner::RunOptions {
        panic_after_first_frame: cfg!(debug_assertions)
            && std::env::var_os(TEST_PANIC_ENV).is_some_and(|v| v == "1"),
    };
    let guard = terminal::TerminalGuard::enter()?;
    let (width, height) = crossterm::terminal::size()?;
    let mut screen = runner::Screen::new(inline_terminal::Stdout::new())?;
    let mut app = App::new(opts, width, height, Instant::now(), now_millis());
    app.prefetch_files();
    let signalled = std::cell::Cell::new(None);
    let shutdown = async {
        let number = tokio::select! {
            _ = sigterm.recv() => SIGTERM,
            _ = sighup.recv() => SIGHUP,
        };
        signalled.set(Some(number));
    };
    let result = runner::run_loop(
        &mut screen,
        &mut app,
        // Built with crossterm's `use-dev-tty` reader: the default one loses
        // a key that arrives in the same wake-up as a resize.
        EventStream::new(),
        &ops,
        &mut inputs,
        shutdown,
        config,
    )
    .await;
    let finished = screen.finish();
    drop(guard);
    let _ = ops.send(Submission::new("", Op::Quit));
    result?;
    finished?;
    Ok(signalled.get().map_or(TuiExit::Quit, TuiExit::Signal))
}

/// Signal numbers (the same on Linux and macOS).
const SIGTERM: i32 = 15;
const SIGHUP: i32 = 1;
