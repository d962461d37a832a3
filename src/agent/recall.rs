//! `recall_indexed`: the full stored result of an earlier tool call.
//!
//! It reads the session log, so results folded into a summary stay
//! recallable. Without a session it reads the results this agent produced.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::protocol::AgentEvent;
use crate::session::AgentSession;
use crate::tool::{Tool, ToolContext, ToolOutput};

const DESCRIPTION: &str = "[what]: returns the full body of a tool result that was moved out of the context and kept in the history index.\n\
[when]: only when the context shows an `[what]: indexed_tool_result` placeholder (or a history summary lists the call) and your current reasoning truly needs the original; if the placeholder's tool and intent clues suffice, do not call it.\n\
[how]: pass the id from the placeholder, e.g. recall_indexed({ id: \"call_1\" }).";

/// Arguments of `recall_indexed`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RecallArgs {
    /// The tool-call id, copied from `id=<id>` in an indexed_tool_result placeholder.
    pub id: String,
}

/// The `recall_indexed` tool, registered by every [`crate::agent::Agent`].
#[derive(Clone)]
pub struct RecallTool {
    session: Option<AgentSession>,
    memory: Arc<Mutex<HashMap<String, String>>>,
}

impl RecallTool {
    /// Recall from `session`, or from memory when there is none.
    pub fn new(session: Option<AgentSession>) -> Self {
        Self {
            session,
            memory: Arc::default(),
        }
    }

    /// Keeps a result for recall when there is no session to read it from.
    pub(super) fn remember(&self, event: &AgentEvent) {
        if self.session.is_some() {
            return;
        }
        if let AgentEvent::ToolResult { outcome, .. } = event {
            self.lock()
                .insert(outcome.id.clone(), outcome.result.clone());
        }
    }

    pub(super) fn remember_all(&self, events: &[AgentEvent]) {
        events.iter().for_each(|e| self.remember(e));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.memory
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
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
            None => self.lock().get(id).cloned(),
        };
        match found {
            Some(result) => ToolOutput::ok(result),
            None => ToolOutput::error(format!(
                "[what]: no stored tool result has id `{id}`\n[how]: copy the id exactly from a placeholder's `id=` field or a summary's folded-call list"
            )),
        }
    }
}
