//! A session as a readable markdown transcript (`/export`, `light-agent show`).

use std::fmt::Write as _;

use super::{Rewind, SessionInfo};
use crate::protocol::{AgentEvent, StopCause};

/// A readable markdown transcript of a session's whole log; the turns a
/// rewind hid are headed "(rewound)".
pub fn to_markdown(info: &SessionInfo, events: &[AgentEvent], rewinds: &[Rewind]) -> String {
    let mut out = markdown_header(info);
    for event in events {
        let rewound = rewinds.iter().any(|r| r.hides(event.meta().turn));
        push_event(&mut out, event, rewound);
    }
    out
}

/// The transcript's title lines.
pub fn markdown_header(info: &SessionInfo) -> String {
    format!(
        "# {}\n\n`{}` · {}\n",
        info.title.as_deref().unwrap_or("(untitled)"),
        info.id,
        info.cwd.display()
    )
}

/// Appends the event of the log at `seq`: a turn a rewind hid is headed
/// "(rewound)", and a rewind that happened after this event is marked
/// below it. Nothing is left out: the log keeps rewound turns.
pub fn push_logged(out: &mut String, seq: u64, event: &AgentEvent, rewinds: &[Rewind]) {
    let rewound = rewinds.iter().any(|r| r.hides(event.meta().turn));
    push_event(out, event, rewound);
    for r in rewinds.iter().filter(|r| r.at_seq == seq) {
        let _ = write!(
            out,
            "\n_rewound to before turn {}: turns {}–{} left the conversation (kept here)_\n",
            r.from_turn, r.from_turn, r.through_turn
        );
    }
}

fn push_event(out: &mut String, event: &AgentEvent, rewound: bool) {
    match event {
        AgentEvent::Input {
            text, meta, images, ..
        } => {
            let text = crate::protocol::text_with_images(text, images);
            let mark = if rewound { " (rewound)" } else { "" };
            let _ = write!(
                out,
                "\n## Turn {}{mark}\n\n> {}\n",
                meta.turn,
                text.replace('\n', "\n> ")
            );
        }
        AgentEvent::Thought { text, .. } if !text.is_empty() => {
            let _ = write!(
                out,
                "\n<details><summary>thought</summary>\n\n{text}\n\n</details>\n"
            );
        }
        AgentEvent::Output { text, .. } => {
            let _ = write!(out, "\n{text}\n");
        }
        AgentEvent::ToolCalls { calls, .. } => {
            for call in calls {
                let intent = call.intent().map(|i| format!(" — {i}")).unwrap_or_default();
                let _ = write!(
                    out,
                    "\n**{}**{intent}\n\n```json\n{}\n```\n",
                    call.name, call.args
                );
            }
        }
        AgentEvent::ToolResult { outcome, .. } => {
            let mark = if outcome.is_error { "✗" } else { "✓" };
            let _ = write!(
                out,
                "\n{mark} `{}` result:\n\n```\n{}\n```\n",
                outcome.name, outcome.result
            );
        }
        AgentEvent::AgentStop { cause, message, .. } if *cause != StopCause::Done => {
            let _ = write!(out, "\n_stopped ({cause:?}): {message}_\n");
        }
        AgentEvent::AgentSummary { .. } => out.push_str("\n_older steps were summarised here_\n"),
        _ => {}
    }
}
