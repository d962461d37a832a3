//! Running filesystem work off the async threads, stoppable at once.
//!
//! Walks and reads are blocking, so they run on tokio's blocking pool. The
//! async side races the work against the cancellation token and returns the
//! moment it fires; the blocking side polls a [`StopFlag`] between files and
//! lines and winds down on its own shortly after.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio_util::sync::CancellationToken;

use crate::tool::ToolOutput;

/// Set when the blocking work should give up; checked between units of work.
#[derive(Debug, Clone, Default)]
pub(crate) struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// Whether the work should stop now.
    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Sets the flag when the awaiting side goes away, however it goes.
struct StopOnDrop(StopFlag);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.set();
    }
}

/// Why blocking work produced no value.
#[derive(Debug)]
pub(crate) enum Interrupted {
    /// The token fired.
    Cancelled,
    /// The work panicked or the pool refused it.
    Crashed(String),
}

impl Interrupted {
    /// The error output `tool` gives back for this interruption.
    pub(crate) fn into_output(self, tool: &str) -> ToolOutput {
        match self {
            Interrupted::Cancelled => cancelled(tool),
            Interrupted::Crashed(reason) => ToolOutput::error(format!("{tool} failed: {reason}")),
        }
    }
}

/// The error output of a tool stopped by the cancellation token.
pub(crate) fn cancelled(tool: &str) -> ToolOutput {
    ToolOutput::error(format!("{tool} cancelled"))
}

/// Runs `work` on the blocking pool; returns as soon as `cancel` fires.
pub(crate) async fn run_blocking<T, F>(
    cancel: &CancellationToken,
    work: F,
) -> Result<T, Interrupted>
where
    T: Send + 'static,
    F: FnOnce(&StopFlag) -> T + Send + 'static,
{
    if cancel.is_cancelled() {
        return Err(Interrupted::Cancelled);
    }
    let stop = StopFlag::default();
    let _stop_on_drop = StopOnDrop(stop.clone());
    let worker_stop = stop.clone();
    let handle = tokio::task::spawn_blocking(move || work(&worker_stop));
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(Interrupted::Cancelled),
        joined = handle => joined.map_err(|e| Interrupted::Crashed(e.to_string())),
    }
}
