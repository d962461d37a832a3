//! [`init_logging`]: `tracing` to a daily-rotating file, never the terminal.

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::EnvFilter;

use super::{ConfigError, Paths};

/// How many daily log files are kept before the oldest is deleted.
const KEPT_LOG_FILES: usize = 7;

/// Lines the background writer may fall behind by before new ones are
/// dropped. tracing-appender's default (128 000) preallocates 4 MiB, a fifth
/// of the program's whole footprint, for bursts that never come.
const BUFFERED_LOG_LINES: usize = 4096;

/// Keeps the background log writer alive; dropping it flushes what is
/// buffered. Hold it until the program ends.
#[must_use = "dropping the guard stops logging"]
pub struct LogGuard {
    _worker: WorkerGuard,
}

impl std::fmt::Debug for LogGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LogGuard")
    }
}

/// Sends `tracing` output to `light-agent.YYYY-MM-DD.log` in
/// `paths.log_dir`, rotating daily and keeping a week, written on a
/// background thread. `level` is a `RUST_LOG`-style filter (`info`,
/// `light_agent=trace,warn`).
///
/// Fails if the filter does not parse, the directory cannot be created, or a
/// global subscriber is already installed. Nothing is ever written to the
/// terminal, so the TUI's screen stays intact.
pub fn init_logging(paths: &Paths, level: &str) -> Result<LogGuard, ConfigError> {
    let filter = EnvFilter::try_new(level)
        .map_err(|err| ConfigError::Invalid(format!("invalid log level `{level}`: {err}")))?;
    std::fs::create_dir_all(&paths.log_dir)
        .map_err(|err| ConfigError::io("create directory", &paths.log_dir, err))?;
    let appender = Builder::new()
        .rotation(Rotation::DAILY)
        .filename_prefix("light-agent")
        .filename_suffix("log")
        .max_log_files(KEPT_LOG_FILES)
        .build(&paths.log_dir)
        .map_err(|err| {
            ConfigError::Invalid(format!(
                "cannot open a log file in {}: {err}",
                paths.log_dir.display()
            ))
        })?;
    let (writer, worker) = NonBlockingBuilder::default()
        .buffered_lines_limit(BUFFERED_LOG_LINES)
        .finish(appender);
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init()
        .map_err(|err| ConfigError::Invalid(format!("logging is already set up: {err}")))?;
    Ok(LogGuard { _worker: worker })
}
