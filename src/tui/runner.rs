//! The run loop and the screen it draws on.
//!
//! [`Screen`] owns a ratatui `Terminal` with an inline viewport over any
//! backend (a real terminal, or `TestBackend` in tests). A draw first
//! writes newly committed lines into scrollback with `insert_before`, then
//! redraws the live area, all inside one synchronized update. While the
//! transcript is open it paints the alternate screen instead.
//!
//! [`run_loop`] is the single UI task: it `select!`s over terminal events,
//! runtime inputs, a shutdown future and a frame timer, drains whatever is
//! queued, updates the [`App`], sends the ops it produced and draws at most
//! once per frame — and only when something changed, so an idle UI sleeps.

use std::io;
use std::time::{Duration, Instant};

use std::task::Poll;

use futures::{Stream, StreamExt, future};
use ratatui::backend::Backend;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Terminal, TerminalOptions, Viewport};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::app::{App, AppMsg};
use super::bridge::{Op, UiInput};
use super::terminal::TerminalControl;
use super::view::live;
use crate::protocol::{AgentEvent, now_millis};

/// Minimum time between two frames (60 fps).
pub const FRAME: Duration = Duration::from_millis(16);
/// Redraw cadence while only the spinner and elapsed time move.
const ANIMATION: Duration = Duration::from_millis(100);
/// Most lines handed to one `insert_before` call.
const INSERT_CHUNK: usize = 256;

fn io_err<E: std::error::Error + Send + Sync + 'static>(e: E) -> io::Error {
    io::Error::other(e)
}

/// The terminal the UI draws on.
pub struct Screen<B: Backend + TerminalControl> {
    terminal: Terminal<B>,
    alt: Option<Buffer>,
}

impl<B> Screen<B>
where
    B: Backend + TerminalControl,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    /// An inline viewport sized for the backend's screen.
    pub fn new(backend: B) -> io::Result<Self> {
        let size = backend.size().map_err(io_err)?;
        let viewport = Viewport::Inline(live::viewport_height(size.height));
        let terminal =
            Terminal::with_options(backend, TerminalOptions { viewport }).map_err(io_err)?;
        Ok(Self {
            terminal,
            alt: None,
        })
    }

    /// The backend (tests read the `TestBackend` buffer through this).
    pub fn backend(&self) -> &B {
        self.terminal.backend()
    }

    /// Draws the app: scrollback inserts and the live area, or the
    /// transcript overlay when it is open.
    pub fn draw(&mut self, app: &mut App) -> io::Result<()> {
        if let Some(overlay) = app.overlay.as_ref() {
            let size = self.terminal.size().map_err(io_err)?;
            let area = Rect::new(0, 0, size.width, size.height);
            let backend = self.terminal.backend_mut();
            let mut prev = match self.alt.take() {
                Some(prev) if prev.area == area => prev,
                _ => {
                    backend.enter_alt_screen()?;
                    // Clears the alternate screen only; the main screen and
                    // its scrollback are untouched.
                    backend
                        .clear_region(ratatui::backend::ClearType::All)
                        .map_err(io_err)?;
                    Buffer::empty(area)
                }
            };
            let mut next = Buffer::empty(area);
            overlay.render(area, &mut next);
            backend.begin_update()?;
            backend.draw(prev.diff(&next).into_iter()).map_err(io_err)?;
            backend.hide_cursor().map_err(io_err)?;
            backend.end_update()?;
            prev = next;
            self.alt = Some(prev);
            app.mark_drawn();
            return Ok(());
        }
        if self.alt.take().is_some() {
            self.terminal.backend_mut().leave_alt_screen()?;
        }
        self.terminal.backend_mut().begin_update()?;
        let committed = app.take_committed();
        for chunk in committed.chunks(INSERT_CHUNK) {
            self.terminal
                .insert_before(chunk.len() as u16, |buf| {
                    Paragraph::new(chunk.to_vec()).render(buf.area, buf);
                })
                .map_err(io_err)?;
        }
        self.terminal
            .draw(|frame| live::render(app, frame))
            .map_err(io_err)?;
        self.terminal.backend_mut().end_update()?;
        app.mark_drawn();
        Ok(())
    }

    /// Blanks the live area and leaves the cursor at its top, so the shell
    /// continues right under the last committed line.
    pub fn finish(&mut self) -> io::Result<()> {
        let mut top = 0;
        self.terminal
            .draw(|frame| top = frame.area().y)
            .map_err(io_err)?;
        self.terminal
            .set_cursor_position(Position::new(0, top))
            .map_err(io_err)?;
        self.terminal.show_cursor().map_err(io_err)?;
        Ok(())
    }
}

