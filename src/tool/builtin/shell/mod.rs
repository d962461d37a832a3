//! Running commands: the `shell`, `shell_output` and `shell_kill` tools and
//! the [`Shell`] they share (also used for the user's own `!cmd`).
//!
//! | file | job |
//! |---|---|
//! | `tools.rs` | the three tools: arguments, checks, the model's result text |
//! | `process.rs` | starting a command (own session and group, stdin `/dev/null`, parent-death signal) and stopping its whole group |
//! | `run.rs` | driving a command to its end: pipes, timeout, cancellation, live updates |
//! | `clean.rs` | ANSI sequences removed, carriage-return progress collapsed |
//! | `output.rs` | the 16 KiB budget (head, omission line, tail) and the full log |
//! | `env.rs` | the command's environment: secrets out, pagers and prompts off |
//! | `jobs.rs` | background jobs |
//! | `undo.rs` | the snapshot around a command that can write, and its change set |
//!
//! Commands run under the sandbox helper ([`crate::sandbox`]) unless the
//! shell was made without one (sandbox off, or `full` permissions). Nothing
//! a command starts outlives it: on exit, timeout, interrupt or a dropped
//! future its process group gets SIGTERM and, 2 s later, SIGKILL.

mod clean;
mod env;
mod jobs;
mod output;
mod process;
mod run;
mod tools;
mod undo;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use env::SecretFilter;
pub use jobs::JobInfo;
pub use output::MODEL_BUDGET;
pub use tools::{
    ShellArgs, ShellKillArgs, ShellKillTool, ShellOutputArgs, ShellOutputTool, ShellTool,
};

use crate::sandbox::{SandboxPolicy, SandboxState};
use crate::tool::snapshot::{DEFAULT_BUDGET, Snapshots};
use crate::tool::{RegisterError, ToolProgress, ToolRegistry};
use jobs::{Job, Jobs, SharedJobs};
use output::Output;
use process::Launch;
use run::{Driven, Ending};

/// How commands run.
#[derive(Debug, Clone, Default)]
pub struct ShellConfig {
    /// The sandbox commands run in.
    pub sandbox: SandboxPolicy,
    /// The agent's binary, re-executed as the sandbox helper; `None` runs
    /// commands without a sandbox.
    pub helper: Option<PathBuf>,
    /// The environment commands start from (secrets are removed from it).
    pub env: Vec<(OsString, OsString)>,
    /// Which variables are secrets.
    pub secrets: SecretFilter,
    /// Where full outputs are kept (`state_dir/shell`).
    pub log_dir: PathBuf,
    /// Bytes a snapshot outside git keeps before undo would be partial;
    /// `None`: [`crate::tool::snapshot::DEFAULT_BUDGET`].
    pub snapshot_budget: Option<u64>,
}

/// The command runner a session's shell tools share: configuration, the
/// sandbox state found at start, and the background jobs. Cheap to clone;
/// the jobs end when the last clone is dropped or [`Shell::end_jobs`] is
/// called.
#[derive(Clone)]
pub struct Shell {
    inner: Arc<Inner>,
}

struct Inner {
    config: ShellConfig,
    state: SandboxState,
    tmp: PathBuf,
    jobs: SharedJobs,
    next_log: AtomicU64,
    snapshots: Snapshots,
}

/// One command to run.
#[derive(Debug, Clone)]
pub struct CommandRequest {
    /// The `bash -c` script.
    pub command: String,
    /// Directory it runs in (already checked to be inside the working directory).
    pub cwd: PathBuf,
    /// The working directory, which the sandbox lets it write beneath
    /// (`cwd` is it or a folder inside it: a build run in a subfolder still
    /// writes its lock file and target beside it).
    pub workspace: PathBuf,
    /// When it is stopped; `None`: never (background jobs).
    pub timeout: Option<Duration>,
    /// Run without the sandbox helper (the user approved leaving it, or it
    /// is the user's own command).
    pub unsandboxed: bool,
}

/// How a finished command went.
#[derive(Debug, Clone)]
pub struct CommandReport {
    /// `exit 0`, `timed out after 1.00 s: …`, `killed by signal 9 (SIGKILL)`.
    pub status: String,
    /// Whether it exited 0.
    pub success: bool,
    /// How long it ran.
    pub took: Duration,
    /// At most [`MODEL_BUDGET`] bytes of cleaned output.
    pub output: String,
    /// Bytes of cleaned output in all.
    pub output_bytes: u64,
    /// Where the full output is kept, when `output` is not all of it (or why
    /// it could not be kept).
    pub log: Option<Result<PathBuf, String>>,
    /// The confinement it ran under.
    pub sandbox: SandboxState,
}

