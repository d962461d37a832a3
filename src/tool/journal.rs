//! The undo journal as tools see it: a place to put each file's prior
//! state before they change it. The agent implements it over the session.

use futures::future::BoxFuture;

/// A file's state just before a tool changed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorFile {
    /// Path relative to the working directory.
    pub path: String,
    /// The bytes it had; `None` when it did not exist.
    pub content: Option<Vec<u8>>,
    /// Its permission bits, when it existed.
    pub mode: Option<u32>,
    /// [`content_hash`](crate::tool::seen::content_hash) of what the tool
    /// writes there; `None` when the tool removes it. Undo leaves a file
    /// alone whose content no longer has this hash.
    pub after_hash: Option<u64>,
}

/// Where writing tools record prior states, keyed by the running turn.
pub trait ChangeJournal: Send + Sync {
    /// Stores `files` (one tool call's changes); resolves once they are
    /// durable. A failure stops the call before anything is written.
    fn record(&self, files: Vec<PriorFile>) -> BoxFuture<'static, Result<(), String>>;
}

/// A cheap-clone handle to a [`ChangeJournal`].
#[derive(Clone)]
pub struct Journal(std::sync::Arc<dyn ChangeJournal>);

impl Journal {
    /// Wraps a journal.
    pub fn new(journal: std::sync::Arc<dyn ChangeJournal>) -> Journal {
        Journal(journal)
    }

    /// See [`ChangeJournal::record`].
    pub fn record(&self, files: Vec<PriorFile>) -> BoxFuture<'static, Result<(), String>> {
        self.0.record(files)
    }
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Journal")
    }
}
