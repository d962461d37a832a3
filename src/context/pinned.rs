//! What every summary keeps word for word: the user's latest request and
//! the agent's current plan, when the steps that hold them are folded.
//!
//! The section follows the folded-call index at the end of a summary's
//! text; [`super::folded::split`] takes it off before the note is read, so
//! the summariser never rewrites it and the next summary carries it on.

use crate::protocol::{AgentEvent, InputSource, Plan};

use super::folded;

/// Starts the kept section of a summary's text.
pub const MARKER: &str = "[kept word for word through every summary]";
/// Characters of the request kept (its two ends, when longer).
const REQUEST_TOKENS: u64 = 1_000;

/// The kept section for a summary of `window` whose steps from `hot_from`
/// on stay verbatim, `previous` being the kept section of the summary it
/// replaces ("" when none). Empty when there is nothing to keep.
pub fn section(window: &[AgentEvent], hot_from: usize, previous: &str) -> String {
    let hot = &window[hot_from.min(window.len())..];
    let cold = &window[..hot_from.min(window.len())];
    let request = if hot.iter().any(is_request) {
        None
    } else {
        cold.iter()
            .rev()
            .find_map(|e| match e {
                AgentEvent::Input {
                    text,
                    source: InputSource::User,
                    ..
                } => Some(folded::shorten(text.trim(), REQUEST_TOKENS)),
                _ => None,
            })
            .or_else(|| tagged(previous, "userRequest").map(str::to_string))
    };
    let plan = if Plan::latest(hot).is_some() {
        None
    } else {
        Plan::latest(cold)
            .map(|p| p.render().trim_end().to_string())
            .or_else(|| tagged(previous, "plan").map(str::to_string))
    };
    let mut out = String::new();
    if let Some(request) = request.filter(|r| !r.is_empty()) {
        out.push_str(&format!("<userRequest>\n{request}\n</userRequest>\n"));
    }
    if let Some(plan) = plan.filter(|p| !p.is_empty()) {
        out.push_str(&format!("<plan>\n{plan}\n</plan>\n"));
    }
    if out.is_empty() {
        return out;
    }
    format!("\n\n{MARKER}\n{}", out.trim_end())
}

fn is_request(event: &AgentEvent) -> bool {
    matches!(
        event,
        AgentEvent::Input {
            source: InputSource::User,
            ..
        }
    )
}

/// The text between `<tag>` and `</tag>` in `text`, trimmed.
fn tagged<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = start + text[start..].find(&close)?;
    Some(text[start..end].trim())
}

/// `text` without its kept section, and the section (from the marker on,
/// "" when none).
pub fn split_off(text: &str) -> (&str, &str) {
    match text.find(MARKER) {
        Some(at) => (text[..at].trim_end(), &text[at..]),
        None => (text, ""),
    }
}

/// `text` followed by the kept section `kept` (as [`split_off`] gave it).
pub fn join(text: String, kept: &str) -> String {
    if kept.is_empty() {
        return text;
    }
    format!("{}\n\n{kept}", text.trim_end())
}
