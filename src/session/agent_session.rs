//! [`AgentSession`]: one session's event log.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::journal::{JournalEntry, NewJournalEntry};
use super::store::{DraftRow, NewCall, NewEvent};
use super::{
    CallPage, CallQuery, PromptRecord, RecentLog, Rewind, SessionError, SessionManager,
    StoredImage, TurnUsage,
};
use crate::protocol::{AgentEvent, ToolOutcome};

/// Handle to one session's append-only event log. Cloning is cheap.
///
/// A *draft* session ([`SessionManager::draft`]) has an id but no row yet:
/// its row is written together with its first event, so a session the user
/// never prompted in leaves nothing behind.
#[derive(Clone, Debug)]
pub struct AgentSession {
    manager: SessionManager,
    id: Arc<str>,
    draft: Option<Arc<Draft>>,
}

#[derive(Debug)]
struct Draft {
    row: Mutex<DraftRow>,
    written: AtomicBool,
}

impl AgentSession {
    pub(super) fn new(manager: SessionManager, id: String) -> Self {
        Self {
            manager,
            id: Arc::from(id),
            draft: None,
        }
    }

    pub(super) fn new_draft(manager: SessionManager, id: String, row: DraftRow) -> Self {
        Self {
            manager,
            id: Arc::from(id),
            draft: Some(Arc::new(Draft {
                row: Mutex::new(row),
                written: AtomicBool::new(false),
            })),
        }
    }

    /// Whether the session row exists (false for a draft before its first
    /// event).
    pub fn is_written(&self) -> bool {
        self.draft
            .as_ref()
            .is_none_or(|d| d.written.load(Ordering::Acquire))
    }

    /// Sets the title a draft is written with; returns false (and does
    /// nothing) once the row exists — use [`SessionManager::set_title`] then.
    pub fn set_draft_title(&self, title: &str) -> bool {
        match &self.draft {
            Some(draft) if !draft.written.load(Ordering::Acquire) => {
                lock(&draft.row).title = Some(title.to_owned());
                true
            }
            _ => false,
        }
    }

    /// Marks the session running, owned by this process. Fails with
    /// [`SessionError::Busy`] when another live process owns it, atomically
    /// (see [`SessionManager::claim`]). A draft is written already claimed.
    pub async fn claim(&self) -> Result<(), SessionError> {
        if let Some(draft) = &self.draft
            && !draft.written.load(Ordering::Acquire)
        {
            lock(&draft.row).owner_pid = Some(std::process::id());
            if !draft.written.load(Ordering::Acquire) {
                return Ok(());
            }
        }
        self.manager.claim(&self.id).await
    }

    /// Marks the session idle again; a draft that was never written stays
    /// unwritten.
    pub async fn release(&self) -> Result<(), SessionError> {
        if let Some(draft) = &self.draft {
            lock(&draft.row).owner_pid = None;
            if !draft.written.load(Ordering::Acquire) {
                return Ok(());
            }
        }
        self.manager.mark_idle(&self.id).await
    }

