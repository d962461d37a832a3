//! The run loop and the screen it draws on.
//!
//! [`Screen`] owns our [`InlineTerminal`] over any [`Surface`] (stdout, or
//! an emulated screen in tests). A draw first writes newly committed lines
//! into scrollback, then redraws the live area, all inside one synchronized
//! update. While the transcript is open it paints the alternate screen
//! instead.
//!
//! [`run_loop`] is the single UI task: it `select!`s over terminal events,
//! runtime inputs, a shutdown future and a frame timer, drains whatever is
//! queued, updates the [`App`], sends the ops it produced and draws at most
//! once per frame — and only when something changed, so an idle UI sleeps.

use super::notify::Channel;
use std::io;
use std::time::{Duration, Instant};

use std::task::Poll;

use futures::{Stream, StreamExt, future};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::app::{App, AppMsg};
use super::inline_terminal::{InlineTerminal, Surface};
use super::view::live;
use crate::protocol::{AgentEvent, now_millis};
use crate::protocol::{HostEvent, Submission};

/// Minimum time between two frames (60 fps).
pub const FRAME: Duration = Duration::from_millis(16);
/// Redraw cadence while only the spinner and elapsed time move.
const ANIMATION: Duration = Duration::from_millis(100);
/// Longest the loop spends applying queued runtime inputs before it looks
/// at the keyboard and the clock again.
const DRAIN_BUDGET: Duration = Duration::from_millis(4);

/// The terminal the UI draws on: the live area of an [`InlineTerminal`],
/// or the transcript overlay on the alternate screen.
pub struct Screen<S: Surface> {
    terminal: InlineTerminal<S>,
}

impl<S: Surface> Screen<S> {
    /// A screen whose live area starts on the cursor's current row.
    pub fn new(surface: S) -> io::Result<Self> {
        Ok(Self {
            terminal: InlineTerminal::new(surface)?,
        })
    }

    /// The surface (tests read their emulated screen through this).
    pub fn surface(&self) -> &S {
        self.terminal.surface()
    }

    /// The surface, mutably (tests resize their emulated screen).
    pub fn surface_mut(&mut self) -> &mut S {
        self.terminal.surface_mut()
    }

    /// Draws the app: scrollback inserts and the live area, or the
    /// transcript overlay when it is open. A screen size the app has not
    /// been told about yet (the resize event is still queued) is applied
    /// first, so nothing is drawn for a width the terminal no longer has.
    pub fn draw(&mut self, app: &mut App) -> io::Result<()> {
        let (width, height) = self.terminal.screen_size()?;
        if (width.max(10), height) != (app.width, app.height) {
            app.update(AppMsg::Terminal(crossterm::event::Event::Resize(
                width, height,
            )));
        }
        if let Some(overlay) = app.overlay.as_mut() {
            let live = app.output.as_ref().map(|o| o.stream.received());
            overlay.follow(&app.transcript, live);
            let area = Rect::new(0, 0, width, height);
            let mut next = Buffer::empty(area);
            overlay.render(area, &mut next);
            self.terminal.draw_overlay(&next)?;
            app.mark_drawn();
            return Ok(());
        }
        let committed = app.take_committed();
        let live = live::render(app, width, height);
        self.terminal.draw(&committed, &live)?;
        app.mark_drawn();
        Ok(())
    }

    /// Writes a notification's bytes (see `notify.rs`) between frames: an
    /// OSC or a bell moves no cursor, so the layout is untouched.
    pub fn notify(&mut self, sequence: &str) -> io::Result<()> {
        let out = self.terminal.surface_mut();
        out.write_all(sequence.as_bytes())?;
        out.flush()
    }

    /// Erases the live area and leaves the cursor at its top, so the shell
    /// continues right under the last committed line.
    pub fn finish(&mut self) -> io::Result<()> {
        self.terminal.finish()
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
pub async fn run_loop<T, S, F>(
    screen: &mut Screen<T>,
    app: &mut App,
    mut events: S,
    ops: &UnboundedSender<Submission>,
    inputs: &mut UnboundedReceiver<HostEvent>,
    shutdown: F,
    config: RunOptions,
) -> io::Result<()>
where
    T: Surface,
    S: Stream<Item = io::Result<crossterm::event::Event>> + Unpin,
    F: std::future::Future<Output = ()>,
{
    tokio::pin!(shutdown);
    app.set_time(Instant::now(), now_millis());
    // What the runtime already said (the model, say) belongs in the first frame.
    while let Ok(input) = inputs.try_recv() {
        app.update(AppMsg::Input(input));
    }
    // What the App asked for before the loop (the initial prompt, the
    // file listing) goes now, not with the first key press.
    for op in app.take_ops() {
        if ops.send(op).is_err() {
            return Ok(());
        }
    }
    screen.draw(app)?;
    if config.panic_after_first_frame {
        panic!("LIGHT_AGENT_TEST_PANIC: panicking after the first frame");
    }
    std::thread::spawn(super::highlight::warm_up);
    let notifications = Channel::pick(app.opts.notifications, |name| std::env::var(name).ok());
    // Ctrl+V's clipboard reads run beside the loop and report back here.
    let (clipboard_tx, mut clipboard_rx) = tokio::sync::mpsc::unbounded_channel();
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
            read = clipboard_rx.recv() => read.map(AppMsg::Clipboard),
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
        // Drain what the runtime queued, but only for a slice of a frame:
        // a flood of deltas must not keep a key press waiting.
        let drain_until = Instant::now() + DRAIN_BUDGET;
        let mut drained = 0u32;
        while let Ok(input) = inputs.try_recv() {
            let msg = AppMsg::Input(input);
            urgent |= ends_a_turn(&msg);
            app.update(msg);
            drained += 1;
            if drained.is_multiple_of(64) && Instant::now() >= drain_until {
                break;
            }
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
        for text in app.take_notifications() {
            if let Some(channel) = notifications {
                screen.notify(&channel.sequence(&text))?;
            }
        }
        if app.take_clipboard_request() {
            let done = clipboard_tx.clone();
            tokio::spawn(async move {
                let _ = done.send(super::clipboard::read_image().await);
            });
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
        AppMsg::Input(HostEvent::Agent {
            event: AgentEvent::AgentStop { .. }
        })
    )
}
