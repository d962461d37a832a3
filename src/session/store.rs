//! [`Store`]: the SQLite connection and every query, run only on the store
//! thread (see `actor.rs`).

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::owner::process_is_alive;
use super::{RecentLog, SessionError, SessionInfo, SessionStatus, TurnUsage};
use crate::protocol::{AgentEvent, Meta, ToolOutcome, now_millis};

/// The new `updated_at` of the session row being written (`?2` is now).
///
/// It is strictly greater than every other session's, so "newest first"
/// follows write order exactly even when sessions are written in the same
/// millisecond; it never moves backwards for a row either.
macro_rules! next_updated_at {
    () => {
        "MAX(?2, updated_at, COALESCE((
            SELECT other.updated_at + 1 FROM sessions AS other
            WHERE other.id <> sessions.id
            ORDER BY other.updated_at DESC LIMIT 1), 0))"
    };
}

const SESSION_COLUMNS: &str =
    "id, cwd, title, created_at, updated_at, status, owner_pid, event_count, turn_count";

/// The seq the next event of a session gets.
const NEXT_SEQ: &str = "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?1";

/// The condition an event of `events` meets when no rewind hid its turn
/// (see `rewind.rs`): the context window is made of such events only.
macro_rules! not_rewound {
    () => {
        "NOT EXISTS (SELECT 1 FROM rewinds AS r WHERE r.session_id = events.session_id
            AND events.turn BETWEEN r.from_turn AND r.through_turn)"
    };
}
pub(super) use not_rewound;

/// The newest summary of a session that no rewind hid.
const LATEST_SUMMARY: &str = concat!(
    "SELECT seq, payload FROM events
    WHERE session_id = ?1 AND type = 'agent_summary' AND ",
    not_rewound!(),
    " ORDER BY seq DESC LIMIT 1"
);

/// Non-summary events past a summary boundary `(?2, ?3)`, in log order,
/// rewound turns left out.
const AFTER_BOUNDARY: &str = concat!(
    "SELECT seq, payload FROM events
    WHERE session_id = ?1 AND type <> 'agent_summary' AND (turn, step) > (?2, ?3) AND ",
    not_rewound!(),
    " ORDER BY seq"
);

/// Every event no rewind hid, in log order (the window without a summary).
const LIVE: &str = concat!(
    "SELECT seq, payload FROM events WHERE session_id = ?1 AND ",
    not_rewound!(),
    " ORDER BY seq"
);

/// The newest result for a tool-call id.
const NEWEST_TOOL_RESULT: &str = "SELECT seq, payload FROM events
    WHERE session_id = ?1 AND tool_call_id = ?2 AND type = 'tool_result'
    ORDER BY seq DESC LIMIT 1";

/// The last `?2` events of a session no rewind hid, in log order.
const TAIL: &str = concat!(
    "SELECT seq, payload FROM (
        SELECT seq, payload FROM events WHERE session_id = ?1 AND ",
    not_rewound!(),
    " ORDER BY seq DESC LIMIT ?2)
    ORDER BY seq"
);

/// Events from the newest back, summaries and rewound turns left out (the
/// tail a resume reads).
const NEWEST_FIRST: &str = concat!(
    "SELECT seq, turn, step, payload FROM events
    WHERE session_id = ?1 AND type <> 'agent_summary' AND ",
    not_rewound!(),
    " ORDER BY seq DESC"
);

/// At most `?3` events after seq `?2`, in log order (one page of `show`).
const PAGE_AFTER: &str = "SELECT seq, payload FROM events
    WHERE session_id = ?1 AND seq > ?2
    ORDER BY seq LIMIT ?3";
/// How many trailing characters of an id make its short form (one time
/// character and the random part), as the UI shows it.
pub(super) const SHORT_ID_LEN: usize = 8;

/// The session row a draft session inserts with its first event.
#[derive(Debug, Clone)]
pub(super) struct DraftRow {
    pub cwd: String,
    pub title: Option<String>,
    /// Claimed by this process before its first event: inserted running.
    pub owner_pid: Option<u32>,
}

