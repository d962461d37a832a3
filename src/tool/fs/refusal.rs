//! [`FsRefusal`]: why a confined access was refused, worded for the model.

use std::path::Path;

use crate::tool::ToolOutput;
use crate::tool::labelled::{Labelled, echo};

/// What kind of refusal this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsRefusalKind {
    /// The path leads outside the root, by its spelling or through a
    /// symlink (`path_escape`).
    Escape,
    /// Nothing by that name (`path_not_found`).
    NotFound,
    /// Not a usable path: empty, a NUL byte, too long (`path_invalid`).
    Invalid,
    /// Exists but is not a regular file: a directory, FIFO, socket or
    /// device (`path_not_regular`).
    NotRegular,
    /// Exists but is not a directory (`path_not_directory`).
    NotDirectory,
    /// Larger than the caller's cap (`file_too_large`).
    TooLarge,
    /// The operating system refused (permission, I/O error) (`io_error`).
    Io,
    /// On the read deny list: the user's secrets or light-agent's own data
    /// (`path_denied`).
    Denied,
}

impl FsRefusalKind {
    /// The stable code shown to the model.
    pub fn code(self) -> &'static str {
        match self {
            FsRefusalKind::Escape => "path_escape",
            FsRefusalKind::NotFound => "path_not_found",
            FsRefusalKind::Invalid => "path_invalid",
            FsRefusalKind::NotRegular => "path_not_regular",
            FsRefusalKind::NotDirectory => "path_not_directory",
            FsRefusalKind::TooLarge => "file_too_large",
            FsRefusalKind::Io => "io_error",
            FsRefusalKind::Denied => "path_denied",
        }
    }
}

/// A refused access, with `[what]`, `[code]`, `[cwd]`, `[path]`, `[how]`
/// lines telling the model what went wrong and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FsRefusal {
    /// What kind of refusal this is.
    pub kind: FsRefusalKind,
    /// The labelled-line message.
    pub message: String,
}

impl From<FsRefusal> for ToolOutput {
    fn from(refusal: FsRefusal) -> Self {
        ToolOutput::error(refusal.message)
    }
}

impl FsRefusal {
    /// A refusal of `kind` for `path` (as the caller spelled it) beneath
    /// `root`; `reason` adds a `[reason]` line when given.
    pub fn new(kind: FsRefusalKind, root: &Path, path: &str, reason: Option<&str>) -> Self {
        let (what, how) = match kind {
            FsRefusalKind::Escape => (
                "path is outside the working directory; refused",
                "choose a relative path inside the working directory",
            ),
            FsRefusalKind::NotFound => (
                "path does not exist",
                "check the spelling, or find existing paths with tree or grep first",
            ),
            FsRefusalKind::Invalid => (
                "path is not usable",
                "pass a non-empty relative path inside the working directory, e.g. \"src/main.rs\"",
            ),
            FsRefusalKind::NotRegular => (
                "this is not a regular file (directory, device, socket or pipe)",
                "read regular text files only; use tree to list a directory",
            ),
            FsRefusalKind::NotDirectory => (
                "this is not a directory",
                "pass a directory; use read_file for a file",
            ),
            FsRefusalKind::TooLarge => (
                "the file is too large",
                "read a smaller file, or a line window of it",
            ),
            FsRefusalKind::Io => (
                "the path could not be opened",
                "check the path with tree; it may be unreadable or have changed",
            ),
            FsRefusalKind::Denied => (
                "this path holds secrets or light-agent's own data; reading it is refused",
                "leave it alone; it is on the read deny list ([sandbox] deny_read, /permissions)",
            ),
        };
        let message = Labelled::what(what)
            .line("code", kind.code())
            .maybe("reason", reason)
            .line("cwd", root.display())
            .line("path", echo(path))
            .line("how", how)
            .finish();
        Self { kind, message }
    }

    /// The refusal an OS error gives, classified by its errno.
    pub(super) fn from_io(error: &rustix::io::Errno, root: &Path, path: &str) -> Self {
        use rustix::io::Errno;
        let (kind, reason) = match *error {
            Errno::NOENT => (FsRefusalKind::NotFound, None),
            Errno::NOTDIR => (
                FsRefusalKind::NotFound,
                Some("a folder on the way is not a directory"),
            ),
            Errno::XDEV => (
                FsRefusalKind::Escape,
                Some("a symlink on the way leads outside the working directory"),
            ),
            Errno::LOOP => (FsRefusalKind::Io, Some("too many levels of symbolic links")),
            Errno::ACCESS | Errno::PERM => (FsRefusalKind::Io, Some("permission denied")),
            Errno::NAMETOOLONG => (FsRefusalKind::Invalid, Some("a name is too long")),
            _ => (FsRefusalKind::Io, None),
        };
        let other;
        let reason = match reason {
            Some(reason) => Some(reason),
            None if kind == FsRefusalKind::Io => {
                other = std::io::Error::from(*error).to_string();
                Some(other.as_str())
            }
            None => None,
        };
        Self::new(kind, root, path, reason)
    }
}
