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
        match Plan::from(args).check() {
            Ok(()) => ToolOutput::ok("Plan updated."),
            Err(why) => ToolOutput::error(format!("plan not updated: {why}")),
        }
    }
}
