//! `update_plan`: the model keeps its plan, the whole list each call. The
//! host shows the accepted plan to the user ([`crate::protocol::Plan`]).

use crate::protocol::{Plan, UPDATE_PLAN};
use crate::tool::{Tool, ToolContext, ToolOutput};

const DESCRIPTION: &str =
    "Set your plan for multi-step work: every step each call, at most one in_progress.";

/// The `update_plan` tool.
#[derive(Debug, Clone, Default)]
pub struct UpdatePlanTool;

impl Tool for UpdatePlanTool {
    type Args = Plan;

    fn name(&self) -> &str {
        UPDATE_PLAN
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    async fn execute(&self, plan: Plan, _ctx: ToolContext) -> ToolOutput {
        match plan.check() {
            Ok(()) => ToolOutput::ok("Plan updated."),
            Err(why) => ToolOutput::error(format!("plan not updated: {why}")),
        }
    }
}
