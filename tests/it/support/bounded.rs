//! Hang guards: "this ends" without asserting how fast.
//!
//! A test that waits for something to end wraps the wait in [`ends`]; the
//! guard is far above any figure the code shows (those are measured in
//! `scripts/measure.py` and `benches/`), so it fails only when the thing
//! under test hangs or waits out a delay it should have cut short.

use std::future::Future;
use std::time::Duration;

/// How long a wait may take before the test calls it a hang.
pub const GUARD: Duration = Duration::from_secs(20);

/// Awaits `future`, failing the test with `what` if it has not ended within [`GUARD`].
pub async fn ends<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(GUARD, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: still waiting after {GUARD:?}"),
    }
}

/// Polls `condition` until it holds, failing the test with `what` after [`GUARD`].
pub async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    ends(what, async {
        while !condition() {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await;
}

/// Waits until `file` holds a whole line (the pid a started process wrote)
/// and returns it trimmed.
pub async fn pid_in(file: &std::path::Path) -> String {
    until(&format!("{} to hold a pid", file.display()), || {
        std::fs::read_to_string(file).is_ok_and(|pid| pid.ends_with('\n'))
    })
    .await;
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Waits until process `pid` is gone or a zombie (killed, not yet reaped).
pub async fn process_gone(pid: &str) {
    until(&format!("process {pid} to be gone"), || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |stat| stat.contains(") Z "))
    })
    .await;
}
