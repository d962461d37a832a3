//! One model call: stream with retries, deltas shown live, full events
//! committed when the stream ends. A stream cut after part of the answer
//! was shown is retried like any other failure, after a
//! [`Notice::PartialDropped`] tells hosts to drop that part; when the
//! retries are exhausted (or the user interrupts) what was shown is
//! committed, so the log matches the screen.

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::worker::Worker;
use crate::ai::repetition::RepetitionGuard;
use crate::ai::{AiError, AiErrorKind, StreamRequest, sleep_or_cancel};
use crate::protocol::Notice;
use crate::protocol::{AgentEvent, Meta, ToolCall};

pub(super) enum CallOutcome {
    /// The model answered; these are its tool calls (maybe none), and the
    /// input tokens the provider reported for the request (0: none).
    Finished {
        calls: Vec<ToolCall>,
        reported_input: u64,
    },
    /// The user interrupted.
    Cancelled,
    /// The call failed for good.
    Failed(AiError),
    /// Persisting failed; the message explains.
    Stopped(String),
    /// The model streamed the same text over and over and was stopped;
    /// the message says so (what it said before the loop is committed).
    Looped(String),
}

/// What one attempt streamed so far.
#[derive(Default)]
struct Attempt {
    thought: String,
    output: String,
    saw_delta: bool,
    finals: Vec<AgentEvent>,
    thought_guard: RepetitionGuard,
    output_guard: RepetitionGuard,
}

impl Worker {
    pub(super) async fn call_model(
        &mut self,
        request: StreamRequest,
        meta: Meta,
        cancel: &CancellationToken,
    ) -> CallOutcome {
        let mut attempt_no = 0;
        loop {
            let mut attempt = Attempt::default();
            let mut stream = self.adaptor.stream(request.clone(), cancel.child_token());
            let failure = loop {
                let item = tokio::select! {
                    biased;
                    _ = cancel.cancelled() => break None,
                    item = stream.next() => item,
                };
                match item {
                    Some(Ok(event)) => {
                        if self.take(&mut attempt, event, meta) {
                            drop(stream);
                            return self.stop_loop(attempt, meta).await;
                        }
                    }
                    Some(Err(e)) => break Some(e),
                    None => return self.finish(attempt, meta).await,
                }
            };
            drop(stream);
            let error = match failure {
                Some(e) if !(e.kind == AiErrorKind::Aborted && cancel.is_cancelled()) => e,
                _ => {
                    return self
                        .keep_partial(attempt, meta, CallOutcome::Cancelled)
                        .await;
                }
            };
            let Some(delay) = self.loop_config.retry.delay_for(attempt_no, &error) else {
                if attempt.saw_delta {
                    // Kept so the user's screen and the log agree; the
                    // `agent_stop(llm)` after it tells the next request
                    // that this answer was cut off.
                    let error = AiError {
                        message: format!("the answer was cut off: {}", error.message),
                        ..error
                    };
                    return self
                        .keep_partial(attempt, meta, CallOutcome::Failed(error))
                        .await;
                }
                return CallOutcome::Failed(error);
            };
            attempt_no += 1;
            if attempt.saw_delta {
                // Two answers are never mixed in one step: what was shown
                // of this one is dropped, and the retry starts afresh.
                self.shared.hub.notice(Notice::PartialDropped);
            }
            tracing::warn!(attempt = attempt_no, ?delay, error = %error, "model call failed; retrying");
            self.shared.hub.notice(Notice::Retrying {
                attempt: attempt_no,
                delay,
                message: error.message.clone(),
            });
            if sleep_or_cancel(delay, cancel).await.is_err() {
                return CallOutcome::Cancelled;
            }
        }
    }

    /// Takes one streamed event; `true` when the text it ends has become a
    /// loop ([`RepetitionGuard`]) and the call must stop.
    fn take(&self, attempt: &mut Attempt, event: AgentEvent, meta: Meta) -> bool {
        let looped = match &event {
            AgentEvent::ThoughtDelta { text, .. } => {
                attempt.thought.push_str(text);
                attempt.thought_guard.check(&attempt.thought).is_some()
            }
            AgentEvent::OutputDelta { text, .. } => {
                attempt.output.push_str(text);
                attempt.output_guard.check(&attempt.output).is_some()
            }
            _ => {
                attempt.finals.push(event.with_meta(meta));
                return false;
            }
        };
        attempt.saw_delta = true;
        self.shared.hub.emit(event.with_meta(meta));
        looped
    }

    /// Ends a call whose text became a loop: commits what came before the
    /// loop and the repeated unit once, not the repetitions (they would
    /// fill the next request and lead the model back into the loop).
    async fn stop_loop(&mut self, mut attempt: Attempt, meta: Meta) -> CallOutcome {
        let mut repeated = 0;
        let found = [attempt.thought_guard.found(), attempt.output_guard.found()];
        for (text, found) in [&mut attempt.thought, &mut attempt.output]
            .into_iter()
            .zip(found)
        {
            if let Some(found) = found {
                let kept = found.keep(text).len();
                repeated += text.len() - kept;
                text.truncate(kept);
            }
        }
        tracing::warn!(repeated, "the model repeated itself; stopped the call");
        let message = format!(
            "the model repeated the same text over and over ({repeated} bytes of it) and was stopped; \
             what it said before is kept. Ask again, or rephrase"
        );
        self.keep_partial(attempt, meta, CallOutcome::Looped(message))
            .await
    }

    /// Commits the full events of a finished stream. A stream whose adaptor
    /// sent deltas without their full event still gets one.
    async fn finish(&mut self, attempt: Attempt, meta: Meta) -> CallOutcome {
        let has = |kind: &str| attempt.finals.iter().any(|e| e.kind() == kind);
        let mut events = Vec::new();
        if !attempt.thought.is_empty() && !has("thought") {
            events.push(AgentEvent::Thought {
                text: attempt.thought.clone(),
                meta,
            });
        }
        if !attempt.output.is_empty() && !has("output") {
            events.push(AgentEvent::Output {
                text: attempt.output.clone(),
                meta,
            });
        }
        events.extend(attempt.finals);
        let mut calls = Vec::new();
        let mut reported_input = 0;
        for mut event in events {
            if let AgentEvent::AgentTrace { usage, .. } = &event {
                reported_input = usage.input;
            }
            if let AgentEvent::ToolCalls { calls: these, .. } = &mut event {
                self.make_call_ids_unique(these, meta).await;
                these.iter_mut().for_each(super::web_fetch::scrub_call);
                calls.extend(these.iter().cloned());
            }
            if let Err(message) = self.commit(event).await {
                return CallOutcome::Stopped(message);
            }
        }
        CallOutcome::Finished {
            calls,
            reported_input,
        }
    }

    /// Commits what the user already saw of a stream that did not finish.
    async fn keep_partial(
        &mut self,
        attempt: Attempt,
        meta: Meta,
        outcome: CallOutcome,
    ) -> CallOutcome {
        let partial = [
            AgentEvent::Thought {
                text: attempt.thought,
                meta,
            },
            AgentEvent::Output {
                text: attempt.output,
                meta,
            },
        ];
        for event in partial.into_iter().filter(|e| !text_of(e).is_empty()) {
            if let Err(message) = self.commit(event).await {
                return CallOutcome::Stopped(message);
            }
        }
        outcome
    }
}

fn text_of(event: &AgentEvent) -> &str {
    match event {
        AgentEvent::Thought { text, .. } | AgentEvent::Output { text, .. } => text,
        _ => "",
    }
}
