//! What a parent learns of a child's run besides its answer: the tools it
//! used and the files it changed.

use std::collections::BTreeMap;

use crate::protocol::{AgentEvent, ToolCall};

/// Tools that change the file their `path` names (or, for `apply_patch`,
/// the files its patch names).
const WRITING_TOOLS: [&str; 3] = ["edit", "write", "apply_patch"];

/// A child's run as it goes: counts, changed files, its latest answer.
#[derive(Debug, Default)]
pub(super) struct Record {
    steps: u32,
    tools: BTreeMap<String, u32>,
    calls: Vec<ToolCall>,
    changed: Vec<String>,
    current_tool: Option<String>,
    answer: String,
}

impl Record {
    /// Takes in one canonical event of the child.
    pub(super) fn see(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::ToolCalls { calls, .. } => {
                self.steps += 1;
                for call in calls {
                    *self.tools.entry(call.name.clone()).or_default() += 1;
                    self.current_tool = Some(call.name.clone());
                }
                self.calls.extend(calls.iter().cloned());
            }
            AgentEvent::Output { text, .. } if !text.trim().is_empty() => {
                self.answer = text.clone();
            }
            AgentEvent::ToolResult { outcome, .. } => {
                self.current_tool = None;
                if outcome.is_error || !WRITING_TOOLS.contains(&outcome.name.as_str()) {
                    return;
                }
                let Some(call) = self.calls.iter().find(|c| c.id == outcome.id) else {
                    return;
                };
                for path in written_paths(call) {
                    if !self.changed.contains(&path) {
                        self.changed.push(path);
                    }
                }
            }
            _ => {}
        }
    }

    /// One line for the call's pane: steps so far and the running tool.
    pub(super) fn status(&self) -> String {
        match &self.current_tool {
            Some(tool) => format!("step {} · {tool}", self.steps + 1),
            None => format!("step {}", self.steps + 1),
        }
    }

    /// The child's latest non-empty answer.
    pub(super) fn answer(&self) -> &str {
        &self.answer
    }

    /// `[tools]` and `[files changed]` lines.
    pub(super) fn summary(&self) -> String {
        let tools: Vec<String> = self
            .tools
            .iter()
            .map(|(name, n)| format!("{name} ×{n}"))
            .collect();
        let tools = if tools.is_empty() {
            "none".to_string()
        } else {
            tools.join(", ")
        };
        let changed = if self.changed.is_empty() {
            "none".to_string()
        } else {
            self.changed.join(", ")
        };
        format!("[tools]: {tools}\n[files changed]: {changed}")
    }
}

/// The paths a writing call names.
fn written_paths(call: &ToolCall) -> Vec<String> {
    if let Some(path) = call.args.get("path").and_then(|p| p.as_str()) {
        return vec![path.to_string()];
    }
    let patch = ["patch", "input"]
        .iter()
        .find_map(|k| call.args.get(*k).and_then(|p| p.as_str()))
        .unwrap_or("");
    patch
        .lines()
        .filter_map(|line| {
            ["*** Update File:", "*** Add File:", "*** Delete File:"]
                .iter()
                .find_map(|prefix| line.strip_prefix(prefix))
        })
        .map(|p| p.trim().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::protocol::{Meta, ToolOutcome};
    use serde_json::json;

    fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
        serde_json::from_value(json!({"id": id, "name": name, "args": args})).unwrap()
    }

    fn result(id: &str, name: &str, is_error: bool) -> AgentEvent {
        AgentEvent::ToolResult {
            outcome: ToolOutcome {
                id: id.into(),
                name: name.into(),
                result: String::new(),
                is_error,
                display: None,
            },
            meta: Meta::default(),
        }
    }

    #[test]
    fn tools_are_counted_and_only_applied_writes_are_files_changed() {
        let mut record = Record::default();
        record.see(&AgentEvent::ToolCalls {
            calls: vec![
                call("a", "read_file", json!({"path": "x.rs"})),
                call("b", "write", json!({"path": "new.rs", "content": ""})),
                call("c", "edit", json!({"path": "refused.rs"})),
            ],
            meta: Meta::default(),
        });
        assert_eq!(record.status(), "step 2 · edit");
        record.see(&result("a", "read_file", false));
        record.see(&result("b", "write", false));
        record.see(&result("c", "edit", true));
        record.see(&AgentEvent::Output {
            text: "done".into(),
            meta: Meta::default(),
        });
        assert_eq!(
            record.summary(),
            "[tools]: edit ×1, read_file ×1, write ×1\n[files changed]: new.rs"
        );
        assert_eq!(record.answer(), "done");
    }
}
