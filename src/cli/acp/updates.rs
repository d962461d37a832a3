//! Agent events as ACP `session/update`s: answer and thought chunks, tool
//! calls with a kind and the places they touch, running, then their
//! results (an edit's as `diff` contents); the plan as a `plan` update.

use std::path::Path;

use agent_client_protocol_schema::v1::{
    Content, ContentBlock, ContentChunk, Plan as AcpPlan, PlanEntry, PlanEntryPriority,
    PlanEntryStatus, SessionUpdate, ToolCall as AcpToolCall, ToolCallContent, ToolCallLocation,
    ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use light_agent::protocol::{
    AgentEvent, ApprovalDetail, ApprovalRequest, INTENT_FIELD, Plan, StepStatus, ToolCall,
};

use super::diff;

/// The updates one agent event makes, live (`replay` false: deltas are
/// streamed, full events already were; a call shows as running as soon as
/// it is made, since a step's calls start at once) or when a stored session
/// is shown again (`replay` true: the full events, and the user's prompts).
/// Paths are shown beneath `cwd`.
pub fn of_event(event: &AgentEvent, replay: bool, cwd: &Path) -> Vec<SessionUpdate> {
    let chunk = |text: &str| ContentChunk::new(ContentBlock::from(text.to_string()));
    match event {
        AgentEvent::OutputDelta { text, .. } if !replay => {
            vec![SessionUpdate::AgentMessageChunk(chunk(text))]
        }
        AgentEvent::ThoughtDelta { text, .. } if !replay => {
            vec![SessionUpdate::AgentThoughtChunk(chunk(text))]
        }
        AgentEvent::Output { text, .. } if replay => {
            vec![SessionUpdate::AgentMessageChunk(chunk(text))]
        }
        AgentEvent::Thought { text, .. } if replay => {
            vec![SessionUpdate::AgentThoughtChunk(chunk(text))]
        }
        AgentEvent::Input { text, .. } if replay => {
            vec![SessionUpdate::UserMessageChunk(chunk(text))]
        }
        AgentEvent::ToolCalls { calls, .. } => {
            let mut updates = Vec::new();
            for call in calls {
                updates.push(SessionUpdate::ToolCall(tool_call(call, cwd)));
                if !replay {
                    let running = ToolCallUpdateFields::new().status(ToolCallStatus::InProgress);
                    updates.push(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                        call.id.clone(),
                        running,
                    )));
                }
            }
            updates
        }
        AgentEvent::ToolResult { outcome, .. } => {
            let status = if outcome.is_error {
                ToolCallStatus::Failed
            } else {
                ToolCallStatus::Completed
            };
            let mut content = vec![text_content(&outcome.result)];
            if let Some(unified) = &outcome.display {
                content.extend(diff_contents(cwd, unified));
            }
            let fields = ToolCallUpdateFields::new()
                .status(status)
                .content(content)
                .raw_output(serde_json::Value::String(outcome.result.clone()));
            vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                outcome.id.clone(),
                fields,
            ))]
        }
        _ => Vec::new(),
    }
}

/// A tool call as ACP shows it: pending, with its kind, a title, the
/// places it touches (absolute, beneath `cwd`, so an editor can follow)
/// and its arguments.
fn tool_call(call: &ToolCall, cwd: &Path) -> AcpToolCall {
    AcpToolCall::new(call.id.clone(), title(call))
        .kind(kind(&call.name))
        .status(ToolCallStatus::Pending)
        .locations(locations(&call.args, cwd))
        .raw_input(call.args.clone())
}

/// A change's unified diff as one `diff` content per file (the text
/// itself when it names no file).
fn diff_contents(cwd: &Path, unified: &str) -> Vec<ToolCallContent> {
    let diffs = diff::of_unified(cwd, unified);
    if diffs.is_empty() {
        return vec![text_content(&format!("```diff\n{unified}\n```"))];
    }
    diffs.into_iter().map(ToolCallContent::Diff).collect()
}

/// The plan as ACP's `plan` update: each step an entry (the steps have no
/// priority of their own: all medium).
pub fn plan(plan: &Plan) -> SessionUpdate {
    let entries = plan
        .plan
        .iter()
        .map(|step| {
            let status = match step.status {
                StepStatus::Pending => PlanEntryStatus::Pending,
                StepStatus::InProgress => PlanEntryStatus::InProgress,
                StepStatus::Completed => PlanEntryStatus::Completed,
            };
            PlanEntry::new(step.step.clone(), PlanEntryPriority::Medium, status)
        })
        .collect();
    SessionUpdate::Plan(AcpPlan::new(entries))
}

