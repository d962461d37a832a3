//! The window of a resumed session: the tail of its log, not all of it.
//!
//! A long log is read from its end until the window has what it needs
//! (`AgentSession::load_recent`), so resuming takes the same time however
//! long the log is. Steps between the latest summary and the loaded tail
//! are not loaded and not summarised; a runtime note in the window's
//! summary says so, and `recall_search` / `recall_indexed` still reach them.

use super::{folded, pinned};
use crate::protocol::{AgentEvent, Meta};

/// The window made of the latest summary (if any), the loaded tail, and,
/// when steps between them were left out (`skipped_through` is the last of
/// them), a note about those steps in the summary that opens the window.
pub fn window(
    summary: Option<AgentEvent>,
    skipped_through: Option<Meta>,
    tail: Vec<AgentEvent>,
) -> Vec<AgentEvent> {
    let Some(through) = skipped_through else {
        return summary.into_iter().chain(tail).collect();
    };
    let (previous, from_turn) = match &summary {
        Some(AgentEvent::AgentSummary {
            text,
            covers_through,
            ..
        }) => (text.as_str(), covers_through.turn.max(1)),
        _ => ("", 1),
    };
    let parts = folded::split(previous);
    let mut note = parts.note.trim_end().to_string();
    if !note.is_empty() {
        note.push_str("\n\n");
    }
    note.push_str(&gap_note(from_turn, through));
    let text = pinned::join(
        folded::render(&note, &parts.entries, parts.omitted, u64::MAX),
        pinned::split_off(previous).1,
    );
    let opening = AgentEvent::AgentSummary {
        text,
        covers_through: through,
        meta: through,
    };
    std::iter::once(opening).chain(tail).collect()
}

fn gap_note(from_turn: u64, through: Meta) -> String {
    let turns = if from_turn >= through.turn {
        format!("turn {}", through.turn)
    } else {
        format!("turns {from_turn}–{}", through.turn)
    };
    format!(
        "[runtime note: {turns} of this session (through step {} of turn {}) were not loaded into the context so that it fits the model's window, and were not summarised. Nothing is lost: recall_search({{ query, tool, path }}) finds their tool calls and recall_indexed({{ id }}) returns any result.]",
        through.step, through.turn
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::InputSource;

    fn input(turn: u64) -> AgentEvent {
        AgentEvent::Input {
            images: Vec::new(),
            text: format!("q{turn}"),
            source: InputSource::User,
            meta: Meta::new(turn, 1),
        }
    }

    #[test]
    fn without_a_gap_the_window_is_the_summary_and_the_tail() {
        let summary = AgentEvent::AgentSummary {
            text: "note".into(),
            covers_through: Meta::new(3, 2),
            meta: Meta::new(5, 1),
        };
        let window = window(Some(summary.clone()), None, vec![input(4)]);
        assert_eq!(window, vec![summary, input(4)]);
    }

    #[test]
    fn a_gap_is_named_in_the_opening_summary_that_keeps_the_previous_note() {
        let summary = AgentEvent::AgentSummary {
            text: format!(
                "<historyNote>old</historyNote>\n\n{}\n- id=c1 tool=grep\n",
                folded::MARKER
            ),
            covers_through: Meta::new(3, 2),
            meta: Meta::new(4, 1),
        };
        let window = window(Some(summary), Some(Meta::new(900, 2)), vec![input(901)]);
        let AgentEvent::AgentSummary {
            text,
            covers_through,
            ..
        } = &window[0]
        else {
            panic!("{window:?}")
        };
        assert_eq!(*covers_through, Meta::new(900, 2));
        assert!(text.starts_with("<historyNote>old</historyNote>"));
        assert!(text.contains("turns 3–900") && text.contains("recall_search"));
        assert!(text.contains("- id=c1 tool=grep"));
        assert_eq!(window[1], input(901));
    }
}
