//! The store thread: one `std::thread` owns the [`Store`] (and so the SQLite
//! connection) and runs jobs from a channel one at a time.
//!
//! The sending half lives in every [`SessionManager`](super::SessionManager)
//! and [`AgentSession`](super::AgentSession) clone; the thread ends when the
//! last of them is dropped. Each job carries a tokio oneshot for its reply,
//! so async callers await without blocking a runtime worker on SQLite.

use std::sync::mpsc;

use tokio::sync::oneshot;

use super::SessionError;
use super::store::Store;

/// A request to the store thread: a closure that runs against the store and
/// sends its own reply.
type Job = Box<dyn FnOnce(&mut Store) + Send>;

/// Cheap, cloneable handle to the store thread.
#[derive(Clone, Debug)]
pub(super) struct StoreHandle {
    jobs: mpsc::Sender<Job>,
}

impl StoreHandle {
    /// Starts the store thread owning `store`.
    pub(super) fn spawn(store: Store) -> std::io::Result<Self> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("session-store".into())
            .spawn(move || {
                let mut store = store;
                for job in inbox {
                    job(&mut store);
                }
            })?;
        Ok(Self { jobs })
    }

    /// Runs `query` on the store thread and awaits its result.
    ///
    /// Fails with [`SessionError::Closed`] when the thread is gone. Dropping
    /// the returned future does not cancel a job already sent: an append
    /// still commits.
    pub(super) async fn call<T, F>(&self, query: F) -> Result<T, SessionError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Store) -> Result<T, SessionError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job: Job = Box::new(move |store| {
            // The caller may have stopped waiting; the work is done anyway.
            let _ = reply.send(query(store));
        });
        self.jobs.send(job).map_err(|_| SessionError::Closed)?;
        answer.await.map_err(|_| SessionError::Closed)?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_dead_store_thread_reads_as_closed_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let conn = super::super::schema::open_connection(&dir.path().join("s.db")).unwrap();
        let handle = StoreHandle::spawn(Store::new(conn)).unwrap();
        let crashed = handle
            .call(|_store| -> Result<(), SessionError> { panic!("simulated store crash") })
            .await;
        assert!(matches!(crashed, Err(SessionError::Closed)), "{crashed:?}");
        let after = handle.call(|store| store.list(None, 10)).await;
        assert!(matches!(after, Err(SessionError::Closed)), "{after:?}");
    }
}