/// One canonical event, encoded by the caller, ready to insert.
pub(super) struct NewEvent {
    /// The event's `type` tag.
    pub kind: &'static str,
    pub turn: u64,
    pub step: u32,
    pub tool_call_id: Option<String>,
    /// The whole event as JSON.
    pub payload: String,
    /// The calls of a `tool_calls` event, for the call index.
    pub calls: Vec<NewCall>,
    /// The images an `input` event references, stored with it.
    pub images: Vec<super::StoredImage>,
}

/// One tool call of a `tool_calls` event, as the call index keeps it.
pub(super) struct NewCall {
    pub call_id: String,
    pub tool: String,
    pub path: Option<String>,
    pub intent: Option<String>,
}

/// Owner of the connection. Every method is one short transaction at most.
pub(super) struct Store {
    pub(super) conn: Connection,
}

impl Store {
    pub(super) fn new(conn: Connection) -> Self {
        Self { conn }
    }

    /// Inserts an idle session; it becomes the newest session.
    pub(super) fn create(
        &mut self,
        id: &str,
        cwd: &str,
        title: Option<&str>,
    ) -> Result<SessionInfo, SessionError> {
        let now = to_sql_int(now_millis());
        self.conn
            .prepare_cached(
                "INSERT INTO sessions (id, cwd, title, created_at, updated_at, status)
                 VALUES (?1, ?2, ?3, ?4, MAX(?4, COALESCE((
                     SELECT updated_at + 1 FROM sessions
                     ORDER BY updated_at DESC LIMIT 1), 0)), 'idle')",
            )?
            .execute(params![id, cwd, title, now])?;
        self.require_info(id)
    }

