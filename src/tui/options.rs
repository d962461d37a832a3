//! How the terminal UI starts and ends. What crosses between it and the
//! host is the protocol's vocabulary alone: it sends
//! [`Submission`](crate::protocol::Submission)s and receives
//! [`HostEvent`](crate::protocol::HostEvent)s; it locks no shared state.

use std::path::PathBuf;

/// How the UI starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuiOptions {
    /// File that keeps this cwd's prompt history (JSON lines); `None` keeps
    /// history in memory only.
    pub history_path: Option<PathBuf>,
    /// Show thought text (otherwise only the "thought for Ns" line).
    pub show_thoughts: bool,
    /// How many result lines a tool pane shows.
    pub tool_preview_lines: usize,
    /// Shown at start when no model is configured: what to set.
    pub no_model_message: Option<String>,
    /// A prompt sent as soon as the UI is up.
    pub initial_prompt: Option<String>,
    /// How the user is called back while the terminal is not focused.
    pub notifications: super::notify::Notifications,
    /// Image files (`-i`) attached as chips at start (sent with the
    /// initial prompt when there is one).
    pub images: Vec<String>,
}

impl Default for TuiOptions {
    fn default() -> Self {
        Self {
            history_path: None,
            show_thoughts: true,
            tool_preview_lines: 5,
            no_model_message: None,
            initial_prompt: None,
            notifications: super::notify::Notifications::Auto,
            images: Vec::new(),
        }
    }
}

/// How the UI ended normally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TuiExit {
    /// The user quit, or the runtime closed its channel.
    Quit,
    /// This signal (SIGTERM 15, SIGHUP 1) ended it; the process should exit
    /// with 128 + the number.
    Signal(i32),
}

/// Why the UI stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal could not be set up, read or written.
    #[error("terminal I/O failed: {0}")]
    Io(#[from] std::io::Error),
}
