//! [`SessionError`]: everything the session store can report.

use std::path::PathBuf;

/// A failure of the session store, classified by what the caller can do about it.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No session with this id exists in the database.
    #[error("session does not exist: {0}")]
    NotFound(String),
    /// Another live light-agent process has the session open: two writers
    /// would interleave their turns in one log.
    #[error(
        "session {0} is in use by another light-agent process; wait for it to finish, or start a new session"
    )]
    Busy(String),
    /// A short id matches several sessions.
    #[error("session id `{input}` matches {} sessions: {}; give more characters", candidates.len(), candidate_list(candidates))]
    Ambiguous {
        /// What was given.
        input: String,
        /// The sessions it matches, newest first.
        candidates: Vec<super::SessionInfo>,
    },
    /// The event is transient (a delta) and never belongs in the log; the
    /// payload is the event's `type` tag.
    #[error("transient `{0}` events are not persisted")]
    Transient(&'static str),
    /// The file exists but is not a usable SQLite database. Moving it aside
    /// lets light-agent start a fresh one.
    #[error("session database {path} is corrupt or not a SQLite file: {source}")]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The database was written by a newer light-agent with a schema this
    /// build does not know.
    #[error(
        "session database {path} has schema version {found}; this build supports up to {supported}"
    )]
    UnsupportedSchema {
        /// The database file.
        path: PathBuf,
        /// `user_version` found in the file.
        found: i64,
        /// Highest version this build can read and write.
        supported: i64,
    },
    /// SQLite failed (locked past the busy timeout, disk full, I/O error, …).
    #[error("session database error: {0}")]
    Db(#[from] rusqlite::Error),
    /// A filesystem operation around the database failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was attempted, e.g. "cannot create directory".
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A stored event could not be read back (or an event could not be
    /// encoded for storage).
    #[error("invalid JSON for {what}: {source}")]
    Decode {
        /// Which payload, e.g. "event 17 of sess_…".
        what: String,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// The store thread is gone (it panicked or was shut down); no further
    /// request can succeed through this handle.
    #[error("session store is closed")]
    Closed,
}

fn candidate_list(candidates: &[super::SessionInfo]) -> String {
    candidates
        .iter()
        .map(|c| match c.title.as_deref().filter(|t| !t.is_empty()) {
            Some(title) => format!("{} ({title})", c.id),
            None => c.id.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
