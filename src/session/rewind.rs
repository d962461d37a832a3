//! Rewinds and forks: the SQL behind going back to before a prompt and
//! copying a session.
//!
//! A rewind never rewrites the log: it is a row of `rewinds` (schema v7)
//! naming the turns it hides, `from_turn..=through_turn` (through the last
//! turn at the time; later turns get higher numbers, so they stay visible).
//! The context window's queries (`store.rs`, `not_rewound!`) leave those
//! turns out; the full log (`load_all`, `events_after`, recall) keeps them.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::store::{Store, decode, from_sql_int, not_rewound, to_sql_int};
use super::{SessionError, SessionInfo};
use crate::protocol::{AgentEvent, InputSource, now_millis};

/// The turns one rewind hid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rewind {
    /// The first turn hidden (the prompt rewound to before).
    pub from_turn: u64,
    /// The last turn hidden (the latest turn when it happened).
    pub through_turn: u64,
    /// The seq of the log's last event when it happened.
    pub at_seq: u64,
}

impl Rewind {
    /// Whether this rewind hid `turn`.
    pub fn hides(&self, turn: u64) -> bool {
        (self.from_turn..=self.through_turn).contains(&turn)
    }
}

/// One prompt of the session that no rewind hid, as the rewind list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptRecord {
    /// Its turn.
    pub turn: u64,
    /// What the user typed.
    pub text: String,
    /// When it was logged, ms since the Unix epoch.
    pub at: u64,
    /// Files the turn's tools and the commands before it changed (not
    /// undone), sorted.
    pub files: Vec<String>,
}

/// The user's prompts no rewind hid, newest first.
const LIVE_PROMPTS: &str = concat!(
    "SELECT seq, turn, payload, created_at FROM events
     WHERE session_id = ?1 AND type = 'input' AND ",
    not_rewound!(),
    " ORDER BY seq DESC"
);

