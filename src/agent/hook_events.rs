//! The agent loop's hook events beside the tool calls': `SessionStart` and
//! `UserPromptSubmit` before a prompt's request (their stdout joins it as a
//! system note; `UserPromptSubmit` may refuse the prompt), `Stop` when the
//! model is done (it may make the turn go on, at most
//! [`MAX_STOP_CONTINUATIONS`] times), `PreCompact` before a summary. Every
//! hook runs on the job's token: an interrupt kills it with its group.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::TurnOutcome;
use super::hooks::{CallSite, Fired, HookEvent, Hooks};
use super::worker::Worker;
use crate::protocol::{AgentEvent, InputSource, Meta, Notice, StopCause};

/// How many times `Stop` hooks may make one turn go on.
pub(super) const MAX_STOP_CONTINUATIONS: u32 = 3;

/// Where a hook's warning goes: a notice for the user.
pub(super) type Warner = Arc<dyn Fn(String) + Send + Sync>;

impl Worker {
    /// The hooks in force now.
    pub(super) fn hooks(&self) -> Arc<Hooks> {
        self.shared
            .hooks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Tells the user a hook's warning as a notice.
    pub(super) fn hook_warner(&self) -> Warner {
        let shared = self.shared.clone();
        Arc::new(move |text: String| shared.hub.notice(Notice::warning(text)))
    }

    /// Runs the hooks of `event` for `subject` with `fields`; nothing when
    /// there are none or the working directory could not be opened.
    async fn fire(
        &self,
        event: HookEvent,
        subject: &str,
        fields: serde_json::Value,
        cancel: &CancellationToken,
    ) -> Fired {
        let hooks = self.hooks();
        let Ok(root) = &self.root else {
            return Fired::default();
        };
        if !hooks.has(event) {
            return Fired::default();
        }
        let warn = self.hook_warner();
        let session_id = self.session.as_ref().map_or("", |s| s.id());
        let site = CallSite {
            session_id,
            cwd: root.display_path(),
            cancel,
            warn: warn.as_ref(),
        };
        hooks.fire(event, subject, fields, &site).await
    }

    /// Before a prompt is committed: the session's `SessionStart` hooks
    /// (once per agent, again after a compaction) and the prompt's
    /// `UserPromptSubmit` hooks. `Ok`: the context they add; `Err`: the
    /// prompt was refused (nothing is committed), with the outcome saying
    /// why — told to the user, never to the model.
    pub(super) async fn before_prompt(
        &mut self,
        prompt: &str,
        cancel: &CancellationToken,
    ) -> Result<Vec<String>, TurnOutcome> {
        let mut context = Vec::new();
        if let Some(source) = self.session_start.take() {
            let fields = serde_json::json!({ "source": source });
            let fired = self
                .fire(HookEvent::SessionStart, source, fields, cancel)
                .await;
            if let Some(reason) = &fired.blocked {
                self.warn_user(format!("a SessionStart hook said: {reason}"));
            }
            push_context(&mut context, "SessionStart", &fired);
        }
        let fields = serde_json::json!({ "prompt": prompt });
        let fired = self
            .fire(HookEvent::UserPromptSubmit, "", fields, cancel)
            .await;
        if let Some(reason) = fired.blocked {
            let message = format!("a UserPromptSubmit hook refused the prompt: {reason}");
            self.warn_user(message.clone());
            return Err(TurnOutcome {
                cause: StopCause::Runtime,
                message,
            });
        }
        push_context(&mut context, "UserPromptSubmit", &fired);
        Ok(context)
    }

    /// Commits what hooks added as system notes of step `meta`.
    pub(super) async fn commit_hook_context(
        &mut self,
        context: Vec<String>,
        meta: Meta,
    ) -> Result<(), String> {
        for text in context {
            let note = AgentEvent::Input {
                text,
                source: InputSource::System,
                meta,
                images: Vec::new(),
            };
            self.commit(note).await?;
        }
        Ok(())
    }

    /// The model is done: runs the `Stop` hooks (`stop_hook_active`: this
    /// turn already went on for one). `Some`: the note that makes the turn
    /// go on; `None` once they let it end or it went on
    /// [`MAX_STOP_CONTINUATIONS`] times.
    pub(super) async fn stop_hooks(
        &self,
        continued: u32,
        cancel: &CancellationToken,
    ) -> Option<String> {
        let fields = serde_json::json!({ "stop_hook_active": continued > 0 });
        let reason = self
            .fire(HookEvent::Stop, "", fields, cancel)
            .await
            .blocked?;
        if cancel.is_cancelled() {
            return None;
        }
        if continued >= MAX_STOP_CONTINUATIONS {
            self.warn_user(format!(
                "a Stop hook asked the turn to go on again ({reason}); it already went on {MAX_STOP_CONTINUATIONS} times, so it ends here"
            ));
            return None;
        }
        Some(format!("[Stop hook] the turn is not over: {reason}"))
    }

    /// Runs the `PreCompact` hooks (`trigger`: `manual` or `auto`); a block
    /// is only told to the user.
    pub(super) async fn pre_compact_hooks(&self, trigger: &str, cancel: &CancellationToken) {
        let fields = serde_json::json!({ "trigger": trigger, "custom_instructions": "" });
        let fired = self
            .fire(HookEvent::PreCompact, trigger, fields, cancel)
            .await;
        if let Some(reason) = fired.blocked {
            self.warn_user(format!("a PreCompact hook said: {reason}"));
        }
    }

    fn warn_user(&self, text: String) {
        self.shared.hub.notice(Notice::warning(text));
    }
}

/// Adds what `fired` brought as one note, labelled on its first line (the
/// line a front end shows).
fn push_context(context: &mut Vec<String>, event: &str, fired: &Fired) {
    if !fired.context.is_empty() {
        context.push(format!("[{event} hook] {}", fired.context_text()));
    }
}
