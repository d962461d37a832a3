//! `recall_indexed`: the full stored result of an earlier tool call, in
//! pages when it is larger than the context can hold.
//!
//! It reads the session log, so results folded into a summary stay
//! recallable. Without a session it reads the results this agent produced.
//! A result longer than one page comes back in pages, each opened by a
//! one-line `[recall page: …]` header naming the next offset; the pages'
//! bodies concatenated are the original, byte for byte.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::RecallPage;
use crate::protocol::AgentEvent;
use crate::session::{AgentSession, CallRecord};
use crate::tool::{Tool, ToolContext, ToolOutput};

const DESCRIPTION: &str = "The full body of an `indexed_tool_result` placeholder, page by page.";

/// Arguments of `recall_indexed`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RecallArgs {
    /// From `id=<id>` in the placeholder.
    pub id: String,
    /// From a `[recall page: …]` line.
    #[serde(default)]
    pub offset: Option<u64>,
}

/// What is recalled without a session.
#[derive(Default)]
pub(super) struct Memory {
    pub(super) results: HashMap<String, String>,
    pub(super) calls: Vec<CallRecord>,
}

/// The `recall_indexed` tool, registered by every [`crate::agent::Agent`].
#[derive(Clone)]
pub struct RecallTool {
    pub(super) session: Option<AgentSession>,
    memory: Arc<Mutex<Memory>>,
    page: Arc<Mutex<RecallPage>>,
}

impl RecallTool {
    /// Recall from `session`, or from memory when there is none.
    pub fn new(session: Option<AgentSession>) -> Self {
        Self {
            session,
            memory: Arc::default(),
            page: Arc::default(),
        }
    }

    /// Sets how large one page may be (what the context can hold whole).
    pub(super) fn set_page(&self, page: RecallPage) {
        *self.page.lock().unwrap_or_else(|p| p.into_inner()) = page;
    }

