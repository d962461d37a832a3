//! One task per agent that turns its ordered stream into host events.
//!
//! Job updates are stamped with the op id of the prompt that made the job:
//! the actor records the pair under the same lock the forwarder takes to
//! read it, around the agent's `submit`, so even a `queued` update sent
//! from inside `submit` finds its op id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::lock;
use crate::agent::AgentMessage;
use crate::protocol::{AgentEvent, HostEvent, JobId, JobUpdate, OpId, Plan};

/// Which op made which job of one agent.
pub(super) type JobOps = Arc<Mutex<HashMap<JobId, OpId>>>;

/// A running forwarder.
pub(super) struct Forwarder {
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl Forwarder {
    /// Forwards `messages` to `events` until stopped.
    pub(super) fn start(
        messages: UnboundedReceiver<AgentMessage>,
        jobs: JobOps,
        events: UnboundedSender<HostEvent>,
    ) -> Self {
        let stop = CancellationToken::new();
        let task = tokio::spawn(run(messages, jobs, events, stop.clone()));
        Self { stop, task }
    }

    /// Forwards what is already queued, then ends; resolves when the last
    /// of it is sent (what the old agent said last shows before whatever
    /// the host sends next).
    pub(super) async fn finish(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }
}

async fn run(
    mut messages: UnboundedReceiver<AgentMessage>,
    jobs: JobOps,
    events: UnboundedSender<HostEvent>,
    stop: CancellationToken,
) {
    let mut plans = Plans::default();
    let mut send = |message: AgentMessage| {
        let plan = match &message {
            AgentMessage::Event(event) => plans.see(event),
            _ => None,
        };
        let _ = events.send(to_event(message, &jobs));
        if let Some(plan) = plan {
            let _ = events.send(HostEvent::Plan { plan });
        }
    };
    loop {
        tokio::select! {
            biased;
            message = messages.recv() => match message {
                Some(message) => send(message),
                None => return,
            },
            () = stop.cancelled() => {
                while let Ok(message) = messages.try_recv() {
                    send(message);
                }
                return;
            }
        }
    }
}

/// The `update_plan` calls waiting for their results, by call id.
#[derive(Default)]
struct Plans(HashMap<String, Plan>);

impl Plans {
    /// The plan `event` makes current: an `update_plan` call's, once its
    /// result says it was accepted.
    fn see(&mut self, event: &AgentEvent) -> Option<Plan> {
        match event {
            AgentEvent::ToolCalls { calls, .. } => {
                for call in calls {
                    if let Some(plan) = Plan::from_call(call) {
                        self.0.insert(call.id.clone(), plan);
                    }
                }
                None
            }
            AgentEvent::ToolResult { outcome, .. } => {
                self.0.remove(&outcome.id).filter(|_| !outcome.is_error)
            }
            _ => None,
        }
    }
}

fn to_event(message: AgentMessage, jobs: &JobOps) -> HostEvent {
    match message {
        AgentMessage::Event(event) => HostEvent::Agent { event },
        AgentMessage::Notice(notice) => HostEvent::Notice { op: None, notice },
        AgentMessage::Job(update) => {
            let mut jobs = lock(jobs);
            let op = match &update {
                JobUpdate::Queued { id, .. } | JobUpdate::Started { id, .. } => {
                    jobs.get(id).cloned()
                }
                JobUpdate::Ended { id, .. } => jobs.remove(id),
                JobUpdate::Withdrawn { prompts } => {
                    // One update may answer several prompts; each keeps its
                    // job id, so the first one's op names the update.
                    let ops: Vec<OpId> =
                        prompts.iter().filter_map(|p| jobs.remove(&p.id)).collect();
                    ops.into_iter().next()
                }
            };
            HostEvent::Job { op, update }
        }
    }
}
