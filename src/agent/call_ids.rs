//! Unique tool-call ids: a model (or a local server) may repeat an id
//! within one step or reuse one from an earlier step. Stored as given, the
//! results could not be told apart: strict providers reject the next
//! request, and recall would return whichever result came last. Calls are
//! therefore renamed before they are recorded, and the log, every later
//! request and recall all use the new id.

use std::collections::HashSet;

use super::worker::Worker;
use crate::protocol::{AgentEvent, Meta, ToolCall};

impl Worker {
    /// Gives each of `calls` an id that no other call of this step and no
    /// earlier call of the session has: a repeated id `x` becomes `x-2`
    /// (or `x-3`, …), an empty one `call-{turn}-{step}`.
    pub(super) async fn make_call_ids_unique(&self, calls: &mut [ToolCall], meta: Meta) {
        let mut taken: HashSet<String> = self.window.iter().flat_map(ids_of).collect();
        for call in calls.iter_mut() {
            let base = if call.id.is_empty() {
                format!("call-{}-{}", meta.turn, meta.step)
            } else {
                call.id.clone()
            };
            let mut candidate = base.clone();
            let mut n = 1;
            while taken.contains(&candidate) || self.used_before_window(&candidate).await {
                n += 1;
                candidate = format!("{base}-{n}");
            }
            if candidate != call.id {
                tracing::warn!(from = %call.id, to = %candidate, "renamed a repeated tool-call id");
                call.id = candidate.clone();
            }
            taken.insert(candidate);
        }
    }

    /// Whether the session log holds a result for `id` (a call folded into
    /// a summary, or before this process loaded the window).
    async fn used_before_window(&self, id: &str) -> bool {
        let Some(session) = &self.session else {
            return false;
        };
        match session.tool_result(id).await {
            Ok(found) => found.is_some(),
            Err(e) => {
                // The store reports the failure again on the next append.
                tracing::warn!("checking a tool-call id failed: {e}");
                false
            }
        }
    }
}

fn ids_of(event: &AgentEvent) -> Vec<String> {
    match event {
        AgentEvent::ToolCalls { calls, .. } => calls.iter().map(|c| c.id.clone()).collect(),
        AgentEvent::ToolResult { outcome, .. } => vec![outcome.id.clone()],
        _ => Vec::new(),
    }
}
