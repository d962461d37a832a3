//! Running one step's tool calls concurrently.

use std::sync::Arc;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use tokio_util::sync::CancellationToken;

use super::Notice;
use super::hooks::{CallSite, Hooks};
use super::undo::SessionJournal;
use super::worker::Worker;
use crate::protocol::{AgentEvent, Meta, ToolCall, ToolOutcome};
use crate::tool::journal::Journal;
use crate::tool::{ProgressSink, ToolContext, ToolOutput, ToolProgress, ToolRegistry};

/// The result every unfinished call gets when the user interrupts.
pub(super) const INTERRUPTED: &str = "interrupted by user: this tool call did not finish";

impl Worker {
    /// Runs every call of a step at once and commits each
    /// result as it finishes. On interrupt the unfinished calls get error
    /// results at once; tools that ignore the token are left behind.
    pub(super) async fn run_tools(
        &mut self,
        calls: Vec<ToolCall>,
        meta: Meta,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let root = match self.root.clone() {
            Ok(root) => root,
            Err(why) => return self.refuse_tools(&calls, meta, &why).await,
        };
        let (permits, denied) = self.shared.permits_and_denied();
        let mut ctx = ToolContext::with_root(root.denying(denied.clone()), cancel.clone());
        ctx.read_roots = self.skill_roots.snapshot();
        for root in &mut ctx.read_roots {
            *root = root.denying(denied.clone());
        }
        ctx.permits = permits;
        ctx.seen = self.shared.seen.clone();
        ctx.editor = self.shared.editor();
        ctx.journal = self.session.as_ref().map(|session| {
            Journal::new(Arc::new(SessionJournal {
                session: session.clone(),
                turn: meta.turn,
            }))
            .sharing(&self.shared.pending_changes)
        });
        let hooks = self
            .shared
            .hooks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        let session_id: Arc<str> = self.session.as_ref().map_or("", |s| s.id()).into();
        let shared = self.shared.clone();
        let progress: ProgressSink = Arc::new(move |call_id: &str, text: String| {
            shared.hub.notice(Notice::ToolOutput {
                call_id: call_id.to_string(),
                text,
            });
        });
        let mut running: FuturesUnordered<_> = calls
            .iter()
            .map(|call| {
                let (tools, mut ctx, call) = (self.tools.clone(), ctx.clone(), call.clone());
                let (hooks, session_id) = (hooks.clone(), session_id.clone());
                ctx.call_id = call.id.clone();
                ctx.progress = Some(ToolProgress::new(&call.id, progress.clone()));
                async move {
                    let started = std::time::Instant::now();
                    let output = if hooks.is_empty() {
                        tools.execute(&call.name, call.args.clone(), ctx).await
                    } else {
                        hooked(&hooks, &tools, &call, &session_id, ctx).await
                    };
                    tracing::debug!(tool = %call.name, id = %call.id, is_error = output.is_error, elapsed = ?started.elapsed(), "tool finished");
                    ToolOutcome {
                        id: call.id,
                        name: call.name,
                        result: output.content,
                        is_error: output.is_error,
                        display: output.display,
                    }
                }
            })
            .collect();
        let mut finished = Vec::with_capacity(calls.len());
        loop {
            let next = tokio::select! {
                biased;
                _ = cancel.cancelled() => break,
                next = running.next() => next,
            };
            let Some(outcome) = next else { break };
            finished.push(outcome.id.clone());
            self.commit(AgentEvent::ToolResult { outcome, meta })
                .await?;
        }
        drop(running);
        for call in calls.iter().filter(|c| !finished.contains(&c.id)) {
            let outcome = ToolOutcome {
                id: call.id.clone(),
                name: call.name.clone(),
                result: INTERRUPTED.into(),
                is_error: true,
                display: None,
            };
            self.commit(AgentEvent::ToolResult { outcome, meta })
                .await?;
        }
        Ok(())
    }

    /// Gives every call the same error result: the working directory could
    /// not be opened, so no tool can run.
    async fn refuse_tools(
        &mut self,
        calls: &[ToolCall],
        meta: Meta,
        why: &str,
    ) -> Result<(), String> {
        for call in calls {
            let outcome = ToolOutcome {
                id: call.id.clone(),
                name: call.name.clone(),
                result: format!("[what]: {} cannot run\n[reason]: {why}", call.name),
                is_error: true,
                display: None,
            };
            self.commit(AgentEvent::ToolResult { outcome, meta })
                .await?;
        }
        Ok(())
    }
}

/// Runs `call` between its `PreToolUse` and `PostToolUse` hooks: a pre hook
/// that blocks keeps it from running (its reason is the result); what a post
/// hook blocks with is added to the result for the model.
async fn hooked(
    hooks: &Hooks,
    tools: &ToolRegistry,
    call: &ToolCall,
    session_id: &str,
    ctx: ToolContext,
) -> ToolOutput {
    let (cwd, cancel) = (ctx.cwd.clone(), ctx.cancel.clone());
    let site = CallSite {
        session_id,
        cwd: &cwd,
        cancel: &cancel,
    };
    if let Some(reason) = hooks.pre_tool_use(call, &site).await {
        return ToolOutput::error(format!(
            "[what]: a PreToolUse hook blocked this call; it did not run\n[reason]: {reason}"
        ));
    }
    let mut output = tools.execute(&call.name, call.args.clone(), ctx).await;
    if let Some(reason) = hooks.post_tool_use(call, &output, &site).await {
        output
            .content
            .push_str(&format!("\n[PostToolUse hook]: {reason}"));
    }
    output
}
