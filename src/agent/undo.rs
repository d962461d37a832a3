//! Per-turn undo and the session's diff, over the journal in the session and
//! the working directory's [`Root`].
//!
//! Also the [`ChangeJournal`] the writing tools record into: one per step,
//! bound to the session and the running turn.

use std::collections::BTreeMap;

use futures::FutureExt;
use futures::future::BoxFuture;

use crate::session::{AgentSession, JournalEntry, NewJournalEntry, SessionError};
use crate::tool::fs::{FsRefusalKind, RelPath, Root};
use crate::tool::journal::{BlobHash, ChangeJournal, PriorContent, PriorFile};
use crate::tool::patch::diff_texts;
use crate::tool::seen::content_hash;

/// Records the writing tools' prior states into a session for one turn.
pub(super) struct SessionJournal {
    pub(super) session: AgentSession,
    pub(super) turn: u64,
}

impl ChangeJournal for SessionJournal {
    fn record(&self, files: Vec<PriorFile>) -> BoxFuture<'static, Result<(), String>> {
        let (session, turn) = (self.session.clone(), self.turn);
        let entries = files
            .into_iter()
            .map(|f| {
                let (prior, prior_blob) = match f.content {
                    PriorContent::Absent => (None, None),
                    PriorContent::Bytes(bytes) => (Some(bytes), None),
                    PriorContent::Stored(hash) => (None, Some(hash.to_bytes())),
                };
                NewJournalEntry {
                    path: f.path,
                    prior,
                    prior_blob,
                    mode: f.mode,
                    after_hash: f.after_hash,
                }
            })
            .collect();
        async move {
            session
                .record_changes(turn, entries)
                .await
                .map_err(|e| e.to_string())
        }
        .boxed()
    }

    fn store(&self, blobs: Vec<(BlobHash, Vec<u8>)>) -> BoxFuture<'static, Result<(), String>> {
        let session = self.session.clone();
        let blobs = blobs
            .into_iter()
            .map(|(hash, content)| (hash.to_bytes(), content))
            .collect();
        async move { session.store_blobs(blobs).await.map_err(|e| e.to_string()) }.boxed()
    }
}

/// What an undo did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UndoReport {
    /// The turn undone; `None` when there was nothing to undo.
    pub turn: Option<u64>,
    /// Files put back as they were before the turn (or removed, if the
    /// turn created them).
    pub restored: Vec<String>,
    /// Files left alone, with why (changed since by someone else, or the
    /// restore failed).
    pub skipped: Vec<(String, String)>,
}

impl UndoReport {
    /// A few lines for the user.
    pub fn describe(&self) -> String {
        let Some(turn) = self.turn else {
            return "nothing to undo: no file was changed in this session".to_string();
        };
        let mut out = format!("undid turn {turn}:");
        for path in &self.restored {
            out.push_str(&format!("\n  restored {path}"));
        }
        for (path, why) in &self.skipped {
            out.push_str(&format!("\n  left alone {path}: {why}"));
        }
        out
    }
}

