//! [`SessionError`]: everything the session store can report.

use std::path::PathBuf;

/// A failure of the session store, classified by what the caller can do about it.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No session with this id exists in the database.
    #[error("session does not exist: {0}")]
    NotFound(String),
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
