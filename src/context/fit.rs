//! Fitting the window into the request budget, by construction.
//!
//! After [`compress`](super::compress) (cold steps shrunk, hot verbatim), if
//! the history is still over its budget, in this order:
//! 1. hot tool results are indexed too, oldest first, so the newest stays
//!    whole as far as it fits (a placeholder otherwise);
//! 2. hot thoughts are dropped, oldest first;
//! 3. the largest remaining texts are shortened (start and end kept, the
//!    cut said), largest first;
//! 4. the oldest steps are dropped, never the summary or the last step.
//!
//! Nothing here changes the log: every original stays recallable.

use super::compress::{self, INDEX_MIN_CHARS};
use super::estimate::{self, Counter};
use super::folded;
use crate::protocol::{AgentEvent, ToolCall};

/// Texts are never shortened below this many tokens.
const MIN_SHORTENED_TOKENS: u64 = 64;

/// History that fits a budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// Events to send, in log order.
    pub events: Vec<AgentEvent>,
    /// Their estimated tokens ([`Counter::event`] summed).
    pub tokens: u64,
}

/// `events` (already compressed) fitted into `budget` tokens as `counter`
/// counts them; `window` is where the calls' intents are looked up.
pub fn fit(
    window: &[AgentEvent],
    mut events: Vec<AgentEvent>,
    budget: u64,
    counter: Counter,
) -> Fitted {
    let mut costs: Vec<u64> = events.iter().map(|e| counter.event(e)).collect();
    let mut total: u64 = costs.iter().sum();
    let hot_from = compress::hot_boundary(&events);
    let calls = compress::calls_by_id(window);

    // 1. Hot results, oldest first.
    for index in hot_from..events.len() {
        if total <= budget {
            break;
        }
        if let AgentEvent::ToolResult { outcome, meta } = &events[index]
            && outcome.result.chars().count() > INDEX_MIN_CHARS
        {
            let replaced = AgentEvent::ToolResult {
                outcome: compress::indexed(outcome, &calls),
                meta: *meta,
            };
            replace(
                &mut events,
                &mut costs,
                &mut total,
                index,
                replaced,
                counter,
            );
        }
    }
    // 2. Hot thoughts, oldest first.
    let mut dropped = vec![false; events.len()];
    for index in hot_from..events.len() {
        if total <= budget {
            break;
        }
        if matches!(events[index], AgentEvent::Thought { .. }) {
            total -= costs[index];
            dropped[index] = true;
        }
    }
    if dropped.contains(&true) {
        let mut keep = dropped.iter().map(|d| !d);
        events.retain(|_| keep.next().unwrap_or(true));
        let mut keep = dropped.iter().map(|d| !d);
        costs.retain(|_| keep.next().unwrap_or(true));
    }
    // 3. The largest texts, largest first.
    while total > budget {
        let Some((index, &cost)) = costs.iter().enumerate().max_by_key(|(_, c)| **c) else {
            break;
        };
        let excess = total - budget;
        let target = cost.saturating_sub(excess).max(MIN_SHORTENED_TOKENS);
        if target >= cost {
            break;
        }
        let shortened = shorten_event(&events[index], target, counter);
        let new_cost = counter.event(&shortened);
        if new_cost >= cost {
            break;
        }
        replace(
            &mut events,
            &mut costs,
            &mut total,
            index,
            shortened,
            counter,
        );
    }
    // 4. The oldest steps, keeping the summary and the last step.
    while total > budget {
        let last_meta = events.last().map(AgentEvent::meta);
        let Some(first) = events
            .iter()
            .position(|e| !matches!(e, AgentEvent::AgentSummary { .. }))
        else {
            break;
        };
        let meta = events[first].meta();
        if Some(meta) == last_meta {
            break;
        }
        let mut index = first;
        while index < events.len() && events[index].meta() == meta {
            if matches!(events[index], AgentEvent::AgentSummary { .. }) {
                index += 1;
                continue;
            }
            total -= costs.remove(index);
            events.remove(index);
        }
    }
    Fitted {
        events,
        tokens: total,
    }
}

/// Tokens of the smallest form [`fit`] steps 1 and 2 can give `events`
/// (every long hot result indexed, hot thoughts dropped): what is left when
/// the hot steps give way, i.e. what only a summary can reduce.
pub fn minimal_tokens(window: &[AgentEvent], events: &[AgentEvent], counter: Counter) -> u64 {
    let hot_from = compress::hot_boundary(events);
    let calls = compress::calls_by_id(window);
    events
        .iter()
        .enumerate()
        .map(|(index, event)| match event {
            AgentEvent::Thought { .. } if index >= hot_from => 0,
            AgentEvent::ToolResult { outcome, meta }
                if index >= hot_from && outcome.result.chars().count() > INDEX_MIN_CHARS =>
            {
                counter.event(&AgentEvent::ToolResult {
                    outcome: compress::indexed(outcome, &calls),
                    meta: *meta,
                })
            }
            other => counter.event(other),
        })
        .sum()
}

fn replace(
    events: &mut [AgentEvent],
    costs: &mut [u64],
    total: &mut u64,
    index: usize,
    event: AgentEvent,
    counter: Counter,
) {
    let cost = counter.event(&event);
    *total = *total - costs[index] + cost;
    costs[index] = cost;
    events[index] = event;
}

