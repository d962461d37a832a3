//! `task`: a subagent — a child [`Agent`] with a fresh context and its own
//! session — runs one self-contained job and the parent gets its final
//! answer with a short record (tools used, files changed).
//!
//! The host makes children ([`ChildFactory`]): same working directory,
//! sandbox and approver, the parent's permits in a mode never wider than
//! the parent's (read-only unless the definition asks for more). Calls of
//! one step run at once, like every tool call of a step, at most
//! `max_parallel` children at a time. One cancellation tree: the parent's
//! interrupt reaches the child through the call's token, and a child whose
//! call is dropped is dropped with it (its worker cancels the running turn),
//! so no child outlives its parent.

mod definition;
mod record;

use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::sync::Semaphore;

pub use definition::{AgentDefinition, GENERAL, narrower};

use super::{Agent, AgentMessage};
use crate::permission::{Mode, Permits};
use crate::protocol::{AgentEvent, Notice, StopCause};
use crate::session::short_id;
use crate::tool::{Tool, ToolContext, ToolOutput};
use record::Record;

/// The tool's name.
pub const TASK: &str = "task";

/// What a child is made with.
pub struct ChildRequest {
    /// The parent's `task` call id (the child session's link).
    pub call_id: String,
    /// Its definition.
    pub definition: AgentDefinition,
    /// The parent's permits in the child's mode.
    pub permits: Permits,
    /// A title for the child's session.
    pub title: String,
}

/// A child made for one call.
pub struct Child {
    /// The child agent; the call holds its only handle.
    pub agent: Agent,
    /// Its session id (empty without a session).
    pub session_id: String,
}

/// Makes children; the host implements it (it knows the settings, the
/// sandbox and the session store).
pub trait ChildFactory: Send + Sync + 'static {
    /// A child for `request`, or why there is none.
    fn spawn(&self, request: ChildRequest) -> BoxFuture<'static, Result<Child, String>>;
}

/// Where the tagged child events go (the parent's notice stream).
pub type NoticeSink = Arc<dyn Fn(Notice) + Send + Sync>;

/// Arguments of `task`.
#[allow(missing_docs)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TaskArgs {
    pub description: String,
    pub prompt: String,
    #[serde(default)]
    pub agent: Option<String>,
}

/// The `task` tool.
pub struct TaskTool {
    factory: Arc<dyn ChildFactory>,
    definitions: Vec<AgentDefinition>,
    slots: Arc<Semaphore>,
    notices: NoticeSink,
    description: String,
}

impl TaskTool {
    /// `task` over `definitions` (the general agent is added when none is
    /// named so), running at most `max_parallel` children at once.
    pub fn new(
        factory: Arc<dyn ChildFactory>,
        mut definitions: Vec<AgentDefinition>,
        max_parallel: usize,
        notices: NoticeSink,
    ) -> Self {
        if !definitions.iter().any(|d| d.name == GENERAL) {
            definitions.insert(0, AgentDefinition::general());
        }
        let agents: Vec<String> = definitions
            .iter()
            .map(|d| format!("{}: {}", d.name, d.description))
            .collect();
        let description = format!(
            "Runs a subagent with a fresh context on a self-contained job (a broad search, an independent change) and returns its final answer. Put everything it needs in `prompt`. Several calls in one step run in parallel. `agent`, default general; agents: {}",
            agents.join("; ")
        );
        Self {
            factory,
            definitions,
            slots: Arc::new(Semaphore::new(max_parallel.max(1))),
            notices,
            description,
        }
    }
}

impl Tool for TaskTool {
    type Args = TaskArgs;

    fn name(&self) -> &str {
        TASK
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn asks_intent(&self) -> bool {
        false
    }

    async fn execute(&self, args: TaskArgs, ctx: ToolContext) -> ToolOutput {
        let name = args.agent.as_deref().map_or(GENERAL, str::trim);
        let Some(definition) = self.definitions.iter().find(|d| d.name == name) else {
            let names: Vec<&str> = self.definitions.iter().map(|d| d.name.as_str()).collect();
            return ToolOutput::error(format!(
                "[what]: unknown agent `{name}`\n[agents]: {}\n[how]: pass one of these names or leave `agent` out",
                names.join(", ")
            ));
        };
        let slot = tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => return ToolOutput::error(super::tools::INTERRUPTED),
            slot = self.slots.clone().acquire_owned() => slot,
        };
        let Ok(_slot) = slot else {
            return ToolOutput::error("[what]: subagents are shut down");
        };
        let mode = narrower(ctx.permits.mode(), definition.permissions);
        let request = ChildRequest {
            call_id: ctx.call_id.clone(),
            definition: definition.clone(),
            permits: ctx.permits.with_mode(mode),
            title: args.description.clone(),
        };
        let child = match self.factory.spawn(request).await {
            Ok(child) => child,
            Err(why) => {
                return ToolOutput::error(format!(
                    "[what]: the subagent could not start\n[reason]: {why}"
                ));
            }
        };
        run(child, definition, mode, args.prompt, &ctx, &self.notices).await
    }
}

