//! The tool-call index (`tool_calls` table): written with each `tool_calls`
//! event, read by `recall_search`.

use rusqlite::{Connection, ToSql, params_from_iter};

use super::store::{NewEvent, Store, from_sql_int};
use super::{CallPage, CallQuery, CallRecord, SessionError};

/// Inserts the calls of one appended event into the index (inside the
/// append's transaction, so the index never disagrees with the log).
pub(super) fn index_calls(
    conn: &Connection,
    id: &str,
    seq: i64,
    turn: i64,
    event: &NewEvent,
) -> Result<(), SessionError> {
    if event.calls.is_empty() {
        return Ok(());
    }
    let mut insert = conn.prepare_cached(
        "INSERT INTO tool_calls (session_id, seq, call_id, tool, path, intent, turn, step)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for call in &event.calls {
        insert.execute(rusqlite::params![
            id,
            seq,
            call.call_id,
            call.tool,
            call.path,
            call.intent,
            turn,
            event.step
        ])?;
    }
    Ok(())
}

/// `%text%` for LIKE, with `%`, `_` and `\` taken literally.
fn like_pattern(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

impl Store {
    /// One page of the calls matching `query`, newest first, with the size
    /// of each call's stored result and the count of all matches.
    pub(super) fn search_calls(
        &self,
        id: &str,
        query: &CallQuery,
    ) -> Result<CallPage, SessionError> {
        let mut filter = String::from("t.session_id = ?");
        let mut args: Vec<Box<dyn ToSql>> = vec![Box::new(id.to_owned())];
        if let Some(tool) = &query.tool {
            filter.push_str(" AND t.tool = ?");
            args.push(Box::new(tool.clone()));
        }
        if let Some(path) = &query.path {
            filter.push_str(" AND t.path LIKE ? ESCAPE '\\'");
            args.push(Box::new(like_pattern(path)));
        }
        for word in &query.words {
            filter.push_str(
                " AND (t.intent LIKE ? ESCAPE '\\' OR t.path LIKE ? ESCAPE '\\'
                       OR t.tool LIKE ? ESCAPE '\\' OR t.call_id LIKE ? ESCAPE '\\')",
            );
            for _ in 0..4 {
                args.push(Box::new(like_pattern(word)));
            }
        }
        let total: i64 = self
            .conn
            .prepare(&format!(
                "SELECT COUNT(*) FROM tool_calls AS t WHERE {filter}"
            ))?
            .query_row(params_from_iter(args.iter()), |row| row.get(0))?;

        let sql = format!(
            "SELECT t.call_id, t.tool, t.path, t.intent, t.turn, t.step,
                    (SELECT length(json_extract(r.payload, '$.result'))
                            || ' ' || json_extract(r.payload, '$.is_error')
                     FROM events AS r
                     WHERE r.session_id = t.session_id AND r.tool_call_id = t.call_id
                       AND r.type = 'tool_result'
                     ORDER BY r.seq DESC LIMIT 1)
             FROM tool_calls AS t WHERE {filter}
             ORDER BY t.seq DESC, t.rowid DESC LIMIT ? OFFSET ?"
        );
        args.push(Box::new(i64::try_from(query.limit).unwrap_or(i64::MAX)));
        args.push(Box::new(i64::try_from(query.offset).unwrap_or(i64::MAX)));
        let mut statement = self.conn.prepare(&sql)?;
        let calls = statement
            .query_map(params_from_iter(args.iter()), |row| {
                let result: Option<String> = row.get(6)?;
                let (result_chars, is_error) = match result
                    .as_deref()
                    .and_then(|r| r.split_once(' '))
                {
                    Some((chars, error)) => (chars.parse().ok(), error == "1" || error == "true"),
                    None => (None, false),
                };
                Ok(CallRecord {
                    id: row.get(0)?,
                    tool: row.get(1)?,
                    path: row.get(2)?,
                    intent: row.get(3)?,
                    turn: from_sql_int(row.get(4)?),
                    step: row.get(5)?,
                    result_chars,
                    is_error,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CallPage {
            total: from_sql_int(total),
            calls,
        })
    }
}
