//! Durable sessions in SQLite.
//!
//! A **session** is one conversation bound to a canonical cwd; its history is
//! an append-only log of canonical [`AgentEvent`](crate::protocol::AgentEvent)s (deltas are never
//! stored).
//!
//! - [`SessionManager`] opens the database file and creates, finds and lists
//!   sessions, and marks them running or idle.
//! - [`AgentSession`] is one session's log: `append`, the context window
//!   (`load`, which starts at the latest summary), `load_all`, `load_tail`,
//!   and `tool_result` recall over the whole log.
//! - The undo journal (`journal.rs`): each file's prior content and mode
//!   per turn ([`AgentSession::record_changes`], `latest_undoable`,
//!   `mark_undone`, `live_changes`).
//! - [`SessionInfo`] / [`SessionStatus`] describe a session for listings.
//! - [`SessionError`] is every failure, typed.
//!
//! Inside: `schema` opens the file (WAL, `synchronous=NORMAL`, busy timeout,
//! `user_version` migrations), `store` holds every SQL statement, `actor`
//! runs the store on its own thread behind a channel, `id` makes session ids
//! and `owner` decides whether a `running` session's process still exists.
//!
//! Durability: each append is one committed transaction. With WAL and
//! `synchronous=NORMAL` a committed event survives the process being killed;
//! a power loss may lose the last few commits.
//!
//! Architecture invariant: all SQL of light-agent lives in this module, and
//! it depends on `protocol` only — never on agent, ai or tui.

mod actor;
mod agent_session;
mod error;
mod id;
mod journal;
mod manager;
mod owner;
mod schema;
mod store;

use std::path::{Path, PathBuf};

pub use agent_session::AgentSession;
pub use error::SessionError;
pub use journal::{JournalEntry, NewJournalEntry};
pub use manager::SessionManager;

/// File name of the session database inside the data directory.
const DB_FILE_NAME: &str = "sessions.sqlite3";

/// Where the session database lives by default: `<home>/data/sessions.sqlite3`
/// when a light-agent home is given (`LIGHT_AGENT_HOME`, read by the
/// binary), else `sessions.sqlite3` in the platform data directory
/// (`$XDG_DATA_HOME/light-agent` on Linux). `None` when no home directory
/// can be determined.
pub fn default_db_path(home_override: Option<&Path>) -> Option<PathBuf> {
    match home_override {
        Some(home) => Some(home.join("data").join(DB_FILE_NAME)),
        None => directories::ProjectDirs::from("", "", "light-agent")
            .map(|dirs| dirs.data_dir().join(DB_FILE_NAME)),
    }
}

/// A session as listings show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// Session id (`sess_…`).
    pub id: String,
    /// Canonical working directory the session is bound to.
    pub cwd: PathBuf,
    /// Title, when one was given or set.
    pub title: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at: u64,
    /// Last create, append, status or title change, ms since the Unix epoch.
    /// Distinct across sessions and increasing in write order, so it may run
    /// a few ms ahead of the clock when sessions are written in the same ms.
    pub updated_at: u64,
    /// Whether a live process is running a turn in it.
    pub status: SessionStatus,
    /// Number of turns in the log (counted as turn numbers rise; turn 0,
    /// the default coordinate, is not a turn).
    pub turns: u64,
    /// Number of events in the log.
    pub events: u64,
}

/// Tokens one turn used, summed over its model calls (`agent_trace` events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TurnUsage {
    /// Turn number.
    pub turn: u64,
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
    /// Prompt tokens served from the provider's cache.
    pub cached: u64,
    /// Model calls in the turn.
    pub calls: u64,
}

/// The short form of a session id the UI shows: its last 8 characters (the
/// random part and one time character). Any unique prefix of it names the
/// session in every command.
pub fn short_id(id: &str) -> &str {
    let start = id
        .char_indices()
        .rev()
        .nth(store::SHORT_ID_LEN - 1)
        .map_or(0, |(i, _)| i);
    &id[start..]
}

/// Whether a session is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionStatus {
    /// No live process is running it (also when the process that marked it
    /// running has died).
    Idle,
    /// Marked running by a process that is still alive.
    Running,
}