/// Runs the child's one turn, passing its events on tagged with the call.
async fn run(
    child: Child,
    definition: &AgentDefinition,
    mode: Mode,
    prompt: String,
    ctx: &ToolContext,
    notices: &NoticeSink,
) -> ToolOutput {
    let mut messages = child.agent.subscribe_all();
    let mut record = Record::default();
    let tag = |event: AgentEvent| Notice::Subagent {
        call_id: ctx.call_id.clone(),
        session_id: child.session_id.clone(),
        agent: definition.name.clone(),
        event: Box::new(event),
    };
    let see = |message: AgentMessage, record: &mut Record| {
        let AgentMessage::Event(event) = message else {
            return;
        };
        if event.is_transient() {
            return;
        }
        record.see(&event);
        if let Some(progress) = &ctx.progress {
            progress.update(record.status());
        }
        notices(tag(event));
    };
    let turn = child.agent.prompt(prompt);
    tokio::pin!(turn);
    let outcome = loop {
        tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => {
                child.agent.interrupt("the parent was interrupted");
                return ToolOutput::error(super::tools::INTERRUPTED);
            }
            Some(message) = messages.recv() => see(message, &mut record),
            outcome = &mut turn => break outcome,
        }
    };
    // Everything the child sent before its turn ended.
    while let Ok(message) = messages.try_recv() {
        see(message, &mut record);
    }
    let head = format!(
        "[agent]: {} ({mode}) · session {}\n{}",
        definition.name,
        short_id(&child.session_id),
        record.summary()
    );
    match outcome {
        Ok(outcome) if outcome.cause == StopCause::Done => {
            ToolOutput::ok(format!("{head}\n[answer]:\n{}", record.answer()))
        }
        Ok(outcome) => ToolOutput::error(format!(
            "{head}\n[stopped]: {:?}: {}\n[answer so far]:\n{}",
            outcome.cause,
            outcome.message,
            record.answer()
        )),
        Err(e) => ToolOutput::error(format!("{head}\n[stopped]: {e}")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::sync::watch;
    use tokio_util::sync::CancellationToken;

    /// Counts the children being made at once; each waits for the gate,
    /// then fails.
    struct Counting {
        active: Arc<AtomicUsize>,
        most: Arc<AtomicUsize>,
        gate: watch::Receiver<bool>,
    }

    impl ChildFactory for Counting {
        fn spawn(&self, _: ChildRequest) -> BoxFuture<'static, Result<Child, String>> {
            let now = self.active.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            let (active, mut gate) = (self.active.clone(), self.gate.clone());
            Box::pin(async move {
                let _ = gate.wait_for(|open| *open).await;
                active.fetch_sub(1, Ordering::SeqCst);
                Err("made by the test".into())
            })
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn no_more_children_than_max_parallel_are_made_at_once() {
        let (open, gate) = watch::channel(false);
        let (active, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let factory = Counting {
            active: active.clone(),
            most: most.clone(),
            gate,
        };
        let tool = Arc::new(TaskTool::new(
            Arc::new(factory),
            Vec::new(),
            2,
            Arc::new(|_| {}),
        ));
        let dir = tempfile::tempdir().unwrap();
        let calls = (0..3).map(|i| {
            let tool = tool.clone();
            let mut ctx = ToolContext::new(dir.path(), CancellationToken::new()).unwrap();
            ctx.call_id = format!("call_{i}");
            let args = TaskArgs {
                description: "d".into(),
                prompt: "p".into(),
                agent: None,
            };
            async move { tool.execute(args, ctx).await }
        });
        let all = tokio::spawn(futures::future::join_all(calls));
        while active.load(Ordering::SeqCst) < 2 {
            tokio::task::yield_now().await;
        }
        open.send_replace(true);
        let outputs = all.await.unwrap();
        assert_eq!(outputs.len(), 3);
        assert!(
            outputs
                .iter()
                .all(|o| o.is_error && o.content.contains("made by the test"))
        );
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }
}
