//! `update_plan`: the model keeps its plan, the whole list each call. The
//! host shows the accepted plan to the user ([`crate::protocol::Plan`]).

use schemars::JsonSchema;
use serde::Deserialize;

use crate::protocol::{Plan, PlanStep, StepStatus, UPDATE_PLAN};
use crate::tool::{Tool, ToolContext, ToolOutput};

const DESCRIPTION: &str =
    "Set your plan for multi-step work: every step each call, at most one in_progress.";

// Arguments of `update_plan`: [`Plan`]'s shape. These types carry no doc
// comments on purpose: the schema is sent with every request.
#[allow(missing_docs)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UpdatePlanArgs {
    #[serde(default)]
    pub explanation: Option<String>,
    pub plan: Vec<StepArgs>,
}

#[allow(missing_docs)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct StepArgs {
    pub step: String,
    pub status: StatusArg,
}

#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusArg {
    Pending,
    InProgress,
    Completed,
}

impl From<UpdatePlanArgs> for Plan {
    fn from(args: UpdatePlanArgs) -> Plan {
        let status = |s| match s {
            StatusArg::Pending => StepStatus::Pending,
            StatusArg::InProgress => StepStatus::InProgress,
            StatusArg::Completed => StepStatus::Completed,
        };
        Plan {
            explanation: args.explanation,
            plan: args
                .plan
                .into_iter()
                .map(|s| PlanStep {
                    step: s.step,
                    status: status(s.status),
                })
                .collect(),
        }
    }
}

/// The `update_plan` tool.
#[derive(Debug, Clone, Default)]
pub struct UpdatePlanTool;

impl Tool for UpdatePlanTool {
    type Args = UpdatePlanArgs;

    fn name(&self) -> &str {
        UPDATE_PLAN
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn asks_intent(&self) -> bool {
        false
    }

    async fn execute(&self, args: UpdatePlanArgs, _ctx: ToolContext) -> ToolOutput {
        answer(&Plan::from(args))
    }
}

/// The plan checked: refused with what to fix, or accepted.
fn answer(plan: &Plan) -> ToolOutput {
    match plan.check() {
        Ok(()) => ToolOutput::ok(accepted(plan)),
        Err(why) => ToolOutput::error(format!("plan not updated: {why}")),
    }
}

/// The result of an accepted plan: it names the step to work on, so a model
/// goes on with the work instead of restating the plan (small models loop
/// on `update_plan` when the result says only that it was taken; when it
/// ended "call update_plan again when a step's status changes", the 1.5B
/// model sent the same plan again next in 8 of the 17 runs that made one).
fn accepted(plan: &Plan) -> String {
    match plan.current_step() {
        Some(step) => format!(
            "Plan updated. Now do \"{}\": call the tool that step needs.",
            step.step.trim()
        ),
        None if plan.plan.is_empty() => "Plan cleared.".to_string(),
        None => "Plan updated: every step is completed. Check the work, then report what changed and what was verified.".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(args: serde_json::Value) -> ToolOutput {
        let args: UpdatePlanArgs = serde_json::from_value(args).unwrap();
        answer(&Plan::from(args))
    }

    #[test]
    fn an_accepted_plan_names_the_step_to_do_now() {
        let out = result(json!({"plan": [
            {"step": "bump the version", "status": "completed"},
            {"step": "add --version", "status": "pending"},
            {"step": "write the changelog", "status": "pending"},
        ]}));
        assert!(!out.is_error);
        assert!(
            out.content.contains("Now do \"add --version\""),
            "{}",
            out.content
        );
        // Asking for another plan call led a small model to send the same
        // plan again instead of working.
        assert!(!out.content.contains("update_plan"), "{}", out.content);
        let out = result(json!({"plan": [
            {"step": "bump the version", "status": "completed"},
            {"step": "add --version", "status": "pending"},
            {"step": "write the changelog", "status": "in_progress"},
        ]}));
        assert!(
            out.content.contains("Now do \"write the changelog\""),
            "{}",
            out.content
        );
        let out = result(json!({"plan": [{"step": "bump", "status": "completed"}]}));
        assert!(
            out.content.contains("every step is completed"),
            "{}",
            out.content
        );
    }

    #[test]
    fn a_plan_nested_in_a_steps_text_is_refused() {
        let out = result(json!({"plan": [
            {"step": "bump\",\"status\":\"completed\"},{\"step\":\"add --version", "status": "completed"},
        ]}));
        assert!(out.is_error);
        assert!(out.content.contains("step 1 holds JSON"), "{}", out.content);
    }
}
