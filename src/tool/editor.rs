//! Files as the user's editor holds them. When a front end speaks for an
//! editor that offers its buffers (ACP's `fs/read_text_file` and
//! `fs/write_text_file`), the file tools read and write text files inside
//! the working directory through it: unsaved changes are what the agent
//! reads, and its edits land in the open buffers.
//!
//! The confinement stays ours: before the editor is asked, the path is
//! resolved beneath the root and read back from the folder's handle
//! ([`Root::located`]), so a path that leaves the directory, a symlink at the
//! end of it and a denied path are refused here and never sent.

use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::ToolOutput;
use super::fs::{RelPath, Root};
use super::labelled::Labelled;

/// What a front end implements to route file access through an editor.
/// Paths are absolute and already checked; a failure (the editor's error,
/// or no answer in time) is the message for the model and the user.
pub trait EditorFiles: Send + Sync {
    /// Whether reads go through the editor.
    fn reads(&self) -> bool;

    /// Whether writes go through the editor.
    fn writes(&self) -> bool;

    /// The text of the file at `path`, as the editor holds it.
    fn read_text(&self, path: PathBuf) -> BoxFuture<'static, Result<String, String>>;

    /// Makes `content` the text of the file at `path` (created if absent);
    /// resolves once the editor confirmed it.
    fn write_text(&self, path: PathBuf, content: String) -> BoxFuture<'static, Result<(), String>>;
}

/// A cheap-clone handle to an [`EditorFiles`], held in the tools' context.
#[derive(Clone)]
pub struct Editor(Arc<dyn EditorFiles>);

impl std::fmt::Debug for Editor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Editor")
            .field("reads", &self.reads())
            .field("writes", &self.writes())
            .finish()
    }
}

impl Editor {
    /// Wraps a front end's editor access.
    pub fn new(files: Arc<dyn EditorFiles>) -> Editor {
        Editor(files)
    }

    /// Whether reads go through the editor.
    pub fn reads(&self) -> bool {
        self.0.reads()
    }

    /// Whether writes go through the editor.
    pub fn writes(&self) -> bool {
        self.0.writes()
    }

    /// The text of `rel` beneath `root` as the editor holds it. The path is
    /// checked first; a refused path is never sent.
    pub(crate) async fn read(
        &self,
        root: &Root,
        rel: &RelPath,
        cancel: &CancellationToken,
    ) -> Result<String, ToolOutput> {
        let path = root.located(rel)?;
        tokio::select! {
            biased;
            () = cancel.cancelled() => Err(ToolOutput::error("cancelled while the editor read the file")),
            read = self.0.read_text(path) => read.map_err(|why| failed("read", rel, &why, "nothing was changed")),
        }
    }

    /// Writes `content` to `rel` beneath `root` through the editor. The
    /// path is checked first; a refused path is never sent.
    pub(crate) async fn write(
        &self,
        root: &Root,
        rel: &RelPath,
        content: String,
        cancel: &CancellationToken,
    ) -> Result<(), ToolOutput> {
        let path = root.located(rel)?;
        tokio::select! {
            biased;
            () = cancel.cancelled() => Err(ToolOutput::error("cancelled while the editor wrote the file")),
            written = self.0.write_text(path, content) => written.map_err(|why| failed("write", rel, &why, "the file was not written")),
        }
    }
}

fn failed(verb: &str, rel: &RelPath, why: &str, outcome: &str) -> ToolOutput {
    ToolOutput::error(
        Labelled::what(format!("the editor could not {verb} the file; {outcome}"))
            .line("path", rel)
            .line("error", why)
            .line("how", "retry; if the editor keeps failing, tell the user")
            .finish(),
    )
}
