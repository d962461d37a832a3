//! Opening the database file: connection settings and `user_version`
//! migrations.
//!
//! Settings, and why:
//! - `journal_mode=WAL`: readers never block the writer, and several
//!   processes (two terminals in one project) can share the file.
//! - `synchronous=NORMAL`: in WAL mode a commit is durable against a crash
//!   or kill of the process (the WAL is in the OS page cache); only a power
//!   loss or kernel crash can roll back the last few commits. That trade buys
//!   appends without an fsync each on the agent's hot path.
//! - `busy_timeout`: a writer waits for another connection's write
//!   transaction instead of failing with `SQLITE_BUSY`.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, TransactionBehavior};

use super::SessionError;

/// How long a writer waits for another connection's lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Migration `n` (0-based) upgrades a database from `user_version = n` to
/// `n + 1`. Append new migrations; never edit a released one.
const MIGRATIONS: &[&str] = &[
    // v1: sessions and their append-only event log.
    //
    // `event_count`, `turn_count` and `last_turn` are maintained by the
    // append transaction so that listing sessions and starting a turn never
    // scan a long log. The partial and meta indexes serve recall by call id,
    // finding the latest summary and reading the window after it, each
    // without walking the whole log.
    "CREATE TABLE sessions (
        id          TEXT PRIMARY KEY NOT NULL,
        cwd         TEXT NOT NULL,
        title       TEXT,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        status      TEXT NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'running')),
        owner_pid   INTEGER,
        metadata    TEXT,
        event_count INTEGER NOT NULL DEFAULT 0,
        turn_count  INTEGER NOT NULL DEFAULT 0,
        last_turn   INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at);
    CREATE INDEX sessions_by_update ON sessions (updated_at);
    CREATE TABLE events (
        session_id   TEXT NOT NULL,
        seq          INTEGER NOT NULL,
        type         TEXT NOT NULL,
        turn         INTEGER NOT NULL,
        step         INTEGER NOT NULL,
        tool_call_id TEXT,
        payload      TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    CREATE INDEX events_by_tool_call ON events (session_id, tool_call_id, seq)
        WHERE tool_call_id IS NOT NULL;
    CREATE INDEX events_summaries ON events (session_id, seq)
        WHERE type = 'agent_summary';
    CREATE INDEX events_by_meta ON events (session_id, turn, step);",
    // v2: an index of every tool call (tool, path, intent), so that
    // `recall_search` finds old calls without decoding the log. Filled by
    // the append of each `tool_calls` event; existing logs are backfilled.
    "CREATE TABLE tool_calls (
        session_id TEXT NOT NULL,
        seq        INTEGER NOT NULL,
        call_id    TEXT NOT NULL,
        tool       TEXT NOT NULL,
        path       TEXT,
        intent     TEXT,
        turn       INTEGER NOT NULL,
        step       INTEGER NOT NULL
    );
    CREATE INDEX tool_calls_by_seq ON tool_calls (session_id, seq);
    CREATE INDEX tool_calls_by_tool ON tool_calls (session_id, tool, seq);
    INSERT INTO tool_calls (session_id, seq, call_id, tool, path, intent, turn, step)
    SELECT e.session_id, e.seq,
           COALESCE(json_extract(c.value, '$.id'), ''),
           COALESCE(json_extract(c.value, '$.name'), ''),
           CASE json_type(c.value, '$.args.path') WHEN 'text'
               THEN json_extract(c.value, '$.args.path') END,
           CASE json_type(c.value, '$.args._intent') WHEN 'text'
               THEN json_extract(c.value, '$.args._intent') END,
           e.turn, e.step
    FROM events AS e, json_each(e.payload, '$.calls') AS c
    WHERE e.type = 'tool_calls' AND json_valid(e.payload);",
    // v3: the undo journal. Before a tool changes a file, its prior content
    // (NULL: it did not exist) and mode are stored with the turn; `after_hash`
    // (xxh3 of what the tool wrote, NULL: removed) lets undo leave alone a
    // file someone else changed since. `undone` marks turns already undone.
    "CREATE TABLE file_changes (
        seq         INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        turn        INTEGER NOT NULL,
        path        TEXT NOT NULL,
        prior       BLOB,
        mode        INTEGER,
        after_hash  INTEGER,
        undone      INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX file_changes_by_turn ON file_changes (session_id, undone, turn, seq);",
    // v4: what the user decided about a project's own settings, e.g. its
    // `.mcp.json`: per directory and subject, for the content (`digest`)
    // decided on, so a changed file is asked about again.
    "CREATE TABLE project_choices (
        project     TEXT NOT NULL,
        subject     TEXT NOT NULL,
        digest      TEXT NOT NULL,
        accepted    INTEGER NOT NULL,
        decided_at  INTEGER NOT NULL,
        PRIMARY KEY (project, subject)
    );",
    // v5: the images prompts carried, once per content (`hash`: SHA-256 of
    // `data`, lowercase hex), shared by every session that sent the same
    // bytes. An `input` event references them by hash; they are written in
    // that event's append transaction.
    "CREATE TABLE images (
        hash        TEXT PRIMARY KEY NOT NULL,
        media_type  TEXT NOT NULL,
        data        BLOB NOT NULL,
        created_at  INTEGER NOT NULL
    );",
    // v6: contents the undo journal holds by hash (a command's snapshot),
    // stored once whatever number of changes or sessions refer to them; a
    // change whose prior content is such a blob names it in `prior_blob`.
    "CREATE TABLE journal_blobs (
        hash        BLOB PRIMARY KEY NOT NULL,
        content     BLOB NOT NULL
    );
    ALTER TABLE file_changes ADD COLUMN prior_blob BLOB;",
    // v7: rewinds. A rewind hides the turns `from_turn..=through_turn` from
    // the context window (the model's next request, a resume); the events
    // stay in the log for `show` and recall. `at_seq` is the log's last seq
    // when it happened, where `show` marks it. Never deleted.
    "CREATE TABLE rewinds (
        session_id   TEXT NOT NULL,
        from_turn    INTEGER NOT NULL,
        through_turn INTEGER NOT NULL,
        at_seq       INTEGER NOT NULL,
        created_at   INTEGER NOT NULL
    );
    CREATE INDEX rewinds_by_session ON rewinds (session_id, from_turn);",
    // v8: subagents. A child session (the `task` tool's) names the session
    // and the tool call that started it; session lists leave children out,
    // `show` prints a child's steps under its call.
    "CREATE TABLE session_children (
        child_id       TEXT PRIMARY KEY NOT NULL,
        parent_id      TEXT NOT NULL,
        parent_call_id TEXT NOT NULL,
        agent          TEXT NOT NULL
    );
    CREATE INDEX session_children_by_parent ON session_children (parent_id);",
];

