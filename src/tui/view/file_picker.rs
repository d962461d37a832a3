//! The `@` file picker drawn above the composer, and the notes under it
//! for mentions that will not be sent (a folder, a binary or missing file,
//! a path leading outside the working directory).

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::notice::truncate;
use crate::protocol::{EntryKind, MentionState, WorkspaceEntry};

/// What the picker shows: the matching entries (best first) and which is
/// selected, or why there are none.
pub struct PickerView<'a> {
    /// The matches, best first.
    pub matches: &'a [WorkspaceEntry],
    /// The selected row.
    pub selected: usize,
    /// Whether a listing arrived yet.
    pub loaded: bool,
    /// Whether the listing was cut at its cap.
    pub truncated: bool,
}

/// The picker's rows: one per match, the selected one reversed; a folder
/// and a refused link say what they are.
pub fn lines(view: &PickerView<'_>, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width);
    if view.matches.is_empty() {
        let text = if view.loaded {
            "no matching file"
        } else {
            "listing files…"
        };
        return vec![Line::styled(
            format!("  {text}"),
            Style::new().fg(Color::DarkGray),
        )];
    }
    let mut out: Vec<Line<'static>> = view
        .matches
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let (note, colour) = match entry.kind {
                EntryKind::File => ("", Color::Cyan),
                EntryKind::Directory => ("  directory", Color::Blue),
                EntryKind::Refused => ("  refused: leads outside the directory", Color::Red),
            };
            let mut style = Style::new().fg(colour);
            if i == view.selected {
                style = style.add_modifier(Modifier::BOLD | Modifier::REVERSED);
            }
            let path = truncate(&entry.path, width.saturating_sub(note.len() + 3));
            Line::from(vec![
                Span::raw("  "),
                Span::styled(format!("@{path}"), style),
                Span::styled(note, Style::new().fg(Color::DarkGray)),
            ])
        })
        .collect();
    if view.truncated {
        out.push(Line::styled(
            "  (the listing stopped at its cap; type more of the path)",
            Style::new().fg(Color::DarkGray),
        ));
    }
    out
}

/// One line per mention that will not be sent, saying why.
pub fn notes(refused: &[(String, MentionState)], width: u16) -> Vec<Line<'static>> {
    refused
        .iter()
        .map(|(path, state)| {
            let text = truncate(
                &format!("@{path}: {}", state.describe()),
                usize::from(width).saturating_sub(2),
            );
            Line::styled(format!("  {text}"), Style::new().fg(Color::Yellow))
        })
        .collect()
}