/// What the loop does besides the App.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    /// Panic right after the first frame (the test-only switch).
    pub panic_after_first_frame: bool,
}

/// Runs the UI until the user quits, the terminal events end, the runtime
/// closes its channel, or `shutdown` resolves. Ops go to `ops`; a closed
/// `ops` channel ends the loop too.
pub async fn run_loop<B, S, F>(
    screen: &mut Screen<B>,
    app: &mut App,
    mut events: S,
    ops: &UnboundedSender<Op>,
    inputs: &mut UnboundedReceiver<UiInput>,
    shutdown: F,
    config: RunOptions,
) -> io::Result<()>
where
    B: Backend + TerminalControl,
    B::Error: std::error::Error + Send + Sync + 'static,
    S: Stream<Item = io::Result<crossterm::event::Event>> + Unpin,
    F: std::future::Future<Output = ()>,
{
    tokio::pin!(shutdown);
    app.set_time(Instant::now(), now_millis());
    // What the runtime already said (the model, say) belongs in the first frame.
    while let Ok(input) = inputs.try_recv() {
        app.update(AppMsg::Input(input));
    }
    screen.draw(app)?;
    if config.panic_after_first_frame {
        panic!("LIGHT_AGENT_TEST_PANIC: panicking after the first frame");
    }
    std::thread::spawn(super::highlight::warm_up);
    let mut last_draw = Instant::now();
    loop {
        let deadline = if app.is_dirty() {
            Some(last_draw + FRAME)
        } else if app.is_animating() {
            Some(last_draw + ANIMATION)
        } else {
            None
        };
        let sleep = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        let msg = tokio::select! {
            biased;
            () = &mut shutdown => break,
            event = events.next() => match event {
                Some(Ok(event)) => Some(AppMsg::Terminal(event)),
                Some(Err(e)) => return Err(e),
                None => break,
            },
            input = inputs.recv() => match input {
                Some(input) => Some(AppMsg::Input(input)),
                None => break,
            },
            () = sleep => None,
        };
        app.set_time(Instant::now(), now_millis());
        // The end of a turn is shown at once, not at the next frame: it is
        // what the user waits for after pressing Esc.
        let mut urgent = false;
        match msg {
            Some(msg) => {
                urgent |= ends_a_turn(&msg);
                app.update(msg);
            }
            None if app.is_animating() => app.update(AppMsg::Tick),
            None => {}
        }
        while let Ok(input) = inputs.try_recv() {
            let msg = AppMsg::Input(input);
            urgent |= ends_a_turn(&msg);
            app.update(msg);
        }
        // Poll with this task's waker, never a no-op one: crossterm's
        // EventStream keeps the waker of the first pending poll, so a no-op
        // waker here would leave the UI deaf to later keys.
        while let Poll::Ready(Some(Ok(event))) =
            future::poll_fn(|cx| Poll::Ready(events.poll_next_unpin(cx))).await
        {
            app.update(AppMsg::Terminal(event));
        }
        for op in app.take_ops() {
            if ops.send(op).is_err() {
                return Ok(());
            }
        }
        if app.should_quit() {
            break;
        }
        let now = Instant::now();
        if app.is_dirty() && (urgent || now >= last_draw + FRAME) {
            screen.draw(app)?;
            last_draw = now;
        }
    }
    Ok(())
}

fn ends_a_turn(msg: &AppMsg) -> bool {
    matches!(
        msg,
        AppMsg::Input(UiInput::Event(AgentEvent::AgentStop { .. }))
    )
}
