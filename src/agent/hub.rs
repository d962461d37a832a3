//! Fan-out of events, job updates and notices to subscribers.

use std::sync::Mutex;

use tokio::sync::mpsc;

use super::lifecycle::AgentMessage;
use crate::protocol::{AgentEvent, JobUpdate, Notice};

/// Unbounded per-subscriber channels: a slow reader never makes the loop
/// wait, and nothing is dropped. Closed subscribers are pruned on send.
#[derive(Default)]
pub(super) struct Hub {
    events: Mutex<Vec<mpsc::UnboundedSender<AgentEvent>>>,
    notices: Mutex<Vec<mpsc::UnboundedSender<Notice>>>,
    all: Mutex<Vec<mpsc::UnboundedSender<AgentMessage>>>,
}

impl Hub {
    pub(super) fn subscribe(&self) -> mpsc::UnboundedReceiver<AgentEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.events).push(tx);
        rx
    }

    pub(super) fn subscribe_notices(&self) -> mpsc::UnboundedReceiver<Notice> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.notices).push(tx);
        rx
    }

    pub(super) fn subscribe_all(&self) -> mpsc::UnboundedReceiver<AgentMessage> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.all).push(tx);
        rx
    }

    /// Sends `event` to every subscriber; the last one gets it without a
    /// copy (on the delta hot path there is usually only one).
    pub(super) fn emit(&self, event: AgentEvent) {
        let mut all = lock(&self.all);
        all.retain(|tx| !tx.is_closed());
        let mut subscribers = lock(&self.events);
        subscribers.retain(|tx| !tx.is_closed());
        match all.split_last() {
            Some((last, others)) => {
                for tx in subscribers.iter() {
                    let _ = tx.send(event.clone());
                }
                for tx in others {
                    let _ = tx.send(AgentMessage::Event(event.clone()));
                }
                let _ = last.send(AgentMessage::Event(event));
            }
            None => {
                if let Some((last, others)) = subscribers.split_last() {
                    for tx in others {
                        let _ = tx.send(event.clone());
                    }
                    let _ = last.send(event);
                }
            }
        }
    }

    pub(super) fn job(&self, update: JobUpdate) {
        lock(&self.all).retain(|tx| tx.send(AgentMessage::Job(update.clone())).is_ok());
    }

    pub(super) fn notice(&self, notice: Notice) {
        lock(&self.all).retain(|tx| tx.send(AgentMessage::Notice(notice.clone())).is_ok());
        lock(&self.notices).retain(|tx| tx.send(notice.clone()).is_ok());
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Sending cannot panic mid-update, so a poisoned list is still valid.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