impl Store {
    /// Hides the turns from `from_turn` through the latest one from the
    /// context window. `None` when there is no such turn (nothing to hide).
    pub(super) fn rewind(
        &mut self,
        id: &str,
        from_turn: u64,
    ) -> Result<Option<Rewind>, SessionError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (last_turn, last_seq): (i64, i64) = tx
            .prepare_cached(
                "SELECT s.last_turn, COALESCE((SELECT MAX(seq) FROM events WHERE session_id = ?1), 0)
                 FROM sessions AS s WHERE s.id = ?1",
            )?
            .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?
            .ok_or_else(|| SessionError::NotFound(id.to_owned()))?;
        let through_turn = from_sql_int(last_turn);
        if from_turn == 0 || from_turn > through_turn {
            return Ok(None);
        }
        tx.prepare_cached(
            "INSERT INTO rewinds (session_id, from_turn, through_turn, at_seq, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            id,
            to_sql_int(from_turn),
            last_turn,
            last_seq,
            to_sql_int(now_millis())
        ])?;
        tx.commit()?;
        Ok(Some(Rewind {
            from_turn,
            through_turn,
            at_seq: from_sql_int(last_seq),
        }))
    }

    /// Every rewind of the session, in the order they happened.
    pub(super) fn rewinds(&self, id: &str) -> Result<Vec<Rewind>, SessionError> {
        let mut statement = self.conn.prepare_cached(
            "SELECT from_turn, through_turn, at_seq FROM rewinds
             WHERE session_id = ?1 ORDER BY at_seq, rowid",
        )?;
        let rows = statement
            .query_map([id], |row| {
                Ok(Rewind {
                    from_turn: from_sql_int(row.get(0)?),
                    through_turn: from_sql_int(row.get(1)?),
                    at_seq: from_sql_int(row.get(2)?),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The user's prompts no rewind hid, newest first, with the files each
    /// turn changed.
    pub(super) fn prompts(&self, id: &str) -> Result<Vec<PromptRecord>, SessionError> {
        let mut files: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        {
            let mut statement = self.conn.prepare_cached(
                "SELECT DISTINCT turn, path FROM file_changes
                 WHERE session_id = ?1 AND undone = 0 ORDER BY turn, path",
            )?;
            let mut rows = statement.query([id])?;
            while let Some(row) = rows.next()? {
                files
                    .entry(from_sql_int(row.get(0)?))
                    .or_default()
                    .push(row.get(1)?);
            }
        }
        let mut statement = self.conn.prepare_cached(LIVE_PROMPTS)?;
        let mut rows = statement.query([id])?;
        let mut prompts: Vec<PromptRecord> = Vec::new();
        while let Some(row) = rows.next()? {
            let turn = from_sql_int(row.get(1)?);
            let payload: String = row.get(2)?;
            let AgentEvent::Input { text, source, .. } = decode(id, row.get(0)?, &payload)? else {
                continue;
            };
            // One row per turn: its first user input (rows come newest first).
            if source != InputSource::User {
                continue;
            }
            prompts.retain(|p| p.turn != turn);
            prompts.push(PromptRecord {
                turn,
                text,
                at: from_sql_int(row.get(3)?),
                files: files.get(&turn).cloned().unwrap_or_default(),
            });
        }
        Ok(prompts)
    }

    /// Copies session `id` into a new idle session `new_id` of the same
    /// directory and title: its events (only the turns before
    /// `before_turn`, when given), their call index and its rewinds. The
    /// undo journal stays with the original, whose turns changed the files.
    pub(super) fn fork(
        &mut self,
        id: &str,
        new_id: &str,
        before_turn: Option<u64>,
    ) -> Result<SessionInfo, SessionError> {
        let limit = to_sql_int(before_turn.unwrap_or(u64::MAX));
        let now = to_sql_int(now_millis());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let inserted = tx
            .prepare_cached(
                "INSERT INTO sessions (id, cwd, title, created_at, updated_at, status)
                 SELECT ?2, cwd, title, ?3, MAX(?3, COALESCE((
                     SELECT updated_at + 1 FROM sessions ORDER BY updated_at DESC LIMIT 1), 0)),
                     'idle'
                 FROM sessions WHERE id = ?1",
            )?
            .execute(params![id, new_id, now])?;
        if inserted == 0 {
            return Err(SessionError::NotFound(id.to_owned()));
        }
        tx.prepare_cached(
            "INSERT INTO events (session_id, seq, type, turn, step, tool_call_id, payload, created_at)
             SELECT ?2, seq, type, turn, step, tool_call_id, payload, created_at
             FROM events WHERE session_id = ?1 AND turn < ?3",
        )?
        .execute(params![id, new_id, limit])?;
        tx.prepare_cached(
            "INSERT INTO tool_calls (session_id, seq, call_id, tool, path, intent, turn, step)
             SELECT ?2, seq, call_id, tool, path, intent, turn, step
             FROM tool_calls WHERE session_id = ?1 AND turn < ?3",
        )?
        .execute(params![id, new_id, limit])?;
        // A copied rewind never reaches past the copy: the fork's next turns
        // must stay visible.
        tx.prepare_cached(
            "INSERT INTO rewinds (session_id, from_turn, through_turn, at_seq, created_at)
             SELECT ?2, from_turn, MIN(through_turn, ?3 - 1), at_seq, created_at
             FROM rewinds WHERE session_id = ?1 AND from_turn < ?3",
        )?
        .execute(params![id, new_id, limit])?;
        tx.prepare_cached(
            "UPDATE sessions SET
                 event_count = (SELECT COUNT(*) FROM events WHERE session_id = ?1),
                 turn_count = (SELECT COUNT(DISTINCT turn) FROM events
                               WHERE session_id = ?1 AND turn > 0),
                 last_turn = (SELECT COALESCE(MAX(turn), 0) FROM events WHERE session_id = ?1)
             WHERE id = ?1",
        )?
        .execute([new_id])?;
        tx.commit()?;
        self.require_info(new_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Meta;
    use crate::session::store::NewEvent;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let conn = super::super::schema::open_connection(&dir.path().join("s.db")).unwrap();
        let mut store = Store::new(conn);
        store.create("s", "/w", Some("t")).unwrap();
        (dir, store)
    }

    fn turn(store: &mut Store, turn: u64, prompt: &str) {
        turn_in(store, "s", turn, prompt);
    }

    fn texts(events: &[AgentEvent]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                AgentEvent::Input { text, .. } | AgentEvent::Output { text, .. } => text.clone(),
                other => other.kind().to_string(),
            })
            .collect()
    }

    #[test]
    fn a_rewind_hides_its_turns_from_the_window_and_keeps_them_in_the_log() {
        let (_dir, mut store) = store();
        for t in 1..=3 {
            turn(&mut store, t, &format!("prompt {t}"));
        }
        let rewind = store.rewind("s", 2).unwrap().unwrap();
        assert_eq!((rewind.from_turn, rewind.through_turn), (2, 3));
        turn(&mut store, 4, "prompt 4");
        assert_eq!(
            texts(&store.load_window("s").unwrap()),
            ["prompt 1", "answer 1", "prompt 4", "answer 4"]
        );
        assert_eq!(store.load_all("s").unwrap().len(), 8);
        let recent = store.load_recent("s", usize::MAX).unwrap();
        assert_eq!(
            texts(&recent.events),
            texts(&store.load_window("s").unwrap())
        );
        assert_eq!(
            texts(&store.load_tail("s", 3).unwrap()),
            ["answer 1", "prompt 4", "answer 4"]
        );
        let prompts: Vec<(u64, String)> = store
            .prompts("s")
            .unwrap()
            .into_iter()
            .map(|p| (p.turn, p.text))
            .collect();
        assert_eq!(prompts, [(4, "prompt 4".into()), (1, "prompt 1".into())]);
        assert!(store.rewind("s", 9).unwrap().is_none());
    }

    #[test]
    fn a_fork_copies_the_turns_before_its_prompt_and_leaves_the_original_alone() {
        let (_dir, mut store) = store();
        for t in 1..=3 {
            turn(&mut store, t, &format!("prompt {t}"));
        }
        store.rewind("s", 2).unwrap();
        turn(&mut store, 4, "prompt 4");
        let all = store.fork("s", "f", None).unwrap();
        assert_eq!(
            (all.events, all.turns, all.title.as_deref()),
            (8, 4, Some("t"))
        );
        assert_eq!(
            texts(&store.load_window("f").unwrap()),
            texts(&store.load_window("s").unwrap())
        );
        let part = store.fork("s", "g", Some(3)).unwrap();
        assert_eq!(part.events, 4);
        // The copied rewind is cut at the copy's end: the fork's next turn shows.
        turn_in(&mut store, "g", 3, "prompt 3 again");
        assert_eq!(
            texts(&store.load_window("g").unwrap()),
            ["prompt 1", "answer 1", "prompt 3 again", "answer 3"]
        );
        assert_eq!(store.load_all("s").unwrap().len(), 8);
        assert!(matches!(
            store.fork("nope", "h", None),
            Err(SessionError::NotFound(_))
        ));
    }

    fn turn_in(store: &mut Store, id: &str, turn: u64, prompt: &str) {
        let input = AgentEvent::Input {
            text: prompt.into(),
            source: InputSource::User,
            meta: Meta::new(turn, 0),
            images: Vec::new(),
        };
        let output = AgentEvent::Output {
            text: format!("answer {turn}"),
            meta: Meta::new(turn, 1),
        };
        for event in [input, output] {
            let meta = event.meta();
            let new = NewEvent {
                kind: event.kind(),
                turn: meta.turn,
                step: meta.step,
                tool_call_id: None,
                payload: serde_json::to_string(&event).unwrap(),
                calls: Vec::new(),
                images: Vec::new(),
            };
            store.append(id, &new, None).unwrap();
        }
    }
}
