//! The bounded index of folded calls that a summary carries.
//!
//! Every folded call stays recallable by id from the log; what the summary
//! lists about them is a budget (a share of the window), newest first. Calls
//! that no longer fit are counted, and `recall_search` finds them.

use std::fmt::Write as _;

use super::estimate;
use crate::protocol::{AgentEvent, ToolCall};

/// Marks the runtime-made list of folded calls inside a summary's text.
pub const MARKER: &str = "[folded tool calls, newest first: recall any of them with recall_indexed({ id }); recall_search({ query, tool, path }) finds any call of this session]";
/// The marker of summaries written before the list was bounded (oldest first).
const OLD_MARKER: &str = "[folded tool calls: recall any of them with recall_indexed({ id })]";
/// Starts the line that counts the calls left out of the list.
const OMITTED_PREFIX: &str = "[older folded calls not listed: ";
/// Characters of an intent quoted in one entry.
const INTENT_CHARS: usize = 160;
/// Tools whose calls are not listed: their results copy other results.
const UNLISTED_TOOLS: &[&str] = &["recall_indexed", "recall_search"];

/// A summary's text taken apart.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parts<'a> {
    /// The model's note.
    pub note: &'a str,
    /// Listed calls, newest first, one line each.
    pub entries: Vec<&'a str>,
    /// Calls folded earlier but no longer listed.
    pub omitted: u64,
}

/// Splits a summary's text into the note, the listed calls and the count of
/// calls left out. Reads both the bounded list and the older unbounded one.
pub fn split(text: &str) -> Parts<'_> {
    // The kept section is not the model's note (see `pinned`).
    let (text, _) = super::pinned::split_off(text);
    let (note, list, newest_first) = if let Some(at) = text.find(MARKER) {
        (&text[..at], &text[at + MARKER.len()..], true)
    } else if let Some(at) = text.find(OLD_MARKER) {
        (&text[..at], &text[at + OLD_MARKER.len()..], false)
    } else {
        return Parts {
            note: text,
            ..Parts::default()
        };
    };
    let mut omitted = 0;
    let mut entries = Vec::new();
    for line in list.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line.strip_prefix(OMITTED_PREFIX) {
            Some(rest) => {
                omitted += rest
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or(0);
            }
            None if line.starts_with("- id=") => entries.push(line),
            None => {}
        }
    }
    if !newest_first {
        entries.reverse();
    }
    Parts {
        note: note.trim_end(),
        entries,
        omitted,
    }
}

/// One line per listed call of `events`, newest first.
pub fn entries(events: &[AgentEvent]) -> Vec<String> {
    let mut out: Vec<String> = events
        .iter()
        .flat_map(|e| match e {
            AgentEvent::ToolCalls { calls, .. } => calls.as_slice(),
            _ => &[],
        })
        .filter(|c| !UNLISTED_TOOLS.contains(&c.name.as_str()))
        .map(entry)
        .collect();
    out.reverse();
    out
}

fn entry(call: &ToolCall) -> String {
    let mut line = format!("- id={} tool={}", call.id, call.name);
    if let Some(path) = call.args.get("path").and_then(|p| p.as_str()) {
        let path: String = path.chars().take(INTENT_CHARS).collect();
        let _ = write!(line, " path={path}");
    }
    if let Some(intent) = call.intent() {
        let intent: String = intent.chars().take(INTENT_CHARS).collect();
        let _ = write!(line, " intent: {}", intent.replace('\n', " "));
    }
    line
}

/// The summary text: `note`, then as many of `entries` (newest first) as fit
/// in `budget_tokens`, then the count of those left out.
pub fn render<S: AsRef<str>>(
    note: &str,
    entries: &[S],
    omitted: u64,
    budget_tokens: u64,
) -> String {
    let mut text = note.trim_end().to_string();
    if entries.is_empty() && omitted == 0 {
        return text;
    }
    let _ = write!(text, "\n\n{MARKER}\n");
    // The marker and the omitted line are part of the budget.
    let mut used = estimate::text_tokens(MARKER) + 24;
    let mut listed = 0;
    for line in entries {
        let cost = estimate::text_tokens(line.as_ref());
        if used + cost > budget_tokens {
            break;
        }
        used += cost;
        text.push_str(line.as_ref());
        text.push('\n');
        listed += 1;
    }
    let left_out = omitted + (entries.len() - listed) as u64;
    if left_out > 0 {
        let _ = writeln!(
            text,
            "{OMITTED_PREFIX}{left_out}; recall_search finds them]"
        );
    }
    text
}

/// `text` cut to about `max_tokens`, keeping its start and its end (the
/// newest state) and saying how much was left out.
pub fn shorten(text: &str, max_tokens: u64) -> String {
    if estimate::text_tokens(text) <= max_tokens {
        return text.to_string();
    }
    // Escaping can double a byte; keep half the budget's bytes on each side.
    let keep = (max_tokens as usize * 4 / 2).saturating_sub(64) / 2;
    let head_end = floor_char_boundary(text, keep);
    let tail_start = ceil_char_boundary(text, text.len().saturating_sub(keep)).max(head_end);
    let left_out = text[head_end..tail_start].chars().count();
    format!(
        "{}\n[… {left_out} characters left out to fit the context window …]\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// A summary's text held to `note_tokens` for the note and `index_tokens`
/// for the list (summaries from before the list was bounded can be huge).
pub fn bound_summary(text: &str, note_tokens: u64, index_tokens: u64) -> String {
    if estimate::text_tokens(text) <= note_tokens + index_tokens {
        return text.to_string();
    }
    let parts = split(text);
    let bounded = render(
        &shorten(parts.note, note_tokens),
        &parts.entries,
        parts.omitted,
        index_tokens,
    );
    super::pinned::join(bounded, super::pinned::split_off(text).1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_keeps_the_newest_entries_within_its_budget_and_counts_the_rest() {
        let entries: Vec<String> = (0..1_000)
            .rev()
            .map(|i| format!("- id=call_{i} tool=grep intent: look for thing {i}"))
            .collect();
        let text = render("<historyNote>n</historyNote>", &entries, 7, 400);
        assert!(estimate::text_tokens(&text) <= 400 + 20, "{}", text.len());
        assert!(text.contains("id=call_999 "), "newest first");
        assert!(!text.contains("id=call_0 "));
        let parts = split(&text);
        assert_eq!(parts.note, "<historyNote>n</historyNote>");
        assert_eq!(
            parts.entries[0],
            "- id=call_999 tool=grep intent: look for thing 999"
        );
        assert_eq!(parts.omitted as usize, 7 + 1_000 - parts.entries.len());
    }

    #[test]
    fn an_old_unbounded_summary_is_bounded_newest_first() {
        let mut old = format!("<historyNote>old</historyNote>\n\n{OLD_MARKER}\n");
        for i in 0..5_000 {
            old.push_str(&format!("- id=call_{i} tool=read_file intent: read {i}\n"));
        }
        let bounded = bound_summary(&old, 100, 300);
        assert!(estimate::text_tokens(&bounded) <= 420);
        assert!(bounded.contains("id=call_4999 ") && !bounded.contains("id=call_1 "));
    }

    #[test]
    fn shorten_keeps_both_ends_on_char_boundaries() {
        let text = format!("START{}END", "é".repeat(10_000));
        let short = shorten(&text, 200);
        assert!(short.starts_with("START") && short.ends_with("END"));
        assert!(estimate::text_tokens(&short) <= 200);
        assert!(short.contains("characters left out"));
    }
}
