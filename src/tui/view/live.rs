//! The live area: active cells, queued prompts, popup, composer and status
//! line, anchored to the bottom of the inline viewport. A pure function of
//! the [`App`].

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use super::{output_cell, thought_cell, user_cell};
use crate::tui::app::{App, Popup};

/// Rows the inline viewport gets on a screen `screen_height` rows tall.
/// At least one row stays outside it: lines inserted above a viewport that
/// fills the whole screen leave stale rows behind.
pub fn viewport_height(screen_height: u16) -> u16 {
    (screen_height * 2 / 5)
        .max(10)
        .min(screen_height.saturating_sub(1))
        .max(1)
}

/// The active cells (live thought, streaming tail, running tools).
pub fn active_lines(app: &App) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if let Some(thought) = &app.thought {
        out.extend(thought_cell::live_lines(&thought.text, app.width));
    }
    if let Some(output) = &app.output {
        out.extend(output_cell::wrap(output.stream.live_tail(), app.width));
    }
    for tool in &app.tools {
        let running_for = tool.started.map(|s| app.now.saturating_duration_since(s));
        out.extend(tool.pane.lines(
            running_for,
            app.tick,
            app.opts.tool_preview_lines,
            app.width,
        ));
    }
    out
}

/// Draws the live area into the whole frame.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let buf = frame.buffer_mut();
    let width = area.width;
    let mut bottom = area.bottom();
    let mut take = |rows: u16| -> Option<Rect> {
        let rows = rows.min(bottom.saturating_sub(area.top()));
        if rows == 0 {
            return None;
        }
        bottom -= rows;
        Some(Rect::new(area.x, bottom, width, rows))
    };

    if let Some(rect) = take(1) {
        Paragraph::new(app.status_view().line_for(width)).render(rect, buf);
    }
    if let Some(approval) = app.approvals.first() {
        // A change waits for the user: the overlay takes the whole area.
        let rest = Rect::new(area.x, area.y, width, bottom.saturating_sub(area.y));
        approval.render(rest, buf, app.approvals.len() - 1);
        return;
    }
    let composer_rows = app.composer.height(width);
    let composer_rect = take(composer_rows);
    if let Some(rect) = composer_rect {
        (&app.composer).render(rect, buf);
    }
    let popup = app.popup_lines(width);
    let mut upper = active_lines(app);
    upper.extend(user_cell::queued_lines(&app.queued, width));
    upper.extend(popup);
    let rows = upper.len().min(u16::MAX as usize) as u16;
    if let Some(rect) = take(rows) {
        let skip = upper.len() - rect.height as usize;
        Paragraph::new(upper.split_off(skip)).render(rect, buf);
    }
    if let (Some(rect), Popup::None) = (composer_rect, &app.popup) {
        let (x, y) = app.composer.cursor_offset();
        let pos = Position::new(
            (rect.x + x).min(rect.right().saturating_sub(1)),
            (rect.y + y).min(rect.bottom().saturating_sub(1)),
        );
        frame.set_cursor_position(pos);
    }
}
