//! The undo journal as tools see it: a place to put each file's prior
//! state before they change it, and a store of contents by hash (a
//! command's snapshot). The agent implements it over the session.

use futures::future::BoxFuture;

/// The key a content is stored under: its 128-bit xxh3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlobHash(pub u128);

impl BlobHash {
    /// The key of `bytes`.
    pub fn of(bytes: &[u8]) -> BlobHash {
        BlobHash(xxhash_rust::xxh3::xxh3_128(bytes))
    }

    /// The key as 16 big-endian bytes (how the session stores it).
    pub fn to_bytes(self) -> Vec<u8> {
        self.0.to_be_bytes().to_vec()
    }
}

/// What a file held before the change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PriorContent {
    /// It did not exist.
    Absent,
    /// These bytes.
    Bytes(Vec<u8>),
    /// The content stored earlier with [`ChangeJournal::store`] under this
    /// hash.
    Stored(BlobHash),
}

/// A file's state just before a tool changed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorFile {
    /// Path relative to the working directory.
    pub path: String,
    /// What it held.
    pub content: PriorContent,
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

    /// Stores contents by their hash (a key stored before is kept);
    /// resolves once they are durable.
    fn store(&self, blobs: Vec<(BlobHash, Vec<u8>)>) -> BoxFuture<'static, Result<(), String>>;
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

    /// See [`ChangeJournal::store`].
    pub fn store(&self, blobs: Vec<(BlobHash, Vec<u8>)>) -> BoxFuture<'static, Result<(), String>> {
        self.0.store(blobs)
    }
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Journal")
    }
}
