//! The per-call context a tool runs in.

use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use super::fs::Root;
use super::journal::Journal;
use super::seen::SeenFiles;
use crate::permission::Permits;

/// Where a tool runs and how it learns that it should stop.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The working directory, opened once at session start and held as a
    /// handle. Every file a tool touches is opened through it (see
    /// [`crate::tool::fs`]), so renaming or replacing the directory's path
    /// changes nothing a tool can reach.
    pub root: Root,
    /// The working directory's path when it was opened — for messages and
    /// display only, never opened again.
    pub cwd: PathBuf,
    /// Fires when the turn is interrupted; tools then return promptly.
    pub cancel: CancellationToken,
    /// Folders outside `cwd` whose files `read_file` may read by absolute
    /// path (the folders of loaded skills), each held as a handle.
    pub read_roots: Vec<Root>,
    /// Decides gated calls: a writing tool prepares its change, then asks
    /// here, and writes only when allowed.
    pub permits: Permits,
    /// The id of the call being run (approval requests name it); empty
    /// outside a model's call.
    pub call_id: String,
    /// What the agent last saw of each file (the stale guard).
    pub seen: SeenFiles,
    /// Where writing tools store prior contents for undo; `None` keeps no
    /// undo information.
    pub journal: Option<Journal>,
}

impl ToolContext {
    /// A context for `cwd`, opened here as the root, with
    /// [`Permits::default`] (gated calls denied unless a rule allows them).
    ///
    /// Fails when `cwd` is not a directory that can be opened.
    pub fn new(cwd: impl AsRef<Path>, cancel: CancellationToken) -> std::io::Result<Self> {
        Ok(Self::with_root(Root::open(cwd.as_ref())?, cancel))
    }

    /// A context over an already opened root.
    pub fn with_root(root: Root, cancel: CancellationToken) -> Self {
        Self {
            cwd: root.display_path().to_path_buf(),
            root,
            cancel,
            read_roots: Vec::new(),
            permits: Permits::default(),
            call_id: String::new(),
            seen: SeenFiles::default(),
            journal: None,
        }
    }
}
