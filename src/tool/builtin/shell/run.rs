//! Driving a started command to its end: both pipes cleaned into one
//! [`Output`], live updates at most [`LIVE_EVERY`], the timeout and the
//! cancellation token obeyed by stopping the whole process group.

use std::process::ExitStatus;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt as _;
use tokio_util::sync::CancellationToken;

use super::clean::Cleaner;
use super::output::Output;
use super::process::{GRACE, Spawned};
use crate::sandbox::SandboxState;
use crate::tool::ToolProgress;

/// Shortest gap between two live updates (about 30 a second).
const LIVE_EVERY: Duration = Duration::from_millis(33);
/// Lines a live update shows.
const LIVE_LINES: usize = 8;
/// Longest sandbox report line looked for at the start of stderr.
const REPORT_MAX: usize = 1024;

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ending {
    /// It exited (or was killed by a signal it did not get from us).
    Exited(ExitStatus),
    /// Its timeout passed; its group was stopped.
    TimedOut(Duration),
    /// The turn (or the user) stopped it; its group was stopped.
    Stopped,
}

/// Output shared between the task that reads the pipes and whoever shows it.
pub(crate) type SharedOutput = Arc<Mutex<Output>>;

/// Locks shared output; a panic elsewhere cannot leave it inconsistent
/// (every update is one push), so poisoning is ignored.
pub(crate) fn lock(output: &SharedOutput) -> MutexGuard<'_, Output> {
    output.lock().unwrap_or_else(|p| p.into_inner())
}

/// What [`drive`] found out besides the output.
#[derive(Debug, Clone)]
pub(crate) struct Driven {
    pub ending: Ending,
    pub took: Duration,
    /// The helper's report, when the command ran under it.
    pub sandbox: Option<SandboxState>,
}

/// Reads the command's pipes into `output` until it ends, `timeout` passes
/// or `cancel` fires, then makes sure nothing of its group is left.
pub(crate) async fn drive(
    mut spawned: Spawned,
    output: SharedOutput,
    timeout: Option<Duration>,
    cancel: CancellationToken,
    live: Option<ToolProgress>,
    expect_report: bool,
) -> Driven {
    let started = Instant::now();
    let mut pipes = Pipes::new(expect_report);
    let mut live = live.map(|progress| Live {
        progress,
        last: None,
    });
    let deadline = tokio::time::sleep(timeout.unwrap_or(Duration::MAX / 4));
    tokio::pin!(deadline);
    let mut out_buf = vec![0u8; 64 * 1024];
    let mut err_buf = vec![0u8; 16 * 1024];
    let ending = loop {
        tokio::select! {
            biased;
            _ = cancel.cancelled() => break Ending::Stopped,
            _ = &mut deadline, if timeout.is_some() => {
                break Ending::TimedOut(timeout.unwrap_or_default());
            }
            status = spawned.child.wait() => match status {
                Ok(status) => break Ending::Exited(status),
                Err(_) => break Ending::Stopped,
            },
            read = spawned.stdout.read(&mut out_buf), if pipes.stdout_open => {
                pipes.take_stdout(read, &out_buf, &output);
            }
            read = spawned.stderr.read(&mut err_buf), if pipes.stderr_open => {
                pipes.take_stderr(read, &err_buf, &output);
            }
        }
        if let Some(live) = &mut live {
            live.maybe_update(&output);
        }
    };
    match ending {
        Ending::Exited(_) => spawned.group.stop_leftovers(&mut spawned.child).await,
        _ => spawned.group.stop(&mut spawned.child).await,
    }
    // Whatever is still in the pipes (or a grandchild that escaped the group
    // holding them open) gets at most GRACE.
    let drain = async {
        while pipes.stdout_open || pipes.stderr_open {
            tokio::select! {
                read = spawned.stdout.read(&mut out_buf), if pipes.stdout_open => {
                    pipes.take_stdout(read, &out_buf, &output);
                }
                read = spawned.stderr.read(&mut err_buf), if pipes.stderr_open => {
                    pipes.take_stderr(read, &err_buf, &output);
                }
            }
        }
    };
    let _ = tokio::time::timeout(GRACE, drain).await;
    pipes.finish(&output);
    Driven {
        ending,
        took: started.elapsed(),
        sandbox: pipes.report,
    }
}

struct Pipes {
    stdout_open: bool,
    stderr_open: bool,
    out: Cleaner,
    err: Cleaner,
    /// Bytes at the start of stderr while the report line is looked for.
    report_buf: Option<Vec<u8>>,
    report: Option<SandboxState>,
}

impl Pipes {
    fn new(expect_report: bool) -> Self {
        Pipes {
            stdout_open: true,
            stderr_open: true,
            out: Cleaner::new(),
            err: Cleaner::new(),
            report_buf: expect_report.then(Vec::new),
            report: None,
        }
    }

    fn take_stdout(&mut self, read: std::io::Result<usize>, buf: &[u8], output: &SharedOutput) {
        match read {
            Ok(0) | Err(_) => self.stdout_open = false,
            Ok(n) => feed(&mut self.out, &buf[..n], output),
        }
    }

    fn take_stderr(&mut self, read: std::io::Result<usize>, buf: &[u8], output: &SharedOutput) {
        let n = match read {
            Ok(0) | Err(_) => {
                self.stderr_open = false;
                self.flush_report(output);
                return;
            }
            Ok(n) => n,
        };
        let Some(report_buf) = &mut self.report_buf else {
            feed(&mut self.err, &buf[..n], output);
            return;
        };
        report_buf.extend_from_slice(&buf[..n]);
        if let Some((state, line)) = SandboxState::find_report(report_buf) {
            self.report = Some(state);
            let mut rest = report_buf[..line.start].to_vec();
            rest.extend_from_slice(&report_buf[line.end..]);
            self.report_buf = None;
            feed(&mut self.err, &rest, output);
        } else if report_buf.len() > REPORT_MAX {
            self.flush_report(output);
        }
    }

    /// Gives up looking for the report: what was held back is output.
    fn flush_report(&mut self, output: &SharedOutput) {
        if let Some(held) = self.report_buf.take() {
            feed(&mut self.err, &held, output);
        }
    }

    fn finish(&mut self, output: &SharedOutput) {
        self.flush_report(output);
        let mut output = lock(output);
        let mut push = |bytes: &[u8]| output.push(bytes);
        self.out.finish(&mut push);
        self.err.finish(&mut push);
    }
}

fn feed(cleaner: &mut Cleaner, bytes: &[u8], output: &SharedOutput) {
    let mut output = lock(output);
    cleaner.feed(bytes, &mut |clean| output.push(clean));
}

struct Live {
    progress: ToolProgress,
    last: Option<(Instant, u64)>,
}

impl Live {
    fn maybe_update(&mut self, output: &SharedOutput) {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|(at, _)| now.duration_since(at) < LIVE_EVERY)
        {
            return;
        }
        let (total, text) = {
            let output = lock(output);
            if self.last.is_some_and(|(_, total)| total == output.total()) {
                return;
            }
            (output.total(), output.last_lines(LIVE_LINES))
        };
        self.last = Some((now, total));
        self.progress.update(text);
    }
}
