//! The per-call context a tool runs in.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::editor::Editor;
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
    /// Where the call shows live output while it runs; `None` when nobody
    /// watches.
    pub progress: Option<ToolProgress>,
    /// The user's editor, when the front end routes text files inside
    /// `root` through it (its unsaved buffers); `None`: the disk only.
    pub editor: Option<Editor>,
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
            progress: None,
            editor: None,
        }
    }
}

/// What receives one call's live output: the call id and the text to show
/// now (it replaces the previous text).
pub type ProgressSink = Arc<dyn Fn(&str, String) + Send + Sync>;

/// A running call's live-output channel. Updates are transient: shown to
/// the user, never logged, never sent to the model.
#[derive(Clone)]
pub struct ToolProgress {
    call_id: Arc<str>,
    sink: ProgressSink,
}

impl ToolProgress {
    /// Live output of call `call_id`, delivered to `sink`.
    pub fn new(call_id: &str, sink: ProgressSink) -> Self {
        Self {
            call_id: call_id.into(),
            sink,
        }
    }

    /// The call this progress belongs to.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// Shows `text` as the call's live output (replacing what was shown).
    pub fn update(&self, text: String) {
        (self.sink)(&self.call_id, text);
    }
}

impl fmt::Debug for ToolProgress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolProgress")
            .field("call_id", &self.call_id)
            .finish_non_exhaustive()
    }
}