    /// Tokens per turn, from the log's `agent_trace` events (empty for an
    /// unwritten draft).
    pub async fn usage_by_turn(&self) -> Result<Vec<TurnUsage>, SessionError> {
        if !self.is_written() {
            return Ok(Vec::new());
        }
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.usage_by_turn(&id))
            .await
    }

    /// The session id (`sess_…`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The manager of the database this session lives in.
    pub fn manager(&self) -> &SessionManager {
        &self.manager
    }

    /// Appends a canonical event and commits it before returning; a committed
    /// event survives a crash or kill of the process. Bumps the session's
    /// `updated_at`, so it becomes the latest of its cwd.
    ///
    /// Fails with [`SessionError::Transient`] for a delta event (nothing is
    /// written) and [`SessionError::NotFound`] if the session row is gone.
    pub async fn append(&self, event: &AgentEvent) -> Result<(), SessionError> {
        self.append_with_images(event, Vec::new()).await
    }

    /// Appends `event` (an `input` event) with the bytes of the images it
    /// references, in one transaction: the event is never stored without
    /// them. An image already in the database is not written again.
    pub async fn append_with_images(
        &self,
        event: &AgentEvent,
        images: Vec<StoredImage>,
    ) -> Result<(), SessionError> {
        if event.is_transient() {
            return Err(SessionError::Transient(event.kind()));
        }
        let meta = event.meta();
        let calls = match event {
            AgentEvent::ToolCalls { calls, .. } => calls
                .iter()
                .map(|c| NewCall {
                    call_id: c.id.clone(),
                    tool: c.name.clone(),
                    path: c
                        .args
                        .get("path")
                        .and_then(|p| p.as_str())
                        .map(str::to_owned),
                    intent: c.intent().map(str::to_owned),
                })
                .collect(),
            _ => Vec::new(),
        };
        let new_event = NewEvent {
            calls,
            images,
            kind: event.kind(),
            turn: meta.turn,
            step: meta.step,
            tool_call_id: event.tool_call_id().map(str::to_owned),
            payload: serde_json::to_string(event).map_err(|source| SessionError::Decode {
                what: format!("{} event to append to {}", event.kind(), self.id),
                source,
            })?,
        };
        let id = Arc::clone(&self.id);
        let draft = self
            .draft
            .as_ref()
            .filter(|d| !d.written.load(Ordering::Acquire))
            .map(|d| lock(&d.row).clone());
        self.manager
            .store()
            .call(move |store| store.append(&id, &new_event, draft.as_ref()))
            .await?;
        if let Some(draft) = &self.draft {
            draft.written.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// The context window in log order: when the log has an
    /// `agent_summary`, the latest one followed by every other non-summary
    /// event whose meta is past that summary's `covers_through`; otherwise
    /// every event. Turns a rewind hid are left out of both.
    pub async fn load(&self) -> Result<Vec<AgentEvent>, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.load_window(&id))
            .await
    }

    /// The newest events back to the latest summary's boundary, whole
    /// steps only, until their stored size passes `max_bytes` (the newest
    /// step always comes whole), and the latest summary. Reads only that
    /// much of the log, so it takes the same time however long the log is.
    /// Turns a rewind hid are left out.
    pub async fn load_recent(&self, max_bytes: usize) -> Result<RecentLog, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.load_recent(&id, max_bytes))
            .await
    }

    /// Up to `limit` events after sequence number `after` (0 for the
    /// start), in log order, each with its sequence number, ending early
    /// once the stored events reach `max_bytes` (at least one is returned):
    /// a log read page by page in bounded memory, however large its events.
    pub async fn events_after(
        &self,
        after: u64,
        limit: usize,
        max_bytes: usize,
    ) -> Result<Vec<(u64, AgentEvent)>, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.events_after(&id, after, limit, max_bytes))
            .await
    }

    /// Tool calls of the whole log matching `query`, newest first.
    pub async fn search_calls(&self, query: CallQuery) -> Result<CallPage, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.search_calls(&id, &query))
            .await
    }

    /// Every event in log order.
    pub async fn load_all(&self) -> Result<Vec<AgentEvent>, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.load_all(&id))
            .await
    }

    /// The last `max_events` events no rewind hid, in log order, without
    /// reading the rest (what a resume shows).
    pub async fn load_tail(&self, max_events: usize) -> Result<Vec<AgentEvent>, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.load_tail(&id, max_events))
            .await
    }

    /// The newest `tool_result` answering `call_id`, searched in the whole
    /// log (results folded into a summary included); `None` if there is none.
    pub async fn tool_result(&self, call_id: &str) -> Result<Option<ToolOutcome>, SessionError> {
        let id = Arc::clone(&self.id);
        let call_id = call_id.to_owned();
        self.manager
            .store()
            .call(move |store| store.tool_result(&id, &call_id))
            .await
    }

    /// The highest turn number in the log, 0 when it is empty.
    pub async fn last_turn(&self) -> Result<u64, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.last_turn(&id))
            .await
    }

    /// Stores the prior states of one tool call's files for `turn`, in one
    /// committed transaction.
    pub async fn record_changes(
        &self,
        turn: u64,
        entries: Vec<NewJournalEntry>,
    ) -> Result<(), SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.record_changes(&id, turn, &entries))
            .await
    }

    /// Stores contents by key (`(key, content)`; a key already stored is
    /// kept), in one committed transaction, for entries to name in
    /// [`NewJournalEntry::prior_blob`].
    pub async fn store_blobs(&self, blobs: Vec<(Vec<u8>, Vec<u8>)>) -> Result<(), SessionError> {
        self.manager
            .store()
            .call(move |store| store.store_blobs(&blobs))
            .await
    }

    /// The journal entries of the latest turn not yet undone (empty when
    /// there is none), in change order.
    pub async fn latest_undoable(&self) -> Result<Vec<JournalEntry>, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.latest_undoable(&id))
            .await
    }

    /// Every journal entry not undone, in change order (for `/diff`).
    pub async fn live_changes(&self) -> Result<Vec<JournalEntry>, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.live_changes(&id))
            .await
    }

    /// Hides the turns from `from_turn` on (through the latest) from the
    /// context window, as a new row: the log keeps them. `None` when the
    /// session has no such turn.
    pub async fn rewind(&self, from_turn: u64) -> Result<Option<Rewind>, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.rewind(&id, from_turn))
            .await
    }

    /// Every rewind of the session, oldest first (empty for a draft).
    pub async fn rewinds(&self) -> Result<Vec<Rewind>, SessionError> {
        if !self.is_written() {
            return Ok(Vec::new());
        }
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.rewinds(&id))
            .await
    }

    /// The user's prompts no rewind hid, newest first, each with the files
    /// its turn changed (empty for a draft).
    pub async fn prompts(&self) -> Result<Vec<PromptRecord>, SessionError> {
        if !self.is_written() {
            return Ok(Vec::new());
        }
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.prompts(&id))
            .await
    }

    /// The journal entries of every turn from `turn` on not yet undone, in
    /// change order.
    pub async fn undoable_from(&self, turn: u64) -> Result<Vec<JournalEntry>, SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.undoable_from(&id, turn))
            .await
    }

    /// Marks `turn`'s changes undone, so the next undo reaches the turn
    /// before.
    pub async fn mark_undone(&self, turn: u64) -> Result<(), SessionError> {
        let id = Arc::clone(&self.id);
        self.manager
            .store()
            .call(move |store| store.mark_undone(&id, turn))
            .await
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Each critical section is one field write, so a poisoned lock holds a
    // consistent value.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
