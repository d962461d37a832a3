//! Widgets: one file per kind of thing on screen.
//!
//! History cells (`user_cell`, `thought_cell`, `output_cell`, `tool_pane`,
//! `notice`, `session_header`) render themselves into wrapped lines for a
//! width; those lines are committed to scrollback once final. The live-area
//! widgets (`status_line`, `composer`, `slash_popup`, `resume_picker`,
//! `model_picker`) are drawn each frame by [`live::render`], which gives the
//! whole live area to the approval overlay (`approval`) while a change or a
//! command waits for the user. Typed reports (`status_report`,
//! `tools_report`, `skills_report`, `sessions_report`, `mcp_report`, built from
//! `report`'s pieces) are committed like history cells. `diff_line` reads a
//! unified diff's lines for the overlay and the transcript alike.

pub mod approval;
pub mod composer;
pub mod diff_line;
pub mod file_picker;
pub mod filter_list;
pub mod live;
pub mod mcp_report;
pub mod model_picker;
pub mod notice;
pub mod output_cell;
pub mod plan;
pub mod question;
pub mod report;
pub mod resume_picker;
pub mod rewind_picker;
pub mod session_header;
pub mod sessions_report;
pub mod skills_report;
pub mod slash_popup;
pub mod status_line;
pub mod status_report;
pub mod thought_cell;
pub mod tool_pane;
pub mod tools_report;
pub mod user_cell;

use std::time::Duration;

/// Formats a duration the way the UI shows elapsed times: `0.4s`, `12s`, `3m05s`.
pub fn format_duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs < 10 {
        format!("{:.1}s", d.as_secs_f64())
    } else if secs < 60 {
        format!("{secs}s")
    } else {
        format!("{}m{:02}s", secs / 60, secs % 60)
    }
}

/// `started 2m ago` for a start at `started_at` (ms since the epoch),
/// relative to `now_ms`; `None` if never started.
pub fn started_text(started_at: Option<u64>, now_ms: u64) -> Option<String> {
    started_at.map(|at| format!("started {}", format_age(at, now_ms)))
}

/// Formats the age of a timestamp (ms since the epoch) relative to `now_ms`.
pub fn format_age(then_ms: u64, now_ms: u64) -> String {
    if then_ms == 0 {
        return "new".to_string();
    }
    let secs = now_ms.saturating_sub(then_ms) / 1000;
    match secs {
        0..60 => "just now".to_string(),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86_400 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::format_age;

    #[test]
    fn ages_pick_the_largest_whole_unit() {
        let now = 10 * 86_400_000;
        assert_eq!(format_age(0, now), "new");
        assert_eq!(format_age(now - 59_999, now), "just now");
        assert_eq!(format_age(now - 60_000, now), "1m ago");
        assert_eq!(format_age(now - 5 * 3_600_000, now), "5h ago");
        assert_eq!(format_age(now - 3 * 86_400_000, now), "3d ago");
    }
}