    /// How large one page may be.
    pub(super) fn page_size(&self) -> RecallPage {
        *self.page.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The characters of one page at most.
    pub(super) fn page_chars(&self) -> usize {
        self.page_size().chars
    }

    /// Keeps calls and results for recall when there is no session to read
    /// them from.
    pub(super) fn remember(&self, event: &AgentEvent) {
        if self.session.is_some() {
            return;
        }
        let mut memory = self.lock();
        match event {
            AgentEvent::ToolCalls { calls, meta } => memory.calls.extend(calls.iter().map(|c| {
                CallRecord {
                    id: c.id.clone(),
                    tool: c.name.clone(),
                    path: c
                        .args
                        .get("path")
                        .and_then(|p| p.as_str())
                        .map(str::to_owned),
                    intent: c.intent().map(str::to_owned),
                    turn: meta.turn,
                    step: meta.step,
                    result_chars: None,
                    is_error: false,
                }
            })),
            AgentEvent::ToolResult { outcome, .. } => {
                let chars = outcome.result.chars().count() as u64;
                if let Some(call) = memory.calls.iter_mut().rev().find(|c| c.id == outcome.id) {
                    call.result_chars = Some(chars);
                    call.is_error = outcome.is_error;
                }
                memory
                    .results
                    .insert(outcome.id.clone(), outcome.result.clone());
            }
            _ => {}
        }
    }

    pub(super) fn remember_all(&self, events: &[AgentEvent]) {
        events.iter().for_each(|e| self.remember(e));
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.memory
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The page of `result` starting at character `offset`: the whole result
/// when it fits one page, else a `[recall page: …]` line and the slice —
/// at most `size.chars` characters, cut shorter while the slice counts
/// more than `size.tokens` (dense text).
fn page(id: &str, result: &str, offset: u64, size: RecallPage) -> Result<String, String> {
    let chars = result.chars().count();
    let offset = usize::try_from(offset).unwrap_or(usize::MAX);
    let fits = |text: &str| size.counter.text(text) <= size.tokens;
    if offset == 0 && chars <= size.chars && fits(result) {
        return Ok(result.to_string());
    }
    if offset >= chars {
        return Err(format!(
            "[what]: offset {offset} is past the end of result `{id}` ({chars} characters)\n[how]: pass an offset below {chars}, or none for the start"
        ));
    }
    let byte = |at: usize| {
        result
            .char_indices()
            .nth(at)
            .map_or(result.len(), |(b, _)| b)
    };
    let start = byte(offset);
    let mut end = (offset + size.chars).min(chars);
    if !fits(&result[start..byte(end)]) {
        // The longest slice that fits, by bisection (at least one character).
        let (mut low, mut high) = (offset + 1, end);
        while low < high {
            let middle = (low + high).div_ceil(2);
            if fits(&result[start..byte(middle)]) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        end = low;
    }
    let next = if end < chars {
        format!("next page: recall_indexed({{ id: \"{id}\", offset: {end} }})")
    } else {
        "this is the last page".to_string()
    };
    Ok(format!(
        "[recall page: characters {offset}–{end} of {chars} of result {id}; {next}]\n{}",
        &result[start..byte(end)]
    ))
}

impl Tool for RecallTool {
    type Args = RecallArgs;

    fn name(&self) -> &str {
        "recall_indexed"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn asks_intent(&self) -> bool {
        false
    }

    async fn execute(&self, args: RecallArgs, _ctx: ToolContext) -> ToolOutput {
        let id = args.id.trim();
        if id.is_empty() {
            return ToolOutput::error(
                "[what]: invalid recall id\n[how]: copy the id from `id=<id>` in a placeholder",
            );
        }
        let found = match &self.session {
            Some(session) => match session.tool_result(id).await {
                Ok(found) => found.map(|o| o.result),
                Err(e) => {
                    return ToolOutput::error(format!(
                        "[what]: reading the session log failed\n[why]: {e}"
                    ));
                }
            },
            None => self.lock().results.get(id).cloned(),
        };
        match found {
            Some(result) => match page(id, &result, args.offset.unwrap_or(0), self.page_size()) {
                Ok(text) => ToolOutput::ok(text),
                Err(message) => ToolOutput::error(message),
            },
            None => ToolOutput::error(format!(
                "[what]: no stored tool result has id `{id}`\n[how]: copy the id exactly from a placeholder's `id=` field or a summary's folded-call list"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::context::RecallPage;

    fn body(page: &str) -> &str {
        if page.starts_with("[recall page:") {
            page.split_once('\n').map_or("", |(_, b)| b)
        } else {
            page
        }
    }

    #[test]
    fn pages_concatenate_to_the_original_byte_for_byte() {
        let original: String = (0..3_000).map(|i| format!("é{i}\n")).collect();
        let chars = original.chars().count();
        let mut offset = 0;
        let mut joined = String::new();
        let mut pages = 0;
        loop {
            let text = page("c1", &original, offset, by_chars(1_000)).unwrap();
            joined.push_str(body(&text));
            pages += 1;
            match text.split_once("offset: ") {
                Some((_, rest)) => offset = rest.split(' ').next().unwrap().parse().unwrap(),
                None => break,
            }
        }
        assert_eq!(joined, original);
        assert_eq!(pages, chars.div_ceil(1_000));
    }

    #[test]
    fn a_result_that_fits_one_page_comes_back_as_it_is() {
        assert_eq!(page("c1", "short", 0, by_chars(1_000)).unwrap(), "short");
        assert!(page("c1", "short", 9, by_chars(1_000)).is_err());
    }

    fn by_chars(chars: usize) -> RecallPage {
        RecallPage {
            chars,
            tokens: u64::MAX,
            ..RecallPage::default()
        }
    }

    #[test]
    fn dense_text_makes_a_page_shorter_but_never_over_its_tokens() {
        let dense = "aB3dE6gH9jK2mN5pQ8".repeat(500);
        let size = RecallPage {
            chars: 4_000,
            tokens: 500,
            ..RecallPage::default()
        };
        let text = page("c1", &dense, 0, size).unwrap();
        let body = body(&text);
        assert!(size.counter.text(body) <= 500, "{}", body.len());
        assert!(body.len() > 400 && body.len() < 4_000, "{}", body.len());
    }
}
