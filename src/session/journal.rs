//! The undo journal's SQL: prior file states per turn.

use rusqlite::params;

use super::SessionError;
use super::store::Store;

/// One file's state before a tool changed it, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    /// Row id, in the order changes were made.
    pub seq: i64,
    /// The turn that made the change.
    pub turn: u64,
    /// Path relative to the session's directory.
    pub path: String,
    /// Prior bytes; `None` when the file did not exist.
    pub prior: Option<Vec<u8>>,
    /// Prior permission bits.
    pub mode: Option<u32>,
    /// Content hash of what the tool wrote; `None` when it removed the file.
    pub after_hash: Option<u64>,
}

/// A change to record (the turn and session come with the call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewJournalEntry {
    /// Path relative to the session's directory.
    pub path: String,
    /// Prior bytes; `None` when the file did not exist (or `prior_blob`
    /// names them).
    pub prior: Option<Vec<u8>>,
    /// The key of a blob stored with [`crate::session::AgentSession::store_blobs`]
    /// holding the prior bytes.
    pub prior_blob: Option<Vec<u8>>,
    /// Prior permission bits.
    pub mode: Option<u32>,
    /// Content hash of what the tool writes; `None` when it removes the file.
    pub after_hash: Option<u64>,
}

/// The columns of a [`JournalEntry`], a stored blob standing in for `prior`.
const ENTRY_COLUMNS: &str =
    "fc.seq, fc.turn, fc.path, COALESCE(fc.prior, b.content), fc.mode, fc.after_hash";
/// The table of entries joined with the blobs they name.
const ENTRY_TABLE: &str = "file_changes fc LEFT JOIN journal_blobs b ON b.hash = fc.prior_blob";

fn entry(row: &rusqlite::Row<'_>) -> rusqlite::Result<JournalEntry> {
    Ok(JournalEntry {
        seq: row.get(0)?,
        turn: row.get::<_, i64>(1)? as u64,
        path: row.get(2)?,
        prior: row.get(3)?,
        mode: row.get::<_, Option<i64>>(4)?.map(|m| m as u32),
        // Stored as the i64 with the same bits.
        after_hash: row.get::<_, Option<i64>>(5)?.map(|h| h as u64),
    })
}

impl Store {
    /// Stores one call's prior states in one transaction.
    pub(super) fn record_changes(
        &mut self,
        session: &str,
        turn: u64,
        entries: &[NewJournalEntry],
    ) -> Result<(), SessionError> {
        let tx = self.conn.transaction()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO file_changes (session_id, turn, path, prior, mode, after_hash, prior_blob)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for e in entries {
                insert.execute(params![
                    session,
                    turn as i64,
                    e.path,
                    e.prior,
                    e.mode.map(i64::from),
                    e.after_hash.map(|h| h as i64),
                    e.prior_blob,
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Stores contents by key in one transaction; a key already stored is
    /// left as it is (same key, same content).
    pub(super) fn store_blobs(&mut self, blobs: &[(Vec<u8>, Vec<u8>)]) -> Result<(), SessionError> {
        let tx = self.conn.transaction()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT OR IGNORE INTO journal_blobs (hash, content) VALUES (?1, ?2)",
            )?;
            for (hash, content) in blobs {
                insert.execute(params![hash, content])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The entries of the latest turn not yet undone, in change order.
    pub(super) fn latest_undoable(
        &mut self,
        session: &str,
    ) -> Result<Vec<JournalEntry>, SessionError> {
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM {ENTRY_TABLE}
             WHERE fc.session_id = ?1 AND fc.undone = 0 AND fc.turn = (
                 SELECT MAX(turn) FROM file_changes WHERE session_id = ?1 AND undone = 0)
             ORDER BY fc.seq"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(params![session], entry)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The entries of every turn from `turn` on not yet undone, in change
    /// order.
    pub(super) fn undoable_from(
        &mut self,
        session: &str,
        turn: u64,
    ) -> Result<Vec<JournalEntry>, SessionError> {
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM {ENTRY_TABLE}
             WHERE fc.session_id = ?1 AND fc.undone = 0 AND fc.turn >= ?2 ORDER BY fc.seq"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(params![session, turn as i64], entry)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every entry not undone, in change order.
    pub(super) fn live_changes(
        &mut self,
        session: &str,
    ) -> Result<Vec<JournalEntry>, SessionError> {
        let sql = format!(
            "SELECT {ENTRY_COLUMNS} FROM {ENTRY_TABLE} WHERE fc.session_id = ?1 AND fc.undone = 0 ORDER BY fc.seq"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(params![session], entry)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Marks a turn's entries undone.
    pub(super) fn mark_undone(&mut self, session: &str, turn: u64) -> Result<(), SessionError> {
        self.conn.execute(
            "UPDATE file_changes SET undone = 1 WHERE session_id = ?1 AND turn = ?2",
            params![session, turn as i64],
        )?;
        Ok(())
    }
}
