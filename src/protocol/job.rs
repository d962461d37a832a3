//! The life of every job an agent runs (a prompt, a compaction, a session
//! load), as plain messages a host consumes.
//!
//! Each submitted job gets a [`JobId`] at once. Its life is then reported
//! in order: `Queued`, then either `Withdrawn` (taken back before it ran)
//! or `Started` … `Ended`. A host derives "running", "idle" and "queued"
//! from these alone: `Started` comes before the job's first event, `Ended`
//! after its last one (a prompt's `agent_stop`).

use serde::{Deserialize, Serialize};

use super::StopCause;

/// The id of one submitted job, unique within an agent; ids rise from 1 in
/// submission order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct JobId(pub u64);

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// A user prompt: one turn.
    Prompt,
    /// Summarising older steps now (`/compact`).
    Compact,
    /// Reading the session's context window from the store.
    LoadSession,
}

/// A prompt taken out of the queue before it ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WithdrawnPrompt {
    /// Its id.
    pub id: JobId,
    /// Its text, for the host to give back to the user.
    pub text: String,
}

/// One step in a job's life.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "update", rename_all = "snake_case")]
pub enum JobUpdate {
    /// The job is in the queue; `text` is the prompt's text (empty for
    /// other kinds).
    Queued {
        /// Which job.
        id: JobId,
        /// What it does.
        kind: JobKind,
        /// The prompt text.
        text: String,
    },
    /// The job left the queue and runs now; its events follow.
    Started {
        /// Which job.
        id: JobId,
        /// What it does.
        kind: JobKind,
    },
    /// The job finished. For a prompt this follows its `agent_stop`, whose
    /// cause and message it repeats.
    Ended {
        /// Which job.
        id: JobId,
        /// What it does.
        kind: JobKind,
        /// How it ended (`done`, `user` when cancelled, `llm`, `runtime`).
        cause: StopCause,
        /// What happened, in words (may be empty).
        message: String,
        /// Estimated tokens of the next request's context, right after.
        window_tokens: u64,
    },
    /// Queued prompts were taken back, oldest first; they will never run.
    Withdrawn {
        /// The prompts, oldest first.
        prompts: Vec<WithdrawnPrompt>,
    },
}
