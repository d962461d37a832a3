//! Background jobs: commands started with `background: true`, read with
//! `shell_output`, ended with `shell_kill`, `/jobs kill`, or the session.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::run::{Driven, Ending, SharedOutput, lock};

/// Most jobs running at once.
pub(crate) const MAX_RUNNING: usize = 16;

/// One job as `/jobs` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobInfo {
    /// Its id, e.g. `job-1`.
    pub id: String,
    /// The command line.
    pub command: String,
    /// Running, or how it ended.
    pub state: String,
    /// Whether it still runs.
    pub running: bool,
    /// Bytes of output so far.
    pub output_bytes: u64,
    /// Time since it started.
    pub age: Duration,
}

pub(crate) struct Job {
    pub id: String,
    pub command: String,
    pub started: Instant,
    pub output: SharedOutput,
    pub ended: watch::Receiver<Option<Driven>>,
    pub stop: CancellationToken,
    /// How much output `shell_output` has already returned.
    pub read_pos: u64,
}

impl Job {
    pub(crate) fn is_running(&self) -> bool {
        self.ended.borrow().is_none()
    }

    pub(crate) fn info(&self) -> JobInfo {
        let state = match &*self.ended.borrow() {
            None => "running".to_string(),
            Some(driven) => describe_end(&driven.ending),
        };
        JobInfo {
            id: self.id.clone(),
            command: self.command.clone(),
            running: self.is_running(),
            state,
            output_bytes: lock(&self.output).total(),
            age: self.started.elapsed(),
        }
    }
}

/// Every job of one session; dropping it ends those still running.
#[derive(Default)]
pub(crate) struct Jobs {
    pub list: Vec<Job>,
    pub next: u32,
}

impl Jobs {
    pub(crate) fn running(&self) -> usize {
        self.list.iter().filter(|j| j.is_running()).count()
    }

    /// Job `id`, or why there is none: the ids there are, or that no
    /// command was started in the background (a model guesses `job-1`).
    pub(crate) fn find_mut(&mut self, id: &str) -> Result<&mut Job, String> {
        let Some(at) = self.list.iter().position(|j| j.id == id.trim()) else {
            return Err(self.unknown(id));
        };
        Ok(&mut self.list[at])
    }

    fn unknown(&self, id: &str) -> String {
        if self.list.is_empty() {
            return format!(
                "there is no job {id:?}: no command was started in the background in this session (shell with background: true starts one)"
            );
        }
        let ids: Vec<&str> = self.list.iter().map(|j| j.id.as_str()).collect();
        format!("there is no job {id:?}; the jobs are {}", ids.join(", "))
    }

    /// Stops every running job (their tasks stop the process groups).
    pub(crate) fn end_all(&mut self) {
        for job in &self.list {
            job.stop.cancel();
        }
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.end_all();
    }
}

/// How a command ended, in words.
pub(crate) fn describe_end(ending: &Ending) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match ending {
        Ending::Exited(status) => match (status.code(), status.signal()) {
            (Some(code), _) => format!("exit {code}"),
            (None, Some(signal)) => format!("killed by signal {signal}{}", signal_name(signal)),
            (None, None) => "ended".to_string(),
        },
        Ending::TimedOut(after) => format!(
            "timed out after {}: it and everything it started were stopped",
            seconds(*after)
        ),
        Ending::Stopped => "stopped: it and everything it started were ended".to_string(),
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => " (SIGHUP)",
        2 => " (SIGINT)",
        6 => " (SIGABRT)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        13 => " (SIGPIPE)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

/// `0.02 s`, `1.5 s`, `75 s`.
pub(crate) fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.2} s")
    } else {
        format!("{s:.0} s")
    }
}

/// A shared handle so tasks can report to a job they do not own.
pub(crate) type SharedJobs = Arc<std::sync::Mutex<Jobs>>;
