//! `recall_search`: finds earlier tool calls of this session by words of
//! their intent, their tool or their path, so that ids no summary lists any
//! more can still be recalled. Answered from the session's call index
//! (SQLite); without a session, from the calls this agent made.

use schemars::JsonSchema;
use serde::Deserialize;
use std::fmt::Write as _;

use super::recall::RecallTool;
use crate::session::{CallPage, CallQuery, CallRecord};
use crate::tool::{Tool, ToolContext, ToolOutput};

const DESCRIPTION: &str =
    "Find earlier calls of this session by words of their intent, path or tool.";

/// Characters one listed call may take.
const LINE_CHARS: usize = 240;

/// Arguments of `recall_search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RecallSearchArgs {
    /// Words of the intent, path or tool.
    #[schemars(transform = crate::tool::unexplained)]
    #[serde(default)]
    pub query: Option<String>,
    /// Only this tool's calls.
    #[schemars(transform = crate::tool::unexplained)]
    #[serde(default)]
    pub tool: Option<String>,
    /// Only paths containing this.
    #[schemars(transform = crate::tool::unexplained)]
    #[serde(default)]
    pub path: Option<String>,
    /// From 1.
    #[serde(default)]
    pub page: Option<u32>,
}

/// The `recall_search` tool; shares its store with [`RecallTool`].
#[derive(Clone)]
pub struct RecallSearchTool {
    recall: RecallTool,
}

impl RecallSearchTool {
    /// Searches where `recall` recalls from.
    pub fn new(recall: RecallTool) -> Self {
        Self { recall }
    }

    /// Calls listed per page: as many as a recall page holds, 5 to 50.
    fn per_page(&self) -> usize {
        (self.recall.page_chars() / LINE_CHARS).clamp(5, 50)
    }
}

fn matches(call: &CallRecord, query: &CallQuery) -> bool {
    let contains = |field: Option<&str>, needle: &str| {
        field.is_some_and(|f| f.to_lowercase().contains(&needle.to_lowercase()))
    };
    query.tool.as_ref().is_none_or(|t| *t == call.tool)
        && query
            .path
            .as_ref()
            .is_none_or(|p| contains(call.path.as_deref(), p))
        && query.words.iter().all(|w| {
            contains(call.intent.as_deref(), w)
                || contains(call.path.as_deref(), w)
                || contains(Some(&call.tool), w)
                || contains(Some(&call.id), w)
        })
}

impl Tool for RecallSearchTool {
    type Args = RecallSearchArgs;

    fn name(&self) -> &str {
        "recall_search"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn asks_intent(&self) -> bool {
        false
    }

    async fn execute(&self, args: RecallSearchArgs, _ctx: ToolContext) -> ToolOutput {
        let per_page = self.per_page();
        let page = args.page.unwrap_or(1).max(1) as usize;
        let blank = |s: Option<String>| s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        let query = CallQuery {
            words: args
                .query
                .as_deref()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            tool: blank(args.tool),
            path: blank(args.path),
            offset: (page - 1) * per_page,
            limit: per_page,
        };
        let found = match &self.recall.session {
            Some(session) => match session.search_calls(query.clone()).await {
                Ok(found) => found,
                Err(e) => {
                    return ToolOutput::error(format!(
                        "[what]: reading the session log failed\n[why]: {e}"
                    ));
                }
            },
            None => {
                let memory = self.recall.lock();
                let all: Vec<&CallRecord> = memory
                    .calls
                    .iter()
                    .rev()
                    .filter(|c| matches(c, &query))
                    .collect();
                CallPage {
                    total: all.len() as u64,
                    calls: all
                        .into_iter()
                        .skip(query.offset)
                        .take(query.limit)
                        .cloned()
                        .collect(),
                }
            }
        };
        ToolOutput::ok(render(&found, page, per_page))
    }
}

fn render(found: &CallPage, page: usize, per_page: usize) -> String {
    if found.calls.is_empty() {
        return if found.total == 0 {
            "[what]: no tool call of this session matches\n[how]: use fewer or other words, or drop the tool/path filter".to_string()
        } else {
            format!(
                "[what]: page {page} is past the end: {} calls match",
                found.total
            )
        };
    }
    let first = (page - 1) * per_page + 1;
    let last = first + found.calls.len() - 1;
    let mut out = format!(
        "[what]: matching tool calls {first}–{last} of {}, newest first\n",
        found.total
    );
    for call in &found.calls {
        let mut line = format!("- id={} tool={} turn={}", call.id, call.tool, call.turn);
        if let Some(path) = &call.path {
            let _ = write!(line, " path={path}");
        }
        match call.result_chars {
            Some(chars) if call.is_error => {
                let _ = write!(line, " result=error ({chars} chars)");
            }
            Some(chars) => {
                let _ = write!(line, " result={chars} chars");
            }
            None => line.push_str(" result=none"),
        }
        if let Some(intent) = &call.intent {
            let _ = write!(line, " intent: {}", intent.replace('\n', " "));
        }
        let line: String = line.chars().take(LINE_CHARS).collect();
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("[how]: recall_indexed({ id }) returns a result");
    if (last as u64) < found.total {
        let _ = write!(out, "; more: the same search with page: {}", page + 1);
    }
    out
}
