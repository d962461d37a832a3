//! Our own inline terminal: a live area drawn below the shell's scrollback,
//! positioned without ever asking the terminal where its cursor is.
//!
//! ratatui's inline viewport asks for the cursor position whenever the
//! screen size changes; the reply arrives on stdin, where the input stream
//! is reading, and is lost — the program then fails. This terminal keeps no
//! absolute row at all. It knows where it left the cursor *inside* the live
//! area, and every move is relative to that: carriage return and "cursor
//! up" reach the top of the live area, line feeds walk down through it
//! (scrolling the screen when the live area grows past the bottom), so the
//! terminal itself places everything. Terminals keep the cursor with its
//! text when they are resized, so the same moves still find the live area
//! after a resize, which is then erased and drawn again for the new size.
//!
//! A frame: finished lines are written once at the top of the live area
//! (each line feed pushes the screen up into the terminal's scrollback once
//! it is full), then the live area is drawn below them — only the rows that
//! changed, unless it moved or the size changed — and rows it no longer
//! uses are erased. Everything goes out in one synchronized update with
//! auto-wrap off, and every cell of a live row past the tenth column is
//! placed with a column move, so a frame drawn just before a resize cannot
//! spill onto extra rows, even on a terminal that ignores auto-wrap off.
//! The transcript overlay is drawn on the alternate
//! screen with absolute moves (there the whole screen is ours).

use std::io::{self, Write};

use crossterm::cursor::{Hide, MoveTo, MoveToColumn, MoveUp, Show};
use crossterm::queue;
use crossterm::style::{Attribute, Print, SetAttribute, SetBackgroundColor, SetForegroundColor};
use crossterm::terminal::{
    BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate, EnterAlternateScreen,
    LeaveAlternateScreen,
};
use ratatui::backend::IntoCrossterm;
use ratatui::buffer::{Buffer, Cell, CellDiffOption};
use ratatui::layout::Position;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use super::terminal;
use super::width::str_width;
use super::wrap::wrap_to_width;

/// Where the terminal's bytes go and how big its screen is.
pub trait Surface: Write {
    /// Columns and rows of the screen now (an ioctl on a real terminal, no
    /// query on the input stream).
    fn size(&self) -> io::Result<(u16, u16)>;
}

/// The process's stdout, buffered; flushed once per frame.
pub struct Stdout(io::BufWriter<io::Stdout>);

impl Stdout {
    /// Stdout with a buffer large enough for a full frame.
    pub fn new() -> Self {
        Self(io::BufWriter::with_capacity(1 << 16, io::stdout()))
    }
}