/// `event` with its longest texts shortened to about `target` tokens in all
/// (as `counter` counts).
pub fn shorten_event(event: &AgentEvent, target: u64, counter: Counter) -> AgentEvent {
    let cost = counter.event(event);
    if cost <= target {
        return event.clone();
    }
    // `folded::shorten` counts uncalibrated; a ratio above one shrinks more.
    let scale = counter.ratio().max(1.0);
    let keep = |text: &str| {
        let own = counter.text(text);
        let excess = cost - target;
        let tokens = (own.saturating_sub(excess) as f64 / scale) as u64;
        folded::shorten(text, tokens.max(MIN_SHORTENED_TOKENS / 2))
    };
    let mut out = event.clone();
    match &mut out {
        AgentEvent::Input { text, .. }
        | AgentEvent::Thought { text, .. }
        | AgentEvent::Output { text, .. }
        | AgentEvent::AgentSummary { text, .. } => *text = keep(text),
        AgentEvent::ToolResult { outcome, .. } => outcome.result = keep(&outcome.result),
        AgentEvent::ToolCalls { calls, .. } => {
            // Arguments travel escaped twice: each string gets its share.
            let share = (target as f64 / scale) as u64 / (2 * calls.len().max(1) as u64);
            calls.iter_mut().for_each(|c| shorten_args(c, share));
        }
        AgentEvent::ThoughtDelta { .. }
        | AgentEvent::OutputDelta { .. }
        | AgentEvent::AgentStop { .. }
        | AgentEvent::AgentTrace { .. } => {}
    }
    out
}

/// Shortens the long strings in a call's arguments, keeping it valid JSON.
fn shorten_args(call: &mut ToolCall, max_tokens: u64) {
    fn walk(value: &mut serde_json::Value, max_tokens: u64) {
        match value {
            serde_json::Value::String(s) if estimate::text_tokens(s) > max_tokens => {
                *s = folded::shorten(s, max_tokens.max(MIN_SHORTENED_TOKENS / 2));
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| walk(v, max_tokens)),
            serde_json::Value::Object(map) => map.values_mut().for_each(|v| walk(v, max_tokens)),
            _ => {}
        }
    }
    walk(&mut call.args, max_tokens);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{InputSource, Meta, ToolOutcome};
    use serde_json::json;

    fn tool_step(step: u32, id: &str, chars: usize) -> Vec<AgentEvent> {
        let meta = Meta::new(1, step);
        vec![
            AgentEvent::Thought {
                text: "t".repeat(400),
                meta,
            },
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: id.into(),
                    name: "read_file".into(),
                    args: json!({"path": "a.rs", "_intent": format!("why {id}")}),
                }],
                meta,
            },
            AgentEvent::ToolResult {
                outcome: ToolOutcome {
                    id: id.into(),
                    name: "read_file".into(),
                    result: "r".repeat(chars),
                    is_error: false,
                    display: None,
                },
                meta,
            },
        ]
    }

    fn result<'a>(events: &'a [AgentEvent], id: &str) -> Option<&'a str> {
        events.iter().find_map(|e| match e {
            AgentEvent::ToolResult { outcome, .. } if outcome.id == id => {
                Some(outcome.result.as_str())
            }
            _ => None,
        })
    }

    #[test]
    fn under_budget_nothing_changes() {
        let window = [tool_step(1, "a", 2_000), tool_step(2, "b", 2_000)].concat();
        let fitted = fit(&window, window.clone(), 100_000, Counter::UNCALIBRATED);
        assert_eq!(fitted.events, window);
    }

    #[test]
    fn older_hot_results_are_indexed_first_and_the_newest_kept_whole_if_it_fits() {
        let window = [tool_step(1, "a", 8_000), tool_step(2, "b", 8_000)].concat();
        let fitted = fit(&window, window.clone(), 2_600, Counter::UNCALIBRATED);
        assert!(fitted.tokens <= 2_600);
        assert!(
            result(&fitted.events, "a")
                .unwrap()
                .starts_with("[what]: indexed_tool_result id=a")
        );
        assert_eq!(result(&fitted.events, "b").unwrap().len(), 8_000);
        assert_eq!(
            fitted.tokens,
            fitted
                .events
                .iter()
                .map(estimate::event_tokens)
                .sum::<u64>()
        );
    }

    #[test]
    fn a_newest_result_too_large_for_the_budget_becomes_a_placeholder() {
        let window = [tool_step(1, "a", 8_000), tool_step(2, "b", 30_000)].concat();
        let fitted = fit(&window, window.clone(), 3_000, Counter::UNCALIBRATED);
        assert!(fitted.tokens <= 3_000, "{}", fitted.tokens);
        assert!(result(&fitted.events, "b").unwrap().contains("chars=30000"));
    }

    #[test]
    fn any_budget_is_met_down_to_the_last_step_shortened() {
        let mut window = [tool_step(1, "a", 8_000), tool_step(2, "b", 8_000)].concat();
        window.push(AgentEvent::Input {
            images: Vec::new(),
            text: "q".repeat(20_000),
            source: InputSource::User,
            meta: Meta::new(2, 1),
        });
        for budget in [300, 1_000, 2_000, 5_000] {
            let fitted = fit(&window, window.clone(), budget, Counter::UNCALIBRATED);
            assert!(fitted.tokens <= budget, "{budget}: {}", fitted.tokens);
            assert_eq!(
                fitted.tokens,
                fitted
                    .events
                    .iter()
                    .map(estimate::event_tokens)
                    .sum::<u64>()
            );
        }
    }
}
