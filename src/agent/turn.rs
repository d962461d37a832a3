//! One turn: the model–tool loop from an `input` event to its `agent_stop`.

use tokio_util::sync::CancellationToken;

use super::TurnOutcome;
use super::image::Image;
use super::stream::CallOutcome;
use super::worker::Worker;
use crate::ai::AiErrorKind;
use crate::context::ContextError;
use crate::protocol::Notice;
use crate::protocol::{AgentEvent, InputSource, Meta, StopCause};

impl Worker {
    /// Runs a turn to its end and commits exactly one `agent_stop`.
    pub(super) async fn run_turn(
        &mut self,
        text: String,
        images: Vec<Image>,
        cancel: CancellationToken,
    ) -> TurnOutcome {
        let loaded = match self.needs_load {
            true => self.load_session().await.map_err(|e| e.to_string()),
            false => Ok(()),
        };
        let context = match self.before_prompt(&text, &cancel).await {
            Ok(context) => context,
            Err(refused) => return refused,
        };
        let turn = self.next_turn().await;
        self.advance_turn();
        tracing::info!(turn, "turn started");
        let (cause, message, step) = self
            .steps(turn, (text, context), images, &cancel, loaded)
            .await;
        // The turn's changes are all in the journal when it ends: undo, a
        // rewind or the process's exit may follow at once.
        self.settle_changes().await;
        tracing::info!(turn, steps = step, ?cause, %message, "turn ended");
        let stop = AgentEvent::AgentStop {
            cause,
            message: message.clone(),
            meta: Meta::new(turn, step),
        };
        self.update_window_tokens();
        if let Err(e) = self.commit(stop).await {
            tracing::error!("{e}");
        }
        TurnOutcome { cause, message }
    }

    async fn steps(
        &mut self,
        turn: u64,
        (text, context): (String, Vec<String>),
        images: Vec<Image>,
        cancel: &CancellationToken,
        loaded: Result<(), String>,
    ) -> (StopCause, String, u32) {
        let input = AgentEvent::Input {
            text,
            source: InputSource::User,
            meta: Meta::new(turn, 1),
            images: images.iter().map(|i| i.reference().clone()).collect(),
        };
        if let Err(message) = self.commit_input(input, images).await {
            return (StopCause::Runtime, message, 1);
        }
        if let Err(message) = self.commit_hook_context(context, Meta::new(turn, 1)).await {
            return (StopCause::Runtime, message, 1);
        }
        if let Err(message) = loaded {
            // Without its history the turn would answer out of context.
            return (StopCause::Runtime, message, 1);
        }
        let mut step = 1;
        let mut compacted_for_overflow = false;
        let mut stop_continuations = 0;
        loop {
            let meta = Meta::new(turn, step);
            if cancel.is_cancelled() {
                return (StopCause::User, self.interrupt_reason(), step);
            }
            if step > self.loop_config.max_steps {
                let max = self.loop_config.max_steps;
                return (
                    StopCause::Runtime,
                    format!("stopped after reaching the limit of {max} steps"),
                    step - 1,
                );
            }

            let tools = self.tools.specs();
            let built = tokio::select! {
                biased;
                _ = cancel.cancelled() => return (StopCause::User, self.interrupt_reason(), step),
                built = self.context.build(&self.window, &tools, self.adaptor.as_ref(), compacted_for_overflow, meta) => built,
            };
            let built = match built {
                Ok(built) => built,
                Err(e @ ContextError::PromptTooLarge { .. }) => {
                    return (StopCause::Runtime, e.to_string(), step);
                }
                Err(e) => {
                    return (
                        StopCause::Runtime,
                        format!("building the context failed: {e}"),
                        step,
                    );
                }
            };
            if let (Some(summary), Some(window)) = (built.summary, built.window) {
                // The summary is made inside the build; the hooks run before
                // it replaces the window.
                self.pre_compact_hooks("auto", cancel).await;
                if let Err(message) = self.commit(summary).await {
                    return (StopCause::Runtime, message, step);
                }
                self.window = window;
                self.session_start = Some("compact");
            }
            self.shared
                .window_tokens
                .store(built.tokens, std::sync::atomic::Ordering::Relaxed);
            self.recall
                .set_page(self.context.recall_page(&self.window, &tools));

            let images = self.request_images(&built.events).await;
            let request = crate::ai::StreamRequest {
                system_prompt: built.system_prompt.to_string(),
                events: built.events,
                tools,
                images,
            };
            let calls = match self.call_model(request, meta, cancel).await {
                CallOutcome::Finished {
                    calls,
                    reported_input,
                } => {
                    self.context.calibrate(reported_input, built.uncalibrated);
                    calls
                }
                CallOutcome::Cancelled => return (StopCause::User, self.interrupt_reason(), step),
                CallOutcome::Stopped(message) => return (StopCause::Runtime, message, step),
                CallOutcome::Looped(message) => return (StopCause::Llm, message, step),
                CallOutcome::Failed(e)
                    if e.kind == AiErrorKind::ContextLength && !compacted_for_overflow =>
                {
                    // Our count was short for this provider: fit tighter
                    // (and fold older steps) and send it once more.
                    tracing::warn!(tokens = built.tokens, error = %e, "over the provider's window; refitting");
                    self.context.tighten(built.uncalibrated);
                    self.shared.hub.notice(Notice::warning(format!(
                        "the provider said the request (about {} tokens by our count) is over the model's context window ({}); fitted it tighter and sent it once more",
                        built.tokens, e.message
                    )));
                    compacted_for_overflow = true;
                    continue;
                }
                CallOutcome::Failed(e) if e.kind == AiErrorKind::ContextLength => {
                    let message = format!("{e} (even after fitting the request tighter)");
                    return (StopCause::Llm, message, step);
                }
                CallOutcome::Failed(e) => return (StopCause::Llm, e.to_string(), step),
            };
            compacted_for_overflow = false;
            self.update_window_tokens();
            if calls.is_empty() {
                let Some(note) = self.stop_hooks(stop_continuations, cancel).await else {
                    if cancel.is_cancelled() {
                        return (StopCause::User, self.interrupt_reason(), step);
                    }
                    return (StopCause::Done, String::new(), step);
                };
                stop_continuations += 1;
                step += 1;
                let meta = Meta::new(turn, step);
                if let Err(message) = self.commit_hook_context(vec![note], meta).await {
                    return (StopCause::Runtime, message, step);
                }
                continue;
            }
            if let Err(message) = self.run_tools(calls, meta, cancel).await {
                return (StopCause::Runtime, message, step);
            }
            if cancel.is_cancelled() {
                return (StopCause::User, self.interrupt_reason(), step);
            }
            step += 1;
        }
    }
}