impl Shell {
    /// A runner for `config`. Runs the helper once to learn what the
    /// sandbox enforces on this machine (see [`crate::sandbox::probe`]).
    pub fn new(config: ShellConfig) -> Shell {
        let tmp = PathBuf::from(env::temp_dir(&config.env));
        let state = match &config.helper {
            Some(helper) => {
                let env = env::command_env(&config.env, &config.secrets, tmp.as_os_str());
                crate::sandbox::probe(helper, &config.sandbox, &env, &tmp)
            }
            None => SandboxState::Off,
        };
        let snapshots = Snapshots::new(
            env::command_env(&config.env, &config.secrets, tmp.as_os_str()),
            config.snapshot_budget.unwrap_or(DEFAULT_BUDGET),
        );
        Shell {
            inner: Arc::new(Inner {
                config,
                state,
                tmp,
                jobs: Arc::default(),
                next_log: AtomicU64::new(1),
                snapshots,
            }),
        }
    }

    /// The snapshots taken around commands that can write (for undo).
    pub fn snapshots(&self) -> &Snapshots {
        &self.inner.snapshots
    }

    /// What the sandbox enforces (for the status line and approvals).
    pub fn sandbox_state(&self) -> &SandboxState {
        &self.inner.state
    }

    /// The directories a command in `cwd` may write beneath (none when
    /// the sandbox is read-only).
    pub fn writable_roots(&self, cwd: &Path) -> Vec<PathBuf> {
        self.inner.config.sandbox.write_roots(cwd, &self.inner.tmp)
    }

    /// The configuration.
    pub fn config(&self) -> &ShellConfig {
        &self.inner.config
    }

    /// Runs `request` to its end (or its timeout, or `cancel`), showing its
    /// last lines on `live`. Fails only when the command cannot be started.
    pub async fn run(
        &self,
        request: &CommandRequest,
        cancel: CancellationToken,
        live: Option<ToolProgress>,
    ) -> std::io::Result<CommandReport> {
        let (spawned, sandboxed) = self.spawn(request)?;
        let output = Arc::new(Mutex::new(Output::new(self.log_path("run"))));
        let driven = run::drive(
            spawned,
            output.clone(),
            request.timeout,
            cancel,
            live,
            sandboxed,
        )
        .await;
        let finished = match Arc::try_unwrap(output) {
            Ok(output) => output.into_inner().unwrap_or_else(|p| p.into_inner()),
            // `drive` keeps no clone, so this does not happen; stay correct anyway.
            Err(shared) => std::mem::replace(&mut *run::lock(&shared), Output::new(PathBuf::new())),
        }
        .finish();
        Ok(CommandReport {
            status: jobs::describe_end(&driven.ending),
            success: matches!(&driven.ending, Ending::Exited(s) if s.success()),
            took: driven.took,
            output: finished.text,
            output_bytes: finished.total,
            log: finished.log,
            sandbox: self.ran_under(sandboxed, &driven),
        })
    }

    /// Starts `request` as a background job; returns its id.
    pub fn start_job(&self, request: &CommandRequest) -> Result<String, String> {
        let mut jobs = jobs_lock(&self.inner.jobs);
        if jobs.running() >= jobs::MAX_RUNNING {
            return Err(format!(
                "{} jobs are running already; end one with shell_kill first",
                jobs::MAX_RUNNING
            ));
        }
        let (spawned, sandboxed) = self
            .spawn(request)
            .map_err(|e| format!("the command could not be started: {e}"))?;
        jobs.next += 1;
        let id = format!("job-{}", jobs.next);
        let output = Arc::new(Mutex::new(Output::new(self.log_path(&id))));
        let stop = CancellationToken::new();
        let (tx, rx) = watch::channel(None);
        let task_output = output.clone();
        let task_stop = stop.clone();
        let timeout = request.timeout;
        tokio::spawn(async move {
            let driven =
                run::drive(spawned, task_output, timeout, task_stop, None, sandboxed).await;
            let _ = tx.send(Some(driven));
        });
        jobs.list.push(Job {
            id: id.clone(),
            command: request.command.clone(),
            started: std::time::Instant::now(),
            output,
            ended: rx,
            stop,
            read_pos: 0,
        });
        Ok(id)
    }

