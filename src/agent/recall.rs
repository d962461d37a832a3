//! `recall_indexed`: the full stored result of an earlier tool call, in
//! pages when it is larger than the context can hold.
//!
//! It reads the session log, so results folded into a summary stay
//! recallable. Without a session it reads the results this agent produced.
//! A result longer than one page comes back in pages, each opened by a
//! one-line `[recall page: …]` header naming the next offset; the pages'
//! bodies concatenated are the original, byte for byte.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::protocol::AgentEvent;
use crate::session::{AgentSession, CallRecord};
use crate::tool::{Tool, ToolContext, ToolOutput};

const DESCRIPTION: &str = "The full body of a call shown as an `indexed_tool_result` placeholder, in pages (`[recall page: …]` names the next offset).";

/// Characters of a page until the agent sets the real size.
const DEFAULT_PAGE_CHARS: usize = 16_000;

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
    page_chars: Arc<AtomicUsize>,
}

impl RecallTool {
    /// Recall from `session`, or from memory when there is none.
    pub fn new(session: Option<AgentSession>) -> Self {
        Self {
            session,
            memory: Arc::default(),
            page_chars: Arc::new(AtomicUsize::new(DEFAULT_PAGE_CHARS)),
        }
    }

    /// Sets the characters of one page (what the context can hold whole).
    pub(super) fn set_page_chars(&self, chars: usize) {
        self.page_chars.store(chars.max(1), Ordering::Relaxed);
    }

    /// The characters of one page.
    pub(super) fn page_chars(&self) -> usize {
        self.page_chars.load(Ordering::Relaxed)
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
/// when it fits one page, else a `[recall page: …]` line and the slice.
fn page(id: &str, result: &str, offset: u64, page_chars: usize) -> Result<String, String> {
    let chars = result.chars().count();
    let offset = usize::try_from(offset).unwrap_or(usize::MAX);
    if offset == 0 && chars <= page_chars {
        return Ok(result.to_string());
    }
    if offset >= chars {
        return Err(format!(
            "[what]: offset {offset} is past the end of result `{id}` ({chars} characters)\n[how]: pass an offset below {chars}, or none for the start"
        ));
    }
    let end = (offset + page_chars).min(chars);
    let byte = |at: usize| {
        result
            .char_indices()
            .nth(at)
            .map_or(result.len(), |(b, _)| b)
    };
    let next = if end < chars {
        format!("next page: recall_indexed({{ id: \"{id}\", offset: {end} }})")
    } else {
        "this is the last page".to_string()
    };
    Ok(format!(
        "[recall page: characters {offset}–{end} of {chars} of result {id}; {next}]\n{}",
        &result[byte(offset)..byte(end)]
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
            Some(result) => match page(id, &result, args.offset.unwrap_or(0), self.page_chars()) {
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
            let text = page("c1", &original, offset, 1_000).unwrap();
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
        assert_eq!(page("c1", "short", 0, 1_000).unwrap(), "short");
        assert!(page("c1", "short", 9, 1_000).is_err());
    }
}
