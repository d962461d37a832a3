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

/// A cheap-clone handle to a [`ChangeJournal`], and the change sets it is
/// still waiting for.
#[derive(Clone)]
pub struct Journal {
    inner: std::sync::Arc<dyn ChangeJournal>,
    pending: Pending,
}

/// Change sets still being worked out after their command returned
/// ([`Journal::record_later`]). Every record and store through a journal
/// sharing it waits for them first, so a change set never holds a later
/// write, and the journal's order stays the order of the changes.
#[derive(Clone, Default)]
pub struct Pending {
    gate: std::sync::Arc<tokio::sync::Mutex<()>>,
    /// Why change sets could not be recorded, until [`Pending::settled`]
    /// reports them.
    failures: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Pending {
    /// Waits until every change set handed over so far is recorded.
    async fn wait(&self) {
        drop(self.gate.lock().await);
    }

    /// [`Pending::wait`]s, then says why each change set that failed since
    /// the last call could not be recorded.
    pub async fn settled(&self) -> Vec<String> {
        self.wait().await;
        std::mem::take(&mut *self.failures.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl Journal {
    /// Wraps a journal, with change sets pending of its own.
    pub fn new(inner: std::sync::Arc<dyn ChangeJournal>) -> Journal {
        Journal {
            inner,
            pending: Pending::default(),
        }
    }

    /// The same journal, waiting for (and adding to) `pending`: journals of
    /// one session share it.
    pub fn sharing(self, pending: &Pending) -> Journal {
        Journal {
            pending: pending.clone(),
            ..self
        }
    }

    /// Waits until the change sets handed over so far are recorded.
    pub async fn caught_up(&self) {
        self.pending.wait().await;
    }

    /// See [`ChangeJournal::record`]; waits for pending change sets first.
    pub fn record(&self, files: Vec<PriorFile>) -> BoxFuture<'static, Result<(), String>> {
        let (inner, this) = (self.inner.clone(), self.clone());
        Box::pin(async move {
            this.caught_up().await;
            inner.record(files).await
        })
    }

    /// See [`ChangeJournal::store`]; waits for pending change sets first.
    pub fn store(&self, blobs: Vec<(BlobHash, Vec<u8>)>) -> BoxFuture<'static, Result<(), String>> {
        let (inner, this) = (self.inner.clone(), self.clone());
        Box::pin(async move {
            this.caught_up().await;
            inner.store(blobs).await
        })
    }

    /// Records the change set `changes` yields without waiting for it: a
    /// command's result goes back while its changes are still compared.
    /// Resolves once the change set holds its place: every later record,
    /// store and [`Pending::settled`] waits until it is recorded.
    pub async fn record_later(
        &self,
        changes: impl std::future::Future<Output = Vec<PriorFile>> + Send + 'static,
    ) {
        let held = self.pending.gate.clone().lock_owned().await;
        let (inner, failures) = (self.inner.clone(), self.pending.failures.clone());
        tokio::spawn(async move {
            let files = changes.await;
            if !files.is_empty()
                && let Err(why) = inner.record(files).await
            {
                tracing::warn!("a command's change set was not recorded: {why}");
                failures.lock().unwrap_or_else(|p| p.into_inner()).push(why);
            }
            drop(held);
        });
    }
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Journal")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use std::sync::{Arc, Mutex};

    /// Keeps the paths it records, in order; refuses a path named "bad".
    #[derive(Default)]
    struct Order(Mutex<Vec<String>>);

    impl ChangeJournal for Order {
        fn record(&self, files: Vec<PriorFile>) -> BoxFuture<'static, Result<(), String>> {
            let result = match files.iter().any(|f| f.path == "bad") {
                true => Err("the disk is full".to_string()),
                false => {
                    let mut order = self.0.lock().unwrap();
                    order.extend(files.into_iter().map(|f| f.path));
                    Ok(())
                }
            };
            Box::pin(async move { result })
        }
        fn store(&self, _: Vec<(BlobHash, Vec<u8>)>) -> BoxFuture<'static, Result<(), String>> {
            Box::pin(async { Ok(()) })
        }
    }

    fn file(path: &str) -> PriorFile {
        PriorFile {
            path: path.into(),
            content: PriorContent::Absent,
            mode: None,
            after_hash: None,
        }
    }

    #[tokio::test]
    async fn a_later_write_waits_for_the_change_set_still_being_compared() {
        let order = Arc::new(Order::default());
        let pending = Pending::default();
        let journal = Journal::new(order.clone()).sharing(&pending);
        let (compared, comparing) = tokio::sync::oneshot::channel::<()>();
        journal
            .record_later(async move {
                let _ = comparing.await;
                vec![file("by the command")]
            })
            .await;
        // Another journal of the same session: the next step's edit.
        let next = Journal::new(order.clone()).sharing(&pending);
        let mut edit = next.record(vec![file("by the edit")]);
        assert!((&mut edit).now_or_never().is_none(), "the edit waits");
        assert!(order.0.lock().unwrap().is_empty());
        compared.send(()).unwrap();
        edit.await.unwrap();
        assert_eq!(*order.0.lock().unwrap(), ["by the command", "by the edit"]);
        assert!(pending.settled().await.is_empty());
    }

    #[tokio::test]
    async fn a_change_set_that_could_not_be_recorded_is_reported_once_settled() {
        let pending = Pending::default();
        let journal = Journal::new(Arc::new(Order::default())).sharing(&pending);
        journal.record_later(async { vec![file("bad")] }).await;
        assert_eq!(pending.settled().await, ["the disk is full"]);
        assert!(pending.settled().await.is_empty(), "reported once");
    }
}