    /// Every job of this session, oldest first.
    pub fn jobs(&self) -> Vec<JobInfo> {
        jobs_lock(&self.inner.jobs)
            .list
            .iter()
            .map(Job::info)
            .collect()
    }

    /// Ends job `id` and waits (at most a few seconds) until it has ended.
    pub async fn kill_job(&self, id: &str) -> Result<JobInfo, String> {
        let mut ended = {
            let mut jobs = jobs_lock(&self.inner.jobs);
            let job = jobs.find_mut(id)?;
            job.stop.cancel();
            job.ended.clone()
        };
        let _ = tokio::time::timeout(process::GRACE * 3, ended.wait_for(|end| end.is_some())).await;
        let mut jobs = jobs_lock(&self.inner.jobs);
        jobs.find_mut(id).map(|job| job.info())
    }

    /// Ends every running job (the session is ending).
    pub fn end_jobs(&self) {
        jobs_lock(&self.inner.jobs).end_all();
    }

    /// Output of job `id` not yet read, after waiting up to `wait` for it to
    /// end (or `cancel`).
    pub(crate) async fn read_job(
        &self,
        id: &str,
        wait: Duration,
        cancel: &CancellationToken,
    ) -> Result<JobRead, String> {
        let mut ended = {
            let mut jobs = jobs_lock(&self.inner.jobs);
            jobs.find_mut(id)?.ended.clone()
        };
        if !wait.is_zero() {
            tokio::select! {
                _ = cancel.cancelled() => {}
                _ = tokio::time::sleep(wait) => {}
                _ = ended.wait_for(|end| end.is_some()) => {}
            }
        }
        let mut jobs = jobs_lock(&self.inner.jobs);
        let job = jobs.find_mut(id)?;
        let info = job.info();
        let output = run::lock(&job.output);
        let (omitted, text) = output.since(job.read_pos);
        let log = output.log_path().map(Path::to_path_buf);
        let total = output.total();
        drop(output);
        job.read_pos = total;
        Ok(JobRead {
            info,
            omitted,
            text,
            log,
        })
    }

    fn spawn(&self, request: &CommandRequest) -> std::io::Result<(process::Spawned, bool)> {
        let config = &self.inner.config;
        let env = env::command_env(&config.env, &config.secrets, self.inner.tmp.as_os_str());
        let sandbox = match (&config.helper, request.unsandboxed) {
            (Some(helper), false) => Some((helper.as_path(), &config.sandbox)),
            _ => None,
        };
        let launch = Launch {
            command: &request.command,
            cwd: &request.cwd,
            workspace: &request.workspace,
            env: &env,
            tmp: &self.inner.tmp,
            sandbox,
        };
        Ok((process::spawn(&launch)?, sandbox.is_some()))
    }

    fn ran_under(&self, sandboxed: bool, driven: &Driven) -> SandboxState {
        if !sandboxed {
            return SandboxState::Off;
        }
        driven
            .sandbox
            .clone()
            .unwrap_or_else(|| SandboxState::Unavailable {
                reason: "the sandbox helper did not report".into(),
            })
    }

    fn log_path(&self, what: &str) -> PathBuf {
        let n = self.inner.next_log.fetch_add(1, Ordering::Relaxed);
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        self.inner
            .config
            .log_dir
            .join(format!("{stamp}-{}-{what}-{n}.log", std::process::id()))
    }
}

/// What `shell_output` returns.
pub(crate) struct JobRead {
    pub info: JobInfo,
    pub omitted: u64,
    pub text: String,
    pub log: Option<PathBuf>,
}

fn jobs_lock(jobs: &SharedJobs) -> std::sync::MutexGuard<'_, Jobs> {
    // Every critical section is a push or a field update: poisoning leaves it valid.
    jobs.lock().unwrap_or_else(|p| p.into_inner())
}

/// Registers `shell`, `shell_output` and `shell_kill` over `shell`.
///
/// Fails if one of those names is taken (earlier ones stay registered).
pub fn register(registry: &ToolRegistry, shell: &Shell) -> Result<(), RegisterError> {
    registry.register(ShellTool::new(shell.clone()))?;
    registry.register(ShellOutputTool::new(shell.clone()))?;
    registry.register(ShellKillTool::new(shell.clone()))
}
