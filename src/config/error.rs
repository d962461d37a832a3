//! [`ConfigError`]: everything that stops configuration from resolving.

use std::path::PathBuf;

/// Why configuration could not be read, resolved or written.
///
/// Classified by what the caller does: `Malformed` and `Invalid` mean the
/// user must fix a file or a flag (exit 2); `AlreadyExists` is a refusal, not
/// a failure of the program; `Io` and `NoDirectories` are host problems.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file is not valid TOML, or a value has the wrong type or
    /// range. `line` and `column` are 1-based (column counts characters).
    #[error("{}:{line}:{column}: {message}", file.display())]
    Malformed {
        /// The file that failed.
        file: PathBuf,
        /// 1-based line of the offending text.
        line: usize,
        /// 1-based column (in characters) of the offending text.
        column: usize,
        /// What is wrong there.
        message: String,
    },
    /// `config init` found a file already in place and left it untouched.
    #[error("{} already exists; not overwriting it", .0.display())]
    AlreadyExists(PathBuf),
    /// Reading or writing a file or directory failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being attempted, e.g. "read" or "create directory".
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// No home directory could be determined and `LIGHT_AGENT_HOME` is unset.
    #[error(
        "cannot find a home directory; set LIGHT_AGENT_HOME to choose where light-agent keeps its files"
    )]
    NoDirectories,
    /// A flag, environment variable or cross-reference names something that
    /// does not exist or is out of range.
    #[error("{0}")]
    Invalid(String),
}

impl ConfigError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        ConfigError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
