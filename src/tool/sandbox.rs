//! The path sandbox: every path a tool touches resolves inside the cwd.
//!
//! [`resolve_in_cwd`] accepts relative and absolute input, follows symlinks
//! (canonicalisation) and refuses anything whose real location is outside
//! the canonical cwd. A path that is already outside by its spelling
//! (`../x`, `/etc/passwd`) is refused as an escape without revealing whether
//! it exists. `~` is not expanded: `~/x` names a directory called `~`.
//! Names that merely begin with dots (`..foo`) are ordinary names.

use std::path::{Component, Path, PathBuf};

use super::ToolOutput;
use super::labelled::{Labelled, echo};

/// Longest input accepted, in bytes (Linux `PATH_MAX`).
const MAX_PATH_BYTES: usize = 4096;

/// A path proven to lie inside the cwd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SafePath {
    /// Canonical absolute path (symlinks resolved), inside the cwd.
    pub absolute: PathBuf,
    /// The same path relative to the cwd, `/`-separated; `.` for the cwd.
    pub relative: String,
}

/// Why a path was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// The path leads outside the cwd (`path_escape`).
    Escape,
    /// The path does not exist (`path_not_found`).
    NotFound,
    /// The input is not a usable path (empty, NUL byte, too long).
    Invalid,
}

impl RefusalKind {
    /// The stable code of this refusal (`path_escape`, `path_not_found`,
    /// `path_invalid`).
    pub fn code(self) -> &'static str {
        match self {
            RefusalKind::Escape => "path_escape",
            RefusalKind::NotFound => "path_not_found",
            RefusalKind::Invalid => "path_invalid",
        }
    }
}

/// A refused path, with a message for the model in labelled lines.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PathRefusal {
    /// What kind of refusal this is.
    pub kind: RefusalKind,
    /// `[what]`, `[reason]`, `[cwd]`, `[path]`, `[how]` lines telling the
    /// model what went wrong and what to do instead.
    pub message: String,
}

impl From<PathRefusal> for ToolOutput {
    fn from(refusal: PathRefusal) -> Self {
        ToolOutput::error(refusal.message)
    }
}

/// Resolves `input` (relative to `cwd`, or absolute) to a path inside `cwd`.
///
/// Refuses with [`RefusalKind::Invalid`] an empty input, one with a NUL byte
/// or one longer than 4096 bytes; with [`RefusalKind::Escape`] anything
/// whose spelling or real (symlink-resolved) location is outside `cwd`; with
/// [`RefusalKind::NotFound`] a path inside `cwd` that does not exist.
/// Only metadata is touched; nothing is read.
pub fn resolve_in_cwd(cwd: &Path, input: &str) -> Result<SafePath, PathRefusal> {
    let real_cwd = cwd.canonicalize().map_err(|e| {
        invalid(
            cwd,
            input,
            &format!("the working directory is unusable: {e}"),
        )
    })?;
    if input.trim().is_empty() {
        return Err(invalid(&real_cwd, input, "the path is empty"));
    }
    if input.contains('\0') {
        return Err(invalid(&real_cwd, input, "the path contains a NUL byte"));
    }
    if input.len() > MAX_PATH_BYTES {
        return Err(invalid(
            &real_cwd,
            input,
            &format!("the path is longer than {MAX_PATH_BYTES} bytes"),
        ));
    }

    let joined = real_cwd.join(input);
    let inside_by_spelling = normalize_lexically(&joined).is_some_and(|p| p.starts_with(&real_cwd));
    let target = match joined.canonicalize() {
        Ok(target) => target,
        // Outside by spelling: refuse without saying whether it exists.
        Err(_) if !inside_by_spelling => return Err(escape(&real_cwd, input)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A missing name behind a symlink that leads outside is an escape.
            return Err(if existing_ancestor_inside(&joined, &real_cwd) {
                not_found(&real_cwd, input)
            } else {
                escape(&real_cwd, input)
            });
        }
        Err(e) => return Err(invalid(&real_cwd, input, &e.to_string())),
    };
    let Ok(relative) = target.strip_prefix(&real_cwd) else {
        return Err(escape(&real_cwd, input));
    };
    let relative = relative_display(relative);
    Ok(SafePath {
        absolute: target,
        relative,
    })
}

/// Resolves an absolute `input` inside one of `roots` (extra read-only
/// folders such as a loaded skill's). The result's `relative` is the
/// absolute path, since it is not relative to cwd.
pub fn resolve_in_roots(roots: &[PathBuf], input: &str) -> Option<SafePath> {
    if !Path::new(input).is_absolute() {
        return None;
    }
    roots.iter().find_map(|root| {
        resolve_in_cwd(root, input).ok().map(|safe| SafePath {
            relative: safe.absolute.display().to_string(),
            absolute: safe.absolute,
        })
    })
}

/// Whether the deepest existing ancestor of `path` really lies in `cwd`.
fn existing_ancestor_inside(path: &Path, cwd: &Path) -> bool {
    path.ancestors()
        .skip(1)
        .find_map(|ancestor| ancestor.canonicalize().ok())
        .is_some_and(|real| real.starts_with(cwd))
}

/// `a/./b/../c` → `a/c` without touching the filesystem; `None` when `..`
/// climbs above the root.
fn normalize_lexically(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

fn relative_display(relative: &Path) -> String {
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

fn escape(cwd: &Path, input: &str) -> PathRefusal {
    PathRefusal {
        kind: RefusalKind::Escape,
        message: Labelled::what("path is outside the working directory; refused")
            .line("code", RefusalKind::Escape.code())
            .line("cwd", cwd.display())
            .line("path", echo(input))
            .line("how", "choose a relative path inside the working directory")
            .finish(),
    }
}

fn not_found(cwd: &Path, input: &str) -> PathRefusal {
    PathRefusal {
        kind: RefusalKind::NotFound,
        message: Labelled::what("path does not exist")
            .line("code", RefusalKind::NotFound.code())
            .line("cwd", cwd.display())
            .line("path", echo(input))
            .line(
                "how",
                "check the spelling, or find existing paths with tree or grep first",
            )
            .finish(),
    }
}

fn invalid(cwd: &Path, input: &str, reason: &str) -> PathRefusal {
    PathRefusal {
        kind: RefusalKind::Invalid,
        message: Labelled::what("path is not usable")
            .line("code", RefusalKind::Invalid.code())
            .line("reason", reason)
            .line("cwd", cwd.display())
            .line("path", echo(input))
            .line(
                "how",
                "pass a non-empty relative path inside the working directory, e.g. \"src/main.rs\"",
            )
            .finish(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_normalisation_keeps_dot_dot_names() {
        assert_eq!(
            normalize_lexically(Path::new("/a/..foo/./b/../c")),
            Some(PathBuf::from("/a/..foo/c"))
        );
        assert_eq!(normalize_lexically(Path::new("/a/../..")), None);
    }
}
