//! The per-call context a tool runs in.

use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use crate::permission::Permits;

/// Where a tool runs and how it learns that it should stop.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The session's working directory, canonical (symlinks resolved). Every
    /// path a built-in tool touches stays inside it.
    pub cwd: PathBuf,
    /// Fires when the turn is interrupted; tools then return promptly.
    pub cancel: CancellationToken,
    /// Folders outside `cwd` whose files `read_file` may read by absolute
    /// path (the folders of loaded skills). Canonical.
    pub read_roots: Vec<PathBuf>,
    /// Decides gated calls: a writing tool prepares its change, then asks
    /// here, and writes only when allowed.
    pub permits: Permits,
}

impl ToolContext {
    /// A context for `cwd`, canonicalised here, with [`Permits::default`]
    /// (gated calls denied unless a rule allows them).
    ///
    /// Fails when `cwd` does not exist or cannot be resolved.
    pub fn new(cwd: impl AsRef<Path>, cancel: CancellationToken) -> std::io::Result<Self> {
        Ok(Self {
            cwd: cwd.as_ref().canonicalize()?,
            cancel,
            read_roots: Vec::new(),
            permits: Permits::default(),
        })
    }
}