    pub(super) fn info(&self, id: &str) -> Result<Option<SessionInfo>, SessionError> {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1");
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row([id], session_info)
            .optional()?)
    }

    pub(super) fn require_info(&self, id: &str) -> Result<SessionInfo, SessionError> {
        self.info(id)?
            .ok_or_else(|| SessionError::NotFound(id.to_owned()))
    }

    /// Sessions with at least one event, newest first; all cwds when `cwd`
    /// is `None`. (Rows without events are left over from builds that wrote
    /// a session before its first prompt; there is nothing to resume in them.)
    pub(super) fn list(
        &self,
        cwd: Option<&str>,
        limit: usize,
    ) -> Result<Vec<SessionInfo>, SessionError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = match cwd {
            Some(cwd) => {
                let sql = format!(
                    "SELECT {SESSION_COLUMNS} FROM sessions WHERE cwd = ?1 AND event_count > 0
                     AND id NOT IN (SELECT child_id FROM session_children)
                     ORDER BY updated_at DESC LIMIT ?2"
                );
                let mut statement = self.conn.prepare_cached(&sql)?;
                statement
                    .query_map(params![cwd, limit], session_info)?
                    .collect::<Result<Vec<_>, _>>()?
            }
            None => {
                let sql = format!(
                    "SELECT {SESSION_COLUMNS} FROM sessions WHERE event_count > 0
                     AND id NOT IN (SELECT child_id FROM session_children)
                     ORDER BY updated_at DESC LIMIT ?1"
                );
                let mut statement = self.conn.prepare_cached(&sql)?;
                statement
                    .query_map([limit], session_info)?
                    .collect::<Result<Vec<_>, _>>()?
            }
        };
        Ok(rows)
    }

    /// Sets status and owner; `owner_pid` is `None` for idle.
    pub(super) fn set_status(
        &mut self,
        id: &str,
        status: SessionStatus,
        owner_pid: Option<u32>,
    ) -> Result<(), SessionError> {
        let sql = concat!(
            "UPDATE sessions SET updated_at = ",
            next_updated_at!(),
            ", status = ?3, owner_pid = ?4 WHERE id = ?1"
        );
        let changed = self.conn.prepare_cached(sql)?.execute(params![
            id,
            to_sql_int(now_millis()),
            status_text(status),
            owner_pid
        ])?;
        found_or(changed, id)
    }

    pub(super) fn set_title(&mut self, id: &str, title: &str) -> Result<(), SessionError> {
        let sql = concat!(
            "UPDATE sessions SET updated_at = ",
            next_updated_at!(),
            ", title = ?3 WHERE id = ?1"
        );
        let changed =
            self.conn
                .prepare_cached(sql)?
                .execute(params![id, to_sql_int(now_millis()), title])?;
        found_or(changed, id)
    }

    /// Appends one event in its own committed transaction and returns its
    /// sequence number (from 1).
    ///
    /// `BEGIN IMMEDIATE` takes the write lock before reading `MAX(seq)`, so
    /// two connections appending to one session never pick the same seq.
    ///
    /// With `draft`, the session row is first inserted (if it is not there
    /// yet) in the same transaction: a session exists from its first event.
    pub(super) fn append(
        &mut self,
        id: &str,
        event: &NewEvent,
        draft: Option<&DraftRow>,
    ) -> Result<u64, SessionError> {
        let now = to_sql_int(now_millis());
        let turn = to_sql_int(event.turn);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some(draft) = draft {
            let status = match draft.owner_pid {
                Some(_) => SessionStatus::Running,
                None => SessionStatus::Idle,
            };
            tx.prepare_cached(
                "INSERT OR IGNORE INTO sessions (id, cwd, title, created_at, updated_at, status, owner_pid)
                 VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6)",
            )?
            .execute(params![
                id,
                draft.cwd,
                draft.title,
                now,
                status_text(status),
                draft.owner_pid
            ])?;
        }
        let touch = concat!(
            "UPDATE sessions SET updated_at = ",
            next_updated_at!(),
            ", event_count = event_count + 1,
               turn_count = turn_count + (?3 > last_turn),
               last_turn = MAX(last_turn, ?3)
             WHERE id = ?1"
        );
        let changed = tx.prepare_cached(touch)?.execute(params![id, now, turn])?;
        // Returning early drops `tx`, which rolls back.
        found_or(changed, id)?;
        let seq: i64 = tx
            .prepare_cached(NEXT_SEQ)?
            .query_row([id], |row| row.get(0))?;
        tx.prepare_cached(
            "INSERT INTO events
                 (session_id, seq, type, turn, step, tool_call_id, payload, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?
        .execute(params![
            id,
            seq,
            event.kind,
            turn,
            event.step,
            event.tool_call_id,
            event.payload,
            now
        ])?;
        super::calls::index_calls(&tx, id, seq, turn, event)?;
        super::images::store_images(&tx, &event.images)?;
        tx.commit()?;
        Ok(u64::try_from(seq).unwrap_or(0))
    }

    /// Every event of the session, in log order.
    pub(super) fn load_all(&self, id: &str) -> Result<Vec<AgentEvent>, SessionError> {
        let mut statement = self
            .conn
            .prepare_cached("SELECT seq, payload FROM events WHERE session_id = ?1 ORDER BY seq")?;
        let rows = statement.query_map([id], seq_and_payload)?;
        decode_rows(id, rows)
    }

    /// The context window: `[latest summary, every non-summary event whose
    /// meta is past the summary's covers_through, in log order]`, or every
    /// event when there is no summary; rewound turns left out of both.
    pub(super) fn load_window(&mut self, id: &str) -> Result<Vec<AgentEvent>, SessionError> {
        // One read transaction, so a concurrent append cannot land between
        // finding the summary and reading what follows it.
        let tx = self.conn.transaction()?;
        let summary = tx
            .prepare_cached(LATEST_SUMMARY)?
            .query_row([id], seq_and_payload)
            .optional()?;
        let Some((seq, payload)) = summary else {
            let mut statement = tx.prepare_cached(LIVE)?;
            let rows = statement.query_map([id], seq_and_payload)?;
            return decode_rows(id, rows);
        };
        let summary = decode(id, seq, &payload)?;
        let boundary = match &summary {
            AgentEvent::AgentSummary { covers_through, .. } => *covers_through,
            _ => summary.meta(),
        };
        let mut statement = tx.prepare_cached(AFTER_BOUNDARY)?;
        let rows = statement.query_map(
            params![id, to_sql_int(boundary.turn), boundary.step],
            seq_and_payload,
        )?;
        let mut window = vec![summary];
        window.extend(decode_rows(id, rows)?);
        Ok(window)
    }

    /// The newest events back to the latest summary's boundary, stopping at
    /// a step boundary once their payloads pass `max_bytes` (the newest
    /// step always comes whole). Reads only what it returns, plus one row.
    pub(super) fn load_recent(
        &mut self,
        id: &str,
        max_bytes: usize,
    ) -> Result<RecentLog, SessionError> {
        let tx = self.conn.transaction()?;
        let summary = tx
            .prepare_cached(LATEST_SUMMARY)?
            .query_row([id], seq_and_payload)
            .optional()?;
        let summary = match summary {
            Some((seq, payload)) => Some(decode(id, seq, &payload)?),
            None => None,
        };
        let boundary = match &summary {
            Some(AgentEvent::AgentSummary { covers_through, .. }) => Some(*covers_through),
            _ => None,
        };
        let mut statement = tx.prepare_cached(NEWEST_FIRST)?;
        let mut rows = statement.query([id])?;
        let mut loaded: Vec<(i64, Meta, String)> = Vec::new();
        let mut used = 0usize;
        let mut skipped_through = None;
        while let Some(row) = rows.next()? {
            let meta = Meta::new(from_sql_int(row.get(1)?), row.get(2)?);
            if boundary.is_some_and(|b| meta <= b) {
                break;
            }
            let payload: String = row.get(3)?;
            let newest = loaded.first().map(|(_, m, _)| *m);
            if used + payload.len() > max_bytes && newest.is_some_and(|n| n != meta) {
                // A step is never split: its loaded part goes back too.
                while loaded.last().is_some_and(|(_, m, _)| *m == meta) {
                    loaded.pop();
                }
                skipped_through = Some(meta);
                break;
            }
            used += payload.len();
            loaded.push((row.get(0)?, meta, payload));
        }
        let events = loaded
            .iter()
            .rev()
            .map(|(seq, _, payload)| decode(id, *seq, payload))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RecentLog {
            summary,
            skipped_through,
            events,
        })
    }

    /// Up to `limit` events after seq `after`, in log order, with their
    /// seqs; the page ends early once its stored payloads reach `max_bytes`
    /// (it always holds at least one event).
    pub(super) fn events_after(
        &self,
        id: &str,
        after: u64,
        limit: usize,
        max_bytes: usize,
    ) -> Result<Vec<(u64, AgentEvent)>, SessionError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut statement = self.conn.prepare_cached(PAGE_AFTER)?;
        let mut rows =
            statement.query_map(params![id, to_sql_int(after), limit], seq_and_payload)?;
        let mut page = Vec::new();
        let mut bytes = 0;
        while bytes < max_bytes {
            let Some(row) = rows.next() else { break };
            let (seq, payload) = row?;
            bytes += payload.len();
            page.push((from_sql_int(seq), decode(id, seq, &payload)?));
        }
        Ok(page)
    }

    /// The last `max_events` events, in log order.
    pub(super) fn load_tail(
        &self,
        id: &str,
        max_events: usize,
    ) -> Result<Vec<AgentEvent>, SessionError> {
        let limit = i64::try_from(max_events).unwrap_or(i64::MAX);
        let mut statement = self.conn.prepare_cached(TAIL)?;
        let rows = statement.query_map(params![id, limit], seq_and_payload)?;
        decode_rows(id, rows)
    }

    /// The newest `tool_result` for `call_id` anywhere in the log.
    pub(super) fn tool_result(
        &self,
        id: &str,
        call_id: &str,
    ) -> Result<Option<ToolOutcome>, SessionError> {
        let row = self
            .conn
            .prepare_cached(NEWEST_TOOL_RESULT)?
            .query_row([id, call_id], seq_and_payload)
            .optional()?;
        let Some((seq, payload)) = row else {
            return Ok(None);
        };
        match decode(id, seq, &payload)? {
            AgentEvent::ToolResult { outcome, .. } => Ok(Some(outcome)),
            _ => Ok(None),
        }
    }

    /// Marks the session running, owned by `pid`, unless another live
    /// process owns it: one conditional UPDATE that only succeeds while the
    /// owner is still the one just read (idle, dead or `pid`), so two
    /// processes claiming at once cannot both win.
    pub(super) fn claim(&mut self, id: &str, pid: u32) -> Result<(), SessionError> {
        let owner: Option<(String, Option<i64>)> = self
            .conn
            .prepare_cached("SELECT status, owner_pid FROM sessions WHERE id = ?1")?
            .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        let Some((status, owner_pid)) = owner else {
            return Err(SessionError::NotFound(id.to_owned()));
        };
        let other_owner = owner_pid
            .and_then(|p| u32::try_from(p).ok())
            .filter(|&p| p != pid);
        if status == status_text(SessionStatus::Running)
            && let Some(other) = other_owner.filter(|&p| process_is_alive(p))
        {
            tracing::debug!(id, owner = other, "session busy");
            return Err(SessionError::Busy(id.to_owned()));
        }
        let sql = concat!(
            "UPDATE sessions SET updated_at = ",
            next_updated_at!(),
            ", status = 'running', owner_pid = ?3
             WHERE id = ?1 AND status = ?4 AND owner_pid IS ?5"
        );
        let changed = self.conn.prepare_cached(sql)?.execute(params![
            id,
            to_sql_int(now_millis()),
            pid,
            status,
            owner_pid
        ])?;
        if changed == 0 {
            // Another process changed the owner between the read and the write.
            return Err(SessionError::Busy(id.to_owned()));
        }
        Ok(())
    }

    /// Sessions whose id is `input`, starts with `input`, or whose short id
    /// (the last [`SHORT_ID_LEN`] characters) starts with it; newest first,
    /// at most `limit`. An exact id comes alone.
    pub(super) fn find_by_prefix(
        &self,
        input: &str,
        limit: usize,
    ) -> Result<Vec<SessionInfo>, SessionError> {
        if let Some(info) = self.info(input)? {
            return Ok(vec![info]);
        }
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions
             WHERE substr(id, 1, length(?1)) = ?1
                OR substr(id, -{SHORT_ID_LEN}, length(?1)) = ?1
             ORDER BY updated_at DESC LIMIT ?2"
        );
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut statement = self.conn.prepare_cached(&sql)?;
        let rows = statement
            .query_map(params![input, limit], session_info)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Tokens of every turn that has an `agent_trace`, in turn order.
    pub(super) fn usage_by_turn(&self, id: &str) -> Result<Vec<TurnUsage>, SessionError> {
        let mut statement = self.conn.prepare_cached(
            "SELECT turn,
                    SUM(COALESCE(json_extract(payload, '$.usage.input'), 0)),
                    SUM(COALESCE(json_extract(payload, '$.usage.output'), 0)),
                    SUM(COALESCE(json_extract(payload, '$.usage.cached'), 0)),
                    COUNT(*)
             FROM events WHERE session_id = ?1 AND type = 'agent_trace'
             GROUP BY turn ORDER BY turn",
        )?;
        let rows = statement
            .query_map([id], |row| {
                Ok(TurnUsage {
                    turn: from_sql_int(row.get(0)?),
                    input: from_sql_int(row.get(1)?),
                    output: from_sql_int(row.get(2)?),
                    cached: from_sql_int(row.get(3)?),
                    calls: from_sql_int(row.get(4)?),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Highest turn number logged in the session, 0 if none.
    pub(super) fn last_turn(&self, id: &str) -> Result<u64, SessionError> {
        let turn: i64 = self
            .conn
            .prepare_cached("SELECT last_turn FROM sessions WHERE id = ?1")?
            .query_row([id], |row| row.get(0))
            .optional()?
            .ok_or_else(|| SessionError::NotFound(id.to_owned()))?;
        Ok(u64::try_from(turn).unwrap_or(0))
    }
}

fn found_or(changed: usize, id: &str) -> Result<(), SessionError> {
    if changed == 0 {
        return Err(SessionError::NotFound(id.to_owned()));
    }
    Ok(())
}

fn session_info(row: &Row<'_>) -> rusqlite::Result<SessionInfo> {
    let status: String = row.get(5)?;
    let owner_pid: Option<i64> = row.get(6)?;
    let owner_alive = owner_pid
        .and_then(|pid| u32::try_from(pid).ok())
        .is_some_and(process_is_alive);
    let status = if status == status_text(SessionStatus::Running) && owner_alive {
        SessionStatus::Running
    } else {
        SessionStatus::Idle
    };
    Ok(SessionInfo {
        id: row.get(0)?,
        cwd: row.get::<_, String>(1)?.into(),
        title: row.get(2)?,
        created_at: from_sql_int(row.get(3)?),
        updated_at: from_sql_int(row.get(4)?),
        status,
        events: from_sql_int(row.get(7)?),
        turns: from_sql_int(row.get(8)?),
    })
}

fn status_text(status: SessionStatus) -> &'static str {
    match status {
        SessionStatus::Idle => "idle",
        SessionStatus::Running => "running",
    }
}

fn seq_and_payload(row: &Row<'_>) -> rusqlite::Result<(i64, String)> {
    Ok((row.get(0)?, row.get(1)?))
}

fn decode_rows(
    id: &str,
    rows: impl Iterator<Item = rusqlite::Result<(i64, String)>>,
) -> Result<Vec<AgentEvent>, SessionError> {
    rows.map(|row| {
        let (seq, payload) = row?;
        decode(id, seq, &payload)
    })
    .collect()
}

pub(super) fn decode(id: &str, seq: i64, payload: &str) -> Result<AgentEvent, SessionError> {
    serde_json::from_str(payload).map_err(|source| SessionError::Decode {
        what: format!("event {seq} of {id}"),
        source,
    })
}

/// SQLite integers are signed; our counters and timestamps never reach
/// `i64::MAX`, so saturating is only a guard.
pub(super) fn to_sql_int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub(super) fn from_sql_int(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reads that run on long logs must walk the named index, never the
    /// whole table; a `SCAN events` here is a performance regression.
    #[test]
    fn long_log_queries_use_their_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let conn = super::super::schema::open_connection(&dir.path().join("s.db")).unwrap();
        let queries: [(&str, &[&dyn rusqlite::ToSql], &str); 8] = [
            (NEWEST_FIRST, &[&"s"], "sqlite_autoindex_events_1"),
            (PAGE_AFTER, &[&"s", &1, &10], "sqlite_autoindex_events_1"),
            (NEXT_SEQ, &[&"s"], "sqlite_autoindex_events_1"),
            (LATEST_SUMMARY, &[&"s"], "events_summaries"),
            (AFTER_BOUNDARY, &[&"s", &1, &2], "events_by_meta"),
            (NEWEST_TOOL_RESULT, &[&"s", &"call"], "events_by_tool_call"),
            (TAIL, &[&"s", &10], "sqlite_autoindex_events_1"),
            (LIVE, &[&"s"], "sqlite_autoindex_events_1"),
        ];
        for (sql, args, index) in queries {
            let mut statement = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let plan: Vec<String> = statement
                .query_map(args, |row| row.get(3))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(
                plan.iter().any(|step| step.starts_with("SEARCH events")
                    && step.contains(&format!(" {index} "))),
                "{sql}\n{plan:#?}"
            );
            assert!(
                !plan.iter().any(|step| step.starts_with("SCAN events")),
                "{sql}\n{plan:#?}"
            );
        }
    }
}