/// The schema version this build reads and writes.
pub(super) const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Opens (creating if needed) the database at `path`, applies the connection
/// settings and brings the schema up to [`SCHEMA_VERSION`].
///
/// Fails with [`SessionError::Corrupt`] when the file is not a SQLite
/// database, and [`SessionError::UnsupportedSchema`] when a newer build wrote
/// it.
pub(super) fn open_connection(path: &Path) -> Result<Connection, SessionError> {
    let classify = |error: rusqlite::Error| classify_open_error(path, error);
    let mut conn = Connection::open(path).map_err(classify)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(classify)?;
    // The first statement reads the file header, so a garbage file fails here.
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(classify)?;
    if !mode.eq_ignore_ascii_case("wal") {
        tracing::warn!(%mode, path = %path.display(), "session database is not in WAL mode");
    }
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(classify)?;
    migrate(&mut conn, path)?;
    Ok(conn)
}

fn migrate(conn: &mut Connection, path: &Path) -> Result<(), SessionError> {
    let classify = |error: rusqlite::Error| classify_open_error(path, error);
    let unsupported = |found| SessionError::UnsupportedSchema {
        path: path.to_path_buf(),
        found,
        supported: SCHEMA_VERSION,
    };
    let version = |conn: &Connection| -> rusqlite::Result<i64> {
        conn.pragma_query_value(None, "user_version", |row| row.get(0))
    };
    // Checked outside a write transaction first, so the common case (already
    // current) takes no write lock.
    let found = version(conn).map_err(classify)?;
    if found == SCHEMA_VERSION {
        return Ok(());
    }
    if !(0..SCHEMA_VERSION).contains(&found) {
        return Err(unsupported(found));
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(classify)?;
    // Another process may have migrated while we waited for the lock.
    let found = version(&tx).map_err(classify)?;
    if !(0..=SCHEMA_VERSION).contains(&found) {
        return Err(unsupported(found));
    }
    for migration in MIGRATIONS.iter().skip(found as usize) {
        tx.execute_batch(migration).map_err(classify)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(classify)?;
    tx.commit().map_err(classify)?;
    Ok(())
}

/// Names the two "this file is not usable" SQLite codes as
/// [`SessionError::Corrupt`]; everything else stays [`SessionError::Db`].
fn classify_open_error(path: &Path, error: rusqlite::Error) -> SessionError {
    match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => SessionError::Corrupt {
            path: path.to_path_buf(),
            source: error,
        },
        _ => SessionError::Db(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_file_gets_current_schema_and_wal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite3");
        let conn = open_connection(&path).unwrap();
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let mode: String = conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        drop(conn);
        // Reopening an up-to-date file is a no-op, not a second migration.
        open_connection(&path).unwrap();
    }

    #[test]
    fn a_version_1_log_gets_its_tool_calls_indexed_by_the_migration() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite3");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO events (session_id, seq, type, turn, step, payload, created_at)
             VALUES ('s', 1, 'tool_calls', 2, 1, ?1, 0)",
            [r#"{"type":"tool_calls","calls":[{"id":"c1","name":"read_file","args":{"path":"src/a.rs","_intent":"read a"}},{"id":"c2","name":"grep","args":"not json"}],"meta":{"turn":2,"step":1}}"#],
        )
        .unwrap();
        drop(conn);
        let conn = open_connection(&path).unwrap();
        let rows: Vec<(String, String, Option<String>, Option<String>)> = conn
            .prepare("SELECT call_id, tool, path, intent FROM tool_calls ORDER BY call_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            [
                (
                    "c1".into(),
                    "read_file".into(),
                    Some("src/a.rs".into()),
                    Some("read a".into())
                ),
                ("c2".into(), "grep".into(), None, None),
            ]
        );
    }

    #[test]
    fn newer_schema_is_refused_with_both_versions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite3");
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 5)
            .unwrap();
        drop(conn);
        match open_connection(&path) {
            Err(SessionError::UnsupportedSchema {
                found, supported, ..
            }) => {
                assert_eq!(found, SCHEMA_VERSION + 5);
                assert_eq!(supported, SCHEMA_VERSION);
            }
            other => panic!("expected UnsupportedSchema, got {other:?}"),
        }
    }
}
