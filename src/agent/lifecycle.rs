//! The agent's one ordered stream: events, job updates and notices.
//! The job lifecycle itself ([`JobUpdate`]) is part of the protocol, so a
//! host (the TUI) reads it without knowing the agent.

use super::Notice;
use crate::protocol::{AgentEvent, JobUpdate};

/// Everything an agent reports, in one ordered stream
/// ([`Agent::subscribe_all`](super::Agent::subscribe_all)).
#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage {
    /// A session event, deltas included.
    Event(AgentEvent),
    /// A job's life.
    Job(JobUpdate),
    /// A host notice (retry wait, warning).
    Notice(Notice),
}
