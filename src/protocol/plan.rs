//! The agent's plan: the steps of the work and where it stands, as the
//! `update_plan` tool takes them (Codex's argument shape, which models are
//! trained on).

use serde::{Deserialize, Serialize};

use super::{AgentEvent, ToolCall};

/// The tool that sets the plan.
pub const UPDATE_PLAN: &str = "update_plan";

/// Where one step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one step).
    InProgress,
    /// Done.
    Completed,
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    /// What the step does.
    pub step: String,
    /// Where it stands.
    pub status: StepStatus,
}

/// The whole plan, replaced by each `update_plan` call.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Plan {
    /// Why the plan changed, when the model said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// The steps, in order.
    pub plan: Vec<PlanStep>,
}

impl Plan {
    /// The plan in a tool call's arguments, checked: every step named, at
    /// most one in progress. The error says what to fix.
    pub fn from_args(args: &serde_json::Value) -> Result<Plan, String> {
        let plan: Plan = serde_json::from_value(args.clone()).map_err(|e| {
            format!(
                "update_plan takes {{\"plan\": [{{\"step\": text, \"status\": \"pending\"|\"in_progress\"|\"completed\"}}]}}: {e}"
            )
        })?;
        plan.check()?;
        Ok(plan)
    }

    /// Every step named, at most one in progress.
    pub fn check(&self) -> Result<(), String> {
        if let Some(at) = self.plan.iter().position(|s| s.step.trim().is_empty()) {
            return Err(format!("step {} has no text: name every step", at + 1));
        }
        // A weak model nests the list, escaped, in a step's text and feeds
        // it back growing each call; refusing it breaks the loop.
        if let Some(at) = self.plan.iter().position(|s| s.step.contains("\"status\"")) {
            return Err(format!(
                "step {} holds JSON: give each step as its own item of `plan`, its text one short sentence",
                at + 1
            ));
        }
        let busy = self
            .plan
            .iter()
            .filter(|s| s.status == StepStatus::InProgress)
            .count();
        if busy > 1 {
            return Err(format!(
                "{busy} steps are in_progress: at most one may be; mark the others pending or completed"
            ));
        }
        Ok(())
    }

    /// The step to work on now: the one in progress, else the first
    /// pending one; `None` once every step is completed.
    pub fn current_step(&self) -> Option<&PlanStep> {
        self.plan
            .iter()
            .find(|s| s.status == StepStatus::InProgress)
            .or_else(|| self.plan.iter().find(|s| s.status == StepStatus::Pending))
    }

    /// The plan of `call`, if it is an accepted-looking `update_plan` call.
    pub fn from_call(call: &ToolCall) -> Option<Plan> {
        (call.name == UPDATE_PLAN)
            .then(|| Plan::from_args(&call.args).ok())
            .flatten()
    }

    /// The plan the latest accepted `update_plan` call of `events` set
    /// (its result not an error), if any.
    pub fn latest(events: &[AgentEvent]) -> Option<Plan> {
        let mut accepted: Option<&str> = None;
        for event in events.iter().rev() {
            match event {
                AgentEvent::ToolResult { outcome, .. }
                    if accepted.is_none() && outcome.name == UPDATE_PLAN && !outcome.is_error =>
                {
                    accepted = Some(&outcome.id);
                }
                AgentEvent::ToolCalls { calls, .. } => {
                    if let Some(plan) = calls
                        .iter()
                        .filter(|c| Some(c.id.as_str()) == accepted)
                        .find_map(Plan::from_call)
                    {
                        return Some(plan);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// One line per step: `[x]` done, `[>]` in progress, `[ ]` pending.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for step in &self.plan {
            let mark = match step.status {
                StepStatus::Completed => "[x]",
                StepStatus::InProgress => "[>]",
                StepStatus::Pending => "[ ]",
            };
            out.push_str(mark);
            out.push(' ');
            out.push_str(step.step.trim());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plan_reads_codex_arguments_and_refuses_malformed_ones() {
        let plan = Plan::from_args(&json!({
            "_intent": "track",
            "plan": [{"step": "read", "status": "completed"}, {"step": "fix", "status": "in_progress"}]
        }))
        .unwrap();
        assert_eq!(plan.render(), "[x] read\n[>] fix\n");
        let two = Plan::from_args(&json!({"plan": [
            {"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]}))
        .unwrap_err();
        assert!(two.contains("at most one"), "{two}");
        let empty =
            Plan::from_args(&json!({"plan": [{"step": " ", "status": "pending"}]})).unwrap_err();
        assert!(empty.contains("step 1 has no text"), "{empty}");
        let bad =
            Plan::from_args(&json!({"plan": [{"step": "a", "status": "doing"}]})).unwrap_err();
        assert!(bad.contains("in_progress"), "{bad}");
    }
}