impl Default for Stdout {
    fn default() -> Self {
        Self::new()
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Surface for Stdout {
    fn size(&self) -> io::Result<(u16, u16)> {
        crossterm::terminal::size()
    }
}

/// A rendered live area: its rows and where the cursor belongs in them.
#[derive(Debug, Clone)]
pub struct LiveFrame {
    /// The rows, at `(0, 0)`, as wide as the screen.
    pub buffer: Buffer,
    /// The cursor's cell inside `buffer`, or `None` to hide it.
    pub cursor: Option<Position>,
}

/// The live area on screen and the scrollback above it.
pub struct InlineTerminal<S: Surface> {
    out: S,
    /// The screen size the live area was last drawn for.
    size: (u16, u16),
    /// What the live area shows (its height is the rows it occupies).
    shown: Buffer,
    /// The cursor's row and column inside the live area.
    cursor: (u16, u16),
    /// The live area must be erased and drawn whole (after a resize or the
    /// alternate screen): its rows on screen are no longer known.
    stale: bool,
    /// The overlay's last frame while the alternate screen is shown.
    alt: Option<Buffer>,
}

impl<S: Surface> InlineTerminal<S> {
    /// A terminal whose live area starts on the cursor's current row.
    pub fn new(out: S) -> io::Result<Self> {
        let size = out.size()?;
        Ok(Self {
            out,
            size,
            shown: Buffer::empty(ratatui::layout::Rect::new(0, 0, size.0, 0)),
            cursor: (0, 0),
            stale: true,
            alt: None,
        })
    }

    /// The surface (tests read what was written through this).
    pub fn surface(&self) -> &S {
        &self.out
    }

    /// The surface, mutably (tests resize their emulated screen through this).
    pub fn surface_mut(&mut self) -> &mut S {
        &mut self.out
    }

    /// The screen size now, as the surface reports it.
    pub fn screen_size(&self) -> io::Result<(u16, u16)> {
        self.out.size()
    }

    /// Rows the live area occupies now.
    pub fn live_rows(&self) -> u16 {
        self.shown.area.height
    }

    /// Writes `history` into scrollback above the live area, then draws
    /// `live` as the new live area, in one synchronized update.
    pub fn draw(&mut self, history: &[Line<'static>], live: &LiveFrame) -> io::Result<()> {
        let size = self.out.size()?;
        let resized = size != self.size;
        self.size = size;
        let width = size.0.max(1);
        queue!(self.out, BeginSynchronizedUpdate, Hide)?;
        write_raw(&mut self.out, AUTOWRAP_OFF)?;
        if self.alt.take().is_some() {
            terminal::note_alt_screen(false);
            queue!(self.out, LeaveAlternateScreen)?;
            self.stale = true;
        }
        self.move_to_top()?;
        if resized || self.stale {
            // The rows of the old live area may have moved or been cut by
            // the resize: erase from its top and draw everything again.
            queue!(self.out, Clear(ClearType::FromCursorDown))?;
            self.shown = Buffer::empty(ratatui::layout::Rect::new(0, 0, width, 0));
            self.stale = false;
        }
        if !history.is_empty() {
            for line in history {
                for row in wrap_to_width(line, usize::from(width)) {
                    queue!(self.out, Clear(ClearType::CurrentLine))?;
                    write_line(&mut self.out, &row)?;
                    // A line feed, not a cursor move: at the bottom it
                    // scrolls, which is what pushes lines into scrollback.
                    write_raw(&mut self.out, b"\r\n")?;
                }
            }
            // The old live area now lies below the new one's top: nothing
            // of it can be reused.
            self.shown = Buffer::empty(ratatui::layout::Rect::new(0, 0, width, 0));
        }
        self.draw_live(live, width)?;
        write_raw(&mut self.out, AUTOWRAP_ON)?;
        if live.cursor.is_some() {
            queue!(self.out, Show)?;
        }
        queue!(self.out, EndSynchronizedUpdate)?;
        self.out.flush()
    }

    /// Draws `overlay` (as big as the screen) on the alternate screen.
    pub fn draw_overlay(&mut self, overlay: &Buffer) -> io::Result<()> {
        let size = self.out.size()?;
        queue!(self.out, BeginSynchronizedUpdate, Hide)?;
        write_raw(&mut self.out, AUTOWRAP_OFF)?;
        let prev = match self.alt.take() {
            Some(prev) if prev.area == overlay.area && size == self.size => Some(prev),
            Some(_) => {
                queue!(self.out, Clear(ClearType::All))?;
                None
            }
            None => {
                terminal::note_alt_screen(true);
                queue!(self.out, EnterAlternateScreen, Clear(ClearType::All))?;
                None
            }
        };
        self.size = size;
        for y in 0..overlay.area.height {
            if prev.as_ref().is_some_and(|p| same_row(p, overlay, y)) {
                continue;
            }
            queue!(self.out, MoveTo(0, y), Clear(ClearType::CurrentLine))?;
            write_row(&mut self.out, overlay, y)?;
        }
        write_raw(&mut self.out, AUTOWRAP_ON)?;
        queue!(self.out, EndSynchronizedUpdate)?;
        self.out.flush()?;
        self.alt = Some(overlay.clone());
        Ok(())
    }

    /// Erases the live area and leaves the cursor at its top, so the shell
    /// continues right under the last finished line.
    pub fn finish(&mut self) -> io::Result<()> {
        if self.alt.take().is_some() {
            terminal::note_alt_screen(false);
            queue!(self.out, LeaveAlternateScreen)?;
        }
        self.move_to_top()?;
        queue!(self.out, Clear(ClearType::FromCursorDown), Show)?;
        write_raw(&mut self.out, AUTOWRAP_ON)?;
        self.shown = Buffer::empty(ratatui::layout::Rect::new(0, 0, self.size.0, 0));
        self.out.flush()
    }

    /// Moves from the cursor to column 0 of the live area's top row.
    fn move_to_top(&mut self) -> io::Result<()> {
        write_raw(&mut self.out, b"\r")?;
        if self.cursor.0 > 0 {
            queue!(self.out, MoveUp(self.cursor.0))?;
        }
        self.cursor = (0, 0);
        Ok(())
    }

    /// Draws the live area from its top row (the cursor is there).
    fn draw_live(&mut self, live: &LiveFrame, width: u16) -> io::Result<()> {
        let rows = live.buffer.area.height;
        let reuse = self.shown.area.width == live.buffer.area.width;
        let mut at = 0u16;
        for y in 0..rows {
            let unchanged =
                reuse && y < self.shown.area.height && same_row(&self.shown, &live.buffer, y);
            if unchanged {
                continue;
            }
            self.walk_down(&mut at, y)?;
            write_raw(&mut self.out, b"\r")?;
            queue!(self.out, Clear(ClearType::CurrentLine))?;
            write_row(&mut self.out, &live.buffer, y)?;
        }
        if self.shown.area.height > rows {
            // Rows the live area no longer uses: they exist on screen
            // (it was that tall), so walking to them scrolls nothing.
            self.walk_down(&mut at, rows)?;
            write_raw(&mut self.out, b"\r")?;
            queue!(self.out, Clear(ClearType::FromCursorDown))?;
        }
        let target = live
            .cursor
            .unwrap_or(Position::new(0, rows.saturating_sub(1)));
        let target_row = target.y.min(rows.saturating_sub(1));
        if target_row >= at {
            self.walk_down(&mut at, target_row)?;
        } else {
            queue!(self.out, MoveUp(at - target_row))?;
            at = target_row;
        }
        queue!(
            self.out,
            MoveToColumn(target.x.min(width.saturating_sub(1)))
        )?;
        self.cursor = (at, target.x);
        self.shown = live.buffer.clone();
        Ok(())
    }

    /// Moves down from row `at` to row `to` with line feeds, which scroll
    /// the screen when the live area reaches past its bottom.
    fn walk_down(&mut self, at: &mut u16, to: u16) -> io::Result<()> {
        while *at < to {
            write_raw(&mut self.out, b"\n")?;
            *at += 1;
        }
        Ok(())
    }
}

const AUTOWRAP_OFF: &[u8] = b"\x1b[?7l";
const AUTOWRAP_ON: &[u8] = b"\x1b[?7h";

fn write_raw(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    out.write_all(bytes)
}

fn same_row(a: &Buffer, b: &Buffer, y: u16) -> bool {
    let w = usize::from(a.area.width);
    if w != usize::from(b.area.width) || y >= a.area.height || y >= b.area.height {
        return false;
    }
    let start = usize::from(y) * w;
    a.content[start..start + w] == b.content[start..start + w]
}

/// Writes row `y` of `buf` from column 0 (the row is already erased):
/// cells up to the last one with content, each wide symbol once.
/// Columns of a row written as plain text; each cell after them is placed
/// with a column move (ten: the narrowest width the app lays out for).
const PLAIN_COLUMNS: usize = 10;

fn write_row(out: &mut impl Write, buf: &Buffer, y: u16) -> io::Result<()> {
    let w = usize::from(buf.area.width);
    let start = usize::from(y) * w;
    let cells = &buf.content[start..start + w];
    let end = cells
        .iter()
        .rposition(|c| c.symbol() != " " || c.bg != Color::Reset || !c.modifier.is_empty())
        .map_or(0, |i| i + 1);
    let mut pen = Pen::default();
    let mut x = 0;
    let mut skip = 0;
    while x < end {
        let cell: &Cell = &cells[x];
        x += 1;
        if skip > 0 {
            skip -= 1;
            continue;
        }
        if cell.diff_option == CellDiffOption::Skip {
            continue;
        }
        let symbol = cell.symbol();
        pen.set(out, cell.fg, cell.bg, cell.modifier)?;
        if x > PLAIN_COLUMNS {
            // Placed, not just printed: on a terminal narrower than this
            // frame by the time it reads it (a resize under way) a printed
            // cell past the margin wraps onto a new row even with auto-wrap
            // off (some emulators ignore it), and every relative move after
            // it misses the live area, whose old rows then stay on screen as
            // a second one. A placed cell lands on the last column instead.
            queue!(out, MoveToColumn((x - 1) as u16))?;
        }
        let width = str_width(symbol);
        if width == 0 || symbol.chars().any(char::is_control) {
            queue!(out, Print(' '))?;
        } else {
            queue!(out, Print(symbol))?;
            skip = width.saturating_sub(1);
        }
    }
    pen.reset(out)
}

/// Writes one line's spans (already no wider than the screen).
fn write_line(out: &mut impl Write, line: &Line<'_>) -> io::Result<()> {
    let mut pen = Pen::default();
    for span in &line.spans {
        let style: Style = line.style.patch(span.style);
        let modifier = style.add_modifier - style.sub_modifier;
        pen.set(
            out,
            style.fg.unwrap_or(Color::Reset),
            style.bg.unwrap_or(Color::Reset),
            modifier,
        )?;
        let clean: String = span
            .content
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        queue!(out, Print(clean))?;
    }
    pen.reset(out)
}

/// The style the terminal is drawing with, so escapes go out only on change.
#[derive(Default)]
struct Pen {
    current: Option<(Color, Color, Modifier)>,
}

impl Pen {
    fn set(&mut self, out: &mut impl Write, fg: Color, bg: Color, m: Modifier) -> io::Result<()> {
        let next = (fg, bg, m);
        let current = self
            .current
            .unwrap_or((Color::Reset, Color::Reset, Modifier::empty()));
        if current == next {
            self.current = Some(next);
            return Ok(());
        }
        if current.2 != m || (current.2 != Modifier::empty() && m == Modifier::empty()) {
            queue!(out, SetAttribute(Attribute::Reset))?;
            apply_modifier(out, m)?;
            queue!(out, SetForegroundColor(fg.into_crossterm()))?;
            queue!(out, SetBackgroundColor(bg.into_crossterm()))?;
        } else {
            if current.0 != fg {
                queue!(out, SetForegroundColor(fg.into_crossterm()))?;
            }
            if current.1 != bg {
                queue!(out, SetBackgroundColor(bg.into_crossterm()))?;
            }
        }
        self.current = Some(next);
        Ok(())
    }

    fn reset(&mut self, out: &mut impl Write) -> io::Result<()> {
        if self
            .current
            .is_some_and(|c| c != (Color::Reset, Color::Reset, Modifier::empty()))
        {
            queue!(out, SetAttribute(Attribute::Reset))?;
        }
        self.current = None;
        Ok(())
    }
}

fn apply_modifier(out: &mut impl Write, m: Modifier) -> io::Result<()> {
    let pairs = [
        (Modifier::BOLD, Attribute::Bold),
        (Modifier::DIM, Attribute::Dim),
        (Modifier::ITALIC, Attribute::Italic),
        (Modifier::UNDERLINED, Attribute::Underlined),
        (Modifier::SLOW_BLINK, Attribute::SlowBlink),
        (Modifier::RAPID_BLINK, Attribute::RapidBlink),
        (Modifier::REVERSED, Attribute::Reverse),
        (Modifier::HIDDEN, Attribute::Hidden),
        (Modifier::CROSSED_OUT, Attribute::CrossedOut),
    ];
    for (flag, attr) in pairs {
        if m.contains(flag) {
            queue!(out, SetAttribute(attr))?;
        }
    }
    Ok(())
}
