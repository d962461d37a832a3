//! Running one step's tool calls concurrently.

use std::sync::Arc;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use tokio_util::sync::CancellationToken;

use super::Notice;
use super::hooks::{CallSite, Hooks, Permission};
use super::plan_progress::unworked_completion;
use super::repeat::{REPEAT_NOTE, previous_step_calls, same_call};
use super::undo::SessionJournal;
use super::worker::Worker;
use crate::permission::HookAnswer;
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
        let (mut permits, denied) = self.shared.permits_and_denied();
        if self.read_only_turn {
            permits = permits.with_mode(crate::permission::Mode::ReadOnly);
        }
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
        let warn = self.hook_warner();
        let shared = self.shared.clone();
        let progress: ProgressSink = Arc::new(move |call_id: &str, text: String| {
            shared.hub.notice(Notice::ToolOutput {
                call_id: call_id.to_string(),
                text,
            });
        });
        let previous = previous_step_calls(&self.window, meta);
        let mut running: FuturesUnordered<_> = calls
            .iter()
            .map(|call| {
                let repeated = previous.iter().any(|earlier| same_call(call, earlier));
                let unworked = unworked_completion(&self.window, call, meta.turn);
                let (tools, mut ctx, call) = (self.tools.clone(), ctx.clone(), call.clone());
                let (hooks, session_id, warn) = (hooks.clone(), session_id.clone(), warn.clone());
                ctx.call_id = call.id.clone();
                ctx.progress = Some(ToolProgress::new(&call.id, progress.clone()));
                async move {
                    let started = std::time::Instant::now();
                    let mut output = if hooks.is_empty() {
                        tools.execute(&call.name, call.args.clone(), ctx).await
                    } else {
                        hooked(&hooks, &tools, &call, &session_id, ctx, warn.as_ref()).await
                    };
                    if repeated {
                        output.content.push_str(REPEAT_NOTE);
                    }
                    if let Some(note) = unworked.filter(|_| !output.is_error) {
                        output.content.push_str(&note);
                    }
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
/// that blocks keeps it from running (its reason is the result), its
/// `allow`/`ask` applies over the rules for this call; what a post hook
/// blocks with and the context both add are added to the result for the
/// model. A hook's warning reaches the user as a notice.
async fn hooked(
    hooks: &Hooks,
    tools: &ToolRegistry,
    call: &ToolCall,
    session_id: &str,
    mut ctx: ToolContext,
    warn: &(dyn Fn(String) + Send + Sync),
) -> ToolOutput {
    let (cwd, cancel) = (ctx.cwd.clone(), ctx.cancel.clone());
    let site = CallSite {
        session_id,
        cwd: &cwd,
        cancel: &cancel,
        warn,
    };
    let before = hooks.pre_tool_use(call, &site).await;
    if let Some(reason) = before.blocked {
        return ToolOutput::error(format!(
            "[what]: a PreToolUse hook blocked this call; it did not run\n[reason]: {reason}"
        ));
    }
    if let Some(permission) = before.permission {
        ctx.permits = ctx.permits.with_hook_answer(match permission {
            Permission::Allow => HookAnswer::Allow,
            Permission::Ask => HookAnswer::Ask,
        });
    }
    let mut output = tools.execute(&call.name, call.args.clone(), ctx).await;
    for context in &before.context {
        output
            .content
            .push_str(&format!("\n[PreToolUse hook]: {context}"));
    }
    let after = hooks.post_tool_use(call, &output, &site).await;
    for note in after.blocked.iter().chain(&after.context) {
        output
            .content
            .push_str(&format!("\n[PostToolUse hook]: {note}"));
    }
    output
}
