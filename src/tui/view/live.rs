//! The live area: active cells, queued prompts, popup, composer and status
//! line, as tall as what it shows. A pure function of the [`App`].

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use super::{output_cell, plan, thought_cell, user_cell};
use crate::tui::app::{App, Popup};
use crate::tui::inline_terminal::LiveFrame;
use crate::tui::width::fit_prefix;

/// Narrowest and lowest screen the live area is laid out on; below it the
/// live area is one line saying so.
pub const MIN_SIZE: (u16, u16) = (20, 6);

/// What the live area shows on a screen too small for it.
pub const TOO_SMALL: &str = "terminal too small";

/// Most rows the live area takes on a screen `screen_height` rows tall: at
/// least one row of scrollback stays visible above it.
pub fn max_rows(screen_height: u16) -> u16 {
    screen_height.saturating_sub(1).max(1)
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

/// Lays the live area out for a `width`-column screen `screen_height` rows
/// tall: as tall as its content (status line, composer, popup, queued
/// prompts and the live cells of the running turn), at most
/// [`max_rows`]; when the content is taller, the oldest live rows are cut.
pub fn render(app: &App, width: u16, screen_height: u16) -> LiveFrame {
    let width = width.max(1);
    if width < MIN_SIZE.0 || screen_height < MIN_SIZE.1 {
        let mut buffer = Buffer::empty(Rect::new(0, 0, width, 1));
        let (text, _) = fit_prefix(TOO_SMALL, usize::from(width));
        buffer.set_string(0, 0, text, Style::new().fg(Color::Yellow));
        return LiveFrame {
            buffer,
            cursor: None,
        };
    }
    let budget = max_rows(screen_height);
    let status = app.status_view().line_for(width);
    let composer_rows = app
        .composer
        .height(width)
        .min(budget.saturating_sub(1))
        .max(1);
    if let Some(approval) = app.approvals.first() {
        // A change waits for the user: the overlay takes the rows its
        // subject needs (a long diff scrolls), above the status line.
        let rows = approval.height().saturating_add(1).min(budget).max(2);
        let mut buffer = Buffer::empty(Rect::new(0, 0, width, rows));
        approval.render(
            Rect::new(0, 0, width, rows - 1),
            &mut buffer,
            app.approvals.len() - 1,
        );
        Paragraph::new(status).render(Rect::new(0, rows - 1, width, 1), &mut buffer);
        return LiveFrame {
            buffer,
            cursor: None,
        };
    }
    if let Some(question) = &app.question {
        // A question waits for the user: like an approval, it takes every
        // row above the status line.
        let rows = budget.max(2);
        let mut buffer = Buffer::empty(Rect::new(0, 0, width, rows));
        question.render(Rect::new(0, 0, width, rows - 1), &mut buffer);
        Paragraph::new(status).render(Rect::new(0, rows - 1, width, 1), &mut buffer);
        return LiveFrame {
            buffer,
            cursor: None,
        };
    }
    let popup = app.popup_lines(width);
    let mut upper = active_lines(app);
    upper.extend(user_cell::queued_lines(&app.queued, width));
    upper.extend(plan::lines(&app.plan, app.plan_open, width));
    upper.extend(popup);
    let room = usize::from(budget.saturating_sub(composer_rows + 1));
    if upper.len() > room {
        upper.drain(..upper.len() - room);
    }
    let upper_rows = upper.len() as u16;
    let rows = upper_rows + composer_rows + 1;
    let area = Rect::new(0, 0, width, rows);
    let mut buffer = Buffer::empty(area);
    Paragraph::new(upper).render(Rect::new(0, 0, width, upper_rows), &mut buffer);
    let composer_rect = Rect::new(0, upper_rows, width, composer_rows);
    (&app.composer).render(composer_rect, &mut buffer);
    Paragraph::new(status).render(Rect::new(0, rows - 1, width, 1), &mut buffer);
    let cursor = matches!(app.popup, Popup::None).then(|| {
        let (x, y) = app.composer.cursor_offset();
        Position::new(
            x.min(width.saturating_sub(1)),
            (composer_rect.y + y).min(composer_rect.bottom().saturating_sub(1)),
        )
    });
    LiveFrame { buffer, cursor }
}