/// The tool call an approval is about, with what it would change or run.
pub fn approval_subject(request: &ApprovalRequest, cwd: &Path) -> ToolCallUpdate {
    if let ApprovalDetail::Diff { unified } = &request.detail {
        let fields = ToolCallUpdateFields::new()
            .title(request.title.clone())
            .kind(kind(&request.tool))
            .content(diff_contents(cwd, unified));
        return ToolCallUpdate::new(request.call_id.clone(), fields);
    }
    let shown = match &request.detail {
        ApprovalDetail::Diff { unified } => format!("```diff\n{unified}\n```"),
        ApprovalDetail::Command {
            command,
            workdir,
            sandbox,
            destructive,
        } => {
            let mut text = format!("```sh\n{command}\n```\nin {workdir}, {sandbox}");
            for why in destructive {
                text.push_str(&format!("\n{why}"));
            }
            text
        }
        ApprovalDetail::Mcp { server, tool, args } => format!("{server}.{tool} {args}"),
        ApprovalDetail::Web { url, host } => format!("GET {url}\n(host {host})"),
    };
    let fields = ToolCallUpdateFields::new()
        .title(request.title.clone())
        .kind(kind(&request.tool))
        .content(vec![text_content(&shown)]);
    ToolCallUpdate::new(request.call_id.clone(), fields)
}

fn text_content(text: &str) -> ToolCallContent {
    ToolCallContent::Content(Content::new(ContentBlock::from(text.to_string())))
}

/// What kind of tool `name` is, for the editor's icon and grouping.
pub fn kind(name: &str) -> ToolKind {
    match name {
        "read_file" | "tree" | "recall_indexed" => ToolKind::Read,
        "edit" | "write" | "apply_patch" => ToolKind::Edit,
        "shell" | "shell_output" | "shell_kill" => ToolKind::Execute,
        "grep" | "recall_search" => ToolKind::Search,
        "update_plan" | "think" => ToolKind::Think,
        name if name.contains("fetch") || name.starts_with("web") => ToolKind::Fetch,
        _ => ToolKind::Other,
    }
}

/// The call's intent when it gave one, else its name and main argument.
fn title(call: &ToolCall) -> String {
    let target = ["path", "command", "pattern"]
        .iter()
        .find_map(|key| call.args.get(key).and_then(|v| v.as_str()));
    let head = match target {
        Some(target) => format!("{} {target}", call.name),
        None => call.name.clone(),
    };
    match call.intent() {
        Some(intent) => format!("{head} — {intent}"),
        None => head,
    }
}

/// The files a call names (`path`, `paths`), with its first line when it
/// gives one (`start_line`, `line`).
fn locations(args: &serde_json::Value, cwd: &Path) -> Vec<ToolCallLocation> {
    let line = ["start_line", "line"]
        .iter()
        .find_map(|key| args.get(key).and_then(serde_json::Value::as_u64))
        .and_then(|line| u32::try_from(line).ok());
    let mut paths: Vec<&str> = Vec::new();
    if let Some(path) = args.get("path").and_then(|v| v.as_str()) {
        paths.push(path);
    }
    if let Some(list) = args.get("paths").and_then(|v| v.as_array()) {
        paths.extend(list.iter().filter_map(|v| v.as_str()));
    }
    paths
        .into_iter()
        .filter(|path| !path.is_empty() && *path != INTENT_FIELD)
        .map(|path| ToolCallLocation::new(cwd.join(path)).line(line))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_read_file_call_is_a_read_with_its_location() {
        let call = ToolCall {
            id: "c1".into(),
            name: "read_file".into(),
            args: json!({"path": "src/main.rs", "start_line": 12, "_intent": "see main"}),
        };
        let update =
            serde_json::to_value(SessionUpdate::ToolCall(tool_call(&call, Path::new("/w"))))
                .unwrap();
        assert_eq!(update["sessionUpdate"], "tool_call");
        assert_eq!(update["kind"], "read");
        // `pending` is the default, which the schema leaves out.
        assert!(update.get("status").is_none() || update["status"] == "pending");
        assert_eq!(update["toolCallId"], "c1");
        assert_eq!(
            update["locations"],
            json!([{"path": "/w/src/main.rs", "line": 12}])
        );
        assert_eq!(update["title"], "read_file src/main.rs — see main");
    }

    #[test]
    fn every_tool_family_has_its_kind() {
        for (name, kind_name) in [
            ("edit", "edit"),
            ("apply_patch", "edit"),
            ("shell", "execute"),
            ("grep", "search"),
            ("tree", "read"),
            ("update_plan", "think"),
            ("mcp__web__fetch", "fetch"),
            ("mcp__db__query", "other"),
        ] {
            assert_eq!(
                serde_json::to_value(kind(name)).unwrap(),
                kind_name,
                "{name}"
            );
        }
    }
}