/// Failure of undo or diff before any file was looked at.
#[derive(Debug, thiserror::Error)]
pub enum UndoError {
    /// The session's journal could not be read or updated.
    #[error("session: {0}")]
    Session(#[from] SessionError),
}

/// Per path: the first change's prior state and the last change's result.
struct PathChange {
    prior: Option<Vec<u8>>,
    mode: Option<u32>,
    after_hash: Option<u64>,
}

fn by_path(entries: Vec<JournalEntry>) -> BTreeMap<String, PathChange> {
    let mut paths: BTreeMap<String, PathChange> = BTreeMap::new();
    for e in entries {
        paths
            .entry(e.path)
            .and_modify(|c| c.after_hash = e.after_hash)
            .or_insert(PathChange {
                prior: e.prior,
                mode: e.mode,
                after_hash: e.after_hash,
            });
    }
    paths
}

/// The file's bytes now; `None` when absent.
fn current(root: &Root, rel: &RelPath) -> Result<Option<Vec<u8>>, String> {
    if root.stat(rel).map_err(|e| e.message)?.is_none() {
        return Ok(None);
    }
    let mut opened = root.open_file(rel).map_err(|e| e.message)?;
    // Whole: a command may have written a file of any size.
    let mut bytes = Vec::with_capacity(opened.identity.size as usize);
    std::io::Read::read_to_end(&mut opened.file, &mut bytes).map_err(|e| e.to_string())?;
    Ok(Some(bytes))
}

/// Restores the files of the latest turn not yet undone, each to its
/// content (and mode) before that turn — unless it changed since, then it
/// is left alone and listed. The turn is marked undone either way.
pub async fn undo_last_turn(session: &AgentSession, root: &Root) -> Result<UndoReport, UndoError> {
    let entries = session.latest_undoable().await?;
    undo_entries(session, root, entries).await
}

/// Restores every file the turns from `turn` on changed (not undone yet)
/// to its content before the first of them changed it — a rewind of the
/// code to before `turn`'s prompt. A file changed since by someone else is
/// left alone and listed. Those turns are marked undone either way.
pub async fn undo_from_turn(
    session: &AgentSession,
    root: &Root,
    turn: u64,
) -> Result<UndoReport, UndoError> {
    let entries = session.undoable_from(turn).await?;
    undo_entries(session, root, entries).await
}

/// Restores `entries` (one or more turns', in change order) and marks
/// their turns undone; the report names the earliest turn.
async fn undo_entries(
    session: &AgentSession,
    root: &Root,
    entries: Vec<JournalEntry>,
) -> Result<UndoReport, UndoError> {
    let Some(turn) = entries.iter().map(|e| e.turn).min() else {
        return Ok(UndoReport::default());
    };
    let mut turns: Vec<u64> = entries.iter().map(|e| e.turn).collect();
    turns.sort_unstable();
    turns.dedup();
    let root = root.clone();
    let report = tokio::task::spawn_blocking(move || restore(&root, turn, by_path(entries)))
        .await
        .unwrap_or_else(|e| UndoReport {
            turn: Some(turn),
            restored: Vec::new(),
            skipped: vec![("*".into(), format!("undo failed: {e}"))],
        });
    for turn in turns {
        session.mark_undone(turn).await?;
    }
    Ok(report)
}

fn restore(root: &Root, turn: u64, paths: BTreeMap<String, PathChange>) -> UndoReport {
    let mut report = UndoReport {
        turn: Some(turn),
        ..UndoReport::default()
    };
    for (path, change) in paths {
        let result = (|| -> Result<bool, String> {
            let rel = root.relative(&path).map_err(|e| e.message)?;
            let now = current(root, &rel)?;
            if now.as_deref().map(content_hash) != change.after_hash {
                return Ok(false);
            }
            match &change.prior {
                Some(bytes) => {
                    if let Some(parent) = rel.parent().filter(|p| !p.is_root()) {
                        root.create_dir_all(&parent).map_err(|e| e.message)?;
                    }
                    root.stage(&rel, bytes, change.mode)
                        .and_then(|staged| staged.commit())
                        .map_err(|e| e.message)?;
                }
                None => match root.remove_file(&rel) {
                    Ok(()) => {}
                    Err(e) if e.kind == FsRefusalKind::NotFound => {}
                    Err(e) => return Err(e.message),
                },
            }
            Ok(true)
        })();
        match result {
            Ok(true) => report.restored.push(path),
            Ok(false) => report
                .skipped
                .push((path, "changed since by someone else".to_string())),
            Err(why) => report.skipped.push((path, why)),
        }
    }
    report
}

/// The session's changes as one unified diff: for every file a tool
/// changed (and not undone), its content before the first change against
/// what is on disk now.
pub async fn session_diff(session: &AgentSession, root: &Root) -> Result<String, UndoError> {
    let paths = by_path(session.live_changes().await?);
    let root = root.clone();
    let diff = tokio::task::spawn_blocking(move || {
        let mut out = String::new();
        for (path, change) in paths {
            let now = root
                .relative(&path)
                .ok()
                .and_then(|rel| current(&root, &rel).ok().flatten());
            let before = change.prior.as_deref().map(String::from_utf8_lossy);
            let after = now.as_deref().map(String::from_utf8_lossy);
            let d = diff_texts(
                before.as_ref().map(|_| path.as_str()),
                after.as_ref().map(|_| path.as_str()),
                before.as_deref().unwrap_or(""),
                after.as_deref().unwrap_or(""),
            );
            out.push_str(&d.unified);
        }
        out
    })
    .await
    .unwrap_or_default();
    Ok(diff)
}
